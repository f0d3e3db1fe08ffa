// app.cpp: the demo's frame loop, the integration example: an engine using
// the pacer looks like this. Where the wait goes (pacer::WaitPoint) is live:
//   before_present (default): input, simulate, render, wait, swap: steady presents
//   frame_start:              wait, input, simulate, render, swap: least latency
// Each turn starts with the wait either way: before present, the swap right
// after the wake shows the frame rendered the turn before. After each swap
// the pacer hears when it returned (mark_present). Every settings change
// (flags, scenario steps, overlay clicks) takes one path, change(): Controls
// sets what is not the pacer (injected sleeper, thread timing, load, vsync)
// and returns the pacer::Config, which the Pacer takes live (reconfigure).
#include "app.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <pacer/pacer.h>
#include <pacer/metrics.h>

#include "controls.h"
#include "run/atomic_file.h"
#include "run/files.h"
#include "motion.h"
#include "render/renderer.h"
#include "render/scene.h"
#include "run_control.h"
#include "ui/overlay.h"

namespace pacer_demo {
namespace {

// A failure while running (no window, no GL, a write that failed): exit 1.
// A refusal of what was asked, before anything runs: exit 2, as a bad flag.
int fail(const std::string& message, int code = 1) {
    std::fprintf(stderr, "pacer-demo: %s\n", printable(message).c_str());
    return code;
}

void* gl_proc_address(void* window, const char* name) {
    return static_cast<Window*>(window)->gl_proc_address(name);
}

// The scene goes right of the overlay's panel, or fills the window.
Stage stage_for(int width, int height, bool overlay) {
    const float left = overlay ? Overlay::panel_width_px(static_cast<float>(width)) : 0;
    return {left, 0, static_cast<float>(width) - left, static_cast<float>(height)};
}

// A close signal cuts the pacer's wait short; unnamed before it goes. A
// second one removes the run's temporary files before the process ends.
struct CloseInterrupts {
    explicit CloseInterrupts(pacer::Pacer* pacer) {
        interrupt_on_close(pacer);
        on_second_close_signal_first(remove_temporaries_now);
    }
    ~CloseInterrupts() { interrupt_on_close(nullptr); }
    CloseInterrupts(const CloseInterrupts&) = delete;
    CloseInterrupts& operator=(const CloseInterrupts&) = delete;
};

// A thread beside the frame loop, for what the loop cannot do while it is
// blocked: end --seconds on time inside a long wait (--hz 0.05 has 20 s
// frames), and end a run that a close signal did not reach because the
// display server stopped answering (a stopped compositor holds the swap until
// it runs again): after kStuckAfterSignal without a turn of the loop, it
// writes the run's files and summary itself and ends the process.
class RunWatch {
public:
    static constexpr std::chrono::milliseconds kTick{50};
    static constexpr std::chrono::seconds kStuckAfterSignal{2};

    RunWatch(pacer::Pacer& pacer, double seconds) : pacer_(pacer), seconds_(seconds) {
        thread_ = std::thread([this] { watch(); });
    }
    ~RunWatch() { stop(); }
    RunWatch(const RunWatch&) = delete;
    RunWatch& operator=(const RunWatch&) = delete;

    // Frame 0's wake: --seconds counts from here.
    void started() {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (seconds_ > 0)
            end_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds_));
    }
    void turned() { turns_.fetch_add(1, std::memory_order_relaxed); }   // each turn of the loop
    // Before the run's own finish: nothing more from this thread.
    void stop() {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        woken_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

private:
    using Clock = std::chrono::steady_clock;
    void watch() {
        std::unique_lock<std::mutex> lock(mutex_);
        Clock::time_point signal_seen{};
        int64_t turns_then = 0;
        while (!woken_.wait_for(lock, kTick, [this] { return stopping_; })) {
            const Clock::time_point now = Clock::now();
            if (end_ && now >= *end_) {
                end_.reset();
                pacer_.interrupt();
            }
            if (close_signal() == 0) continue;
            const int64_t turns = turns_.load(std::memory_order_relaxed);
            if (signal_seen == Clock::time_point{} || turns != turns_then) {
                signal_seen = now;
                turns_then = turns;
            } else if (now - signal_seen >= kStuckAfterSignal) {
                std::fprintf(stderr, "pacer-demo: %s, but the frame loop is held in the swap (the display server "
                             "does not answer): writing what the run measured and ending without it\n",
                             close_signal_name());
                finish_run_in_progress();
                std::fflush(nullptr);
                std::_Exit(1);
            }
        }
    }

    pacer::Pacer& pacer_;
    const double seconds_;
    std::mutex mutex_;
    std::condition_variable woken_;
    bool stopping_ = false;
    std::optional<Clock::time_point> end_;
    std::atomic<int64_t> turns_{0};
    std::thread thread_;
};

// The one path every settings change takes: Controls, then the pacer.
ChangeSettings settings_path(Controls& controls, pacer::Pacer& pacer) {
    return [&controls, &pacer](const Settings& changes, const std::string& source) {
        pacer::Config config;
        std::string problem = controls.apply(changes, source, &config);
        if (problem.empty()) problem = pacer.reconfigure(config);
        controls.settle();
        return problem;
    };
}

// What drawing a frame takes.
struct Painters {
    Window& window;
    Renderer& renderer;
    ImGuiLayer* imgui;   // null: no overlay
    Overlay& overlay;
    Controls& controls;
    pacer::Pacer& pacer;
    const ChangeSettings& change;
    Stage stage;         // where the scene went in the frame drawn last
};

// Draws the scene and, with ImGui, the overlay into the back buffer; returns
// where the scene went. rate_hz: the rate in force (the frame's period: the
// display's under display_lock), which the motion strip judges steps by.
Stage render(const Painters& p, const Scene& scene, bool overlay, double rate_hz) {
    int width = 0, height = 0;
    p.window.framebuffer_size(&width, &height);
    const Stage stage = stage_for(width, height, overlay);
    p.renderer.begin_frame(width, height);
    p.renderer.draw(scene.draw(stage, rate_hz));
    if (p.imgui != nullptr) {
        p.imgui->begin_frame();
        p.overlay.draw(p.controls, {&p.window, &p.pacer, &p.pacer.stats(), &p.change, &p.renderer.gl_renderer(),
                                    &scene, stage});
        p.imgui->end_frame();
    }
    return stage;
}

// 2. The frame's work: the synthetic load, then the simulation moved by the
//    frame's time step: frame.dt_ns (paced), or fixed steps fed by it, or
//    the measured interval (raw), as set (motion.h).
// 3. The scene and the overlay (which reads the pacer's stats) drawn.
MotionStep build_frame(Painters& p, const pacer::Frame& frame, Scene& scene, MotionClock& motion, bool overlay) {
    p.controls.load().do_frame_work(frame.index);
    const MotionStep step = motion.advance(frame, *p.controls.current().dt_mode);
    scene.update(pacer::seconds_of(static_cast<double>(step.dt_ns)));
    const double rate_hz =
        frame.period_ns > 0 ? pacer::hz_of(static_cast<double>(frame.period_ns)) : p.pacer.config().target_hz;
    p.stage = render(p, scene, overlay, rate_hz);
    return step;
}

// Whether the window can have the overlay; where not, says why on one line.
bool overlay_possible(const Window& window) {
    const std::string why = window.overlay_unavailable();
    if (why.empty()) return true;
    std::fprintf(stderr, "pacer-demo: no overlay: %s\n", printable(why).c_str());
    return false;
}

// What a run's frame loop works with, made by run_app.
struct Run {
    const AppOptions& options;
    RunOutputs& outputs;
    RunScript& script;
    Painters& painters;
};

// The frame loop: wait, present, the frame's work and drawing, the trace;
// until the window closes, the run ends or a signal comes. The exit code.
int run_frames(Run run) {
    Painters& p = run.painters;
    RunWatch watch(p.pacer, run.options.seconds);   // --seconds on time; a run a signal cannot reach
    Scene scene;
    MotionClock motion;                  // the scene's time in the dt mode in force
    int64_t first_wake_ns = 0;
    int64_t rendered = -1;               // the rendered frame awaiting its swap; -1: none
    std::string error;

    auto present = [&] {
        p.window.swap(rendered);
        p.pacer.mark_present(p.window.last_swap_return_ns());
        run.outputs.note_swap(p.window, rendered);   // and what the compositor said about earlier frames
        rendered = -1;
    };

    while (!p.window.should_close()) {
        // 1. Wait for this frame's deadline on the pacer's grid; waiting
        //    before present, show the frame rendered last turn at once.
        const pacer::Frame frame = p.pacer.wait();
        if (frame.interrupted && p.window.should_close()) break;   // SIGINT, SIGTERM: end now
        if (rendered >= 0) present();
        p.window.poll_events();
        watch.turned();
        if (frame.index == 0) {
            first_wake_ns = frame.wake_ns;
            watch.started();
        }
        const double elapsed_s = pacer::seconds_of(static_cast<double>(frame.wake_ns - first_wake_ns));
        if (run.script.finished(frame.index, elapsed_s)) break;
        if (error = run.script.apply_due(frame.index, elapsed_s, p.controls, p.change); !error.empty()) return fail(error);

        // 2. and 3. The frame's work and its drawing (build_frame).
        const MotionStep step = build_frame(p, frame, scene, motion, run.options.overlay);
        if (error = run.outputs.screenshot_if_due(frame.index, p.renderer, scene, p.stage); !error.empty()) {
            return fail(error);
        }
        rendered = frame.index;

        // 4. Waiting at the frame start: present now. Before present: the
        //    next turn's wait comes first.
        if (p.pacer.config().wait_point == pacer::WaitPoint::FrameStart) present();

        run.outputs.write_trace(frame, step, p.pacer, p.controls, p.window.last_swap_return_ns());
    }
    // A Wayland compositor that went away looks like a close request: say
    // which it was, and end non-zero as a lost X server does.
    watch.stop();
    return run.outputs.finish(p.pacer, p.controls, p.window, p.renderer, p.window.display_lost());
}

}  // namespace

int run_app(const AppOptions& given) {
    AppOptions options = given;   // the overlay goes where the window cannot have it
    RunOutputs outputs;   // trace, screenshot and summary paths: checked before anything runs
    if (std::string error = outputs.open(options); !error.empty()) return fail(error, 2);

    std::string error;
    std::unique_ptr<Window> window =
        Window::create(options.backend, {"pacer demo", options.width, options.height}, &error);
    if (!window) return fail(error);
    Renderer renderer;
    if (!renderer.init(gl_proc_address, window.get(), &error)) return fail(error);
    std::optional<ImGuiLayer> imgui;
    Overlay overlay;
    options.overlay = options.overlay && overlay_possible(*window);
    if (options.overlay) imgui.emplace(*window);

    // The pacer, made with the command line's settings (its first decision
    // is theirs, not the defaults'), and the one path every later settings
    // change takes to it.
    Controls controls(*window);
    pacer::Config config;
    if (error = controls.apply(options.settings, "cli", &config); !error.empty()) return fail(error);
    controls.settle();
    std::unique_ptr<pacer::Pacer> pacer = pacer::Pacer::create(config, &error);
    if (!pacer) return fail(error);
    const CloseInterrupts close_interrupts(pacer.get());
    const ExitGuard exit_guard(outputs, *pacer, controls, *window, renderer);   // a lost X server leaves the files
    controls.load().stop_when([] { return close_signal() != 0; });   // a signal cuts the frame's work short
    const ChangeSettings change = settings_path(controls, *pacer);
    RunScript script(options);
    if (error = script.apply_start(controls, change); !error.empty()) return fail(error);

    Painters painters{*window, renderer, imgui ? &*imgui : nullptr, overlay, controls, *pacer, change, {}};
    return run_frames({options, outputs, script, painters});
}

}  // namespace pacer_demo
