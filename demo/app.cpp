// app.cpp: the demo's frame loop. This is the integration example: an engine
// using the pacer looks like this. Where the wait goes is a choice
// (pacer::WaitPoint), switchable live:
//
//   frame_start:    wait -> input -> simulate -> render -> swap
//                   the lowest input latency; the work's jitter reaches the presents
//   before_present: input -> simulate -> render -> wait -> swap
//                   the steadiest presents; what is shown is a frame older
//
// The loop below starts each turn with the wait either way: before present,
// the swap right after the wake shows the frame rendered in the turn before.
// After each swap the pacer is told when it returned (mark_present).
//
// Everything else the demo does (scenario steps, the overlay, traces) hangs
// off the loop through Controls, RunScript and RunOutputs.
#include "app.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include <pacer/pacer.h>
#include <pacer/platform.h>
#include <pacer/stats.h>
#include <pacer/thread_timing.h>

#include "controls.h"
#include "motion.h"
#include "render/renderer.h"
#include "render/scene.h"
#include "run.h"
#include "ui/overlay.h"

namespace pacer_demo {
namespace {

int fail(const std::string& message) {
    std::fprintf(stderr, "pacer-demo: %s\n", message.c_str());
    return 1;
}

void* gl_proc_address(void* platform, const char* name) {
    return static_cast<Platform*>(platform)->gl_proc_address(name);
}

// The scene goes right of the overlay's panel, or fills the window.
Stage stage_for(int width, int height, bool overlay) {
    const float left = overlay ? Overlay::kPanelWidthPx : 0;
    return {left, 0, static_cast<float>(width) - left, static_cast<float>(height)};
}

}  // namespace

int run_app(const AppOptions& options) {
    RunOutputs outputs;   // trace, screenshot and summary paths: checked before anything runs
    if (std::string error = outputs.open(options); !error.empty()) return fail(error);

    std::string error;
    std::unique_ptr<Platform> platform =
        Platform::create(options.backend, {"pacer demo", options.width, options.height}, &error);
    if (!platform) return fail(error);
    Renderer renderer;
    if (!renderer.init(gl_proc_address, platform.get(), &error)) return fail(error);
    std::optional<ImGuiLayer> imgui;
    Overlay overlay;
    if (options.overlay) imgui.emplace(*platform);

    // The pacer lives in Controls, which settings from the command line, the
    // scenario and the overlay all go through.
    Controls controls(*platform);
    RunScript script(options);
    if (error = controls.apply(options.settings, "cli"); !error.empty()) return fail(error);
    if (error = script.apply_start(controls); !error.empty()) return fail(error);

    Scene scene;
    MotionClock motion;                  // the scene's time in the dt mode in force
    pacer::Stats stats;                  // the overlay's window of recent frames
    int64_t first_wake_ns = 0;
    int64_t rendered = -1;               // the rendered frame awaiting its swap; -1: none

    auto present = [&] {
        platform->swap(rendered);
        controls.mark_present(platform->last_swap_return_ns());
        outputs.note_swap(*platform, rendered);   // and what the compositor said about earlier frames
        rendered = -1;
    };

    while (!platform->should_close()) {
        // 1. Wait for this frame's deadline on the pacer's grid; waiting
        //    before present, show the frame rendered last turn at once.
        const pacer::Frame frame = controls.wait();
        if (rendered >= 0) present();
        platform->poll_events();
        if (frame.index == 0) first_wake_ns = frame.wake_ns;
        const double elapsed_s = static_cast<double>(frame.wake_ns - first_wake_ns) * 1e-9;
        if (script.finished(frame.index, elapsed_s)) break;
        if (error = script.apply_due(frame.index, elapsed_s, controls); !error.empty()) return fail(error);

        // 2. The frame's work: the synthetic load, then the simulation moved
        //    by the frame's time step: frame.dt_ns (paced), or fixed steps fed
        //    by it, or the measured interval (raw), as set (motion.h).
        controls.load().do_frame_work(frame.index);
        const MotionStep step = motion.advance(frame, *controls.current().dt_mode);
        scene.update(static_cast<double>(step.dt_ns) * 1e-9);

        // 3. Render the scene and the overlay.
        int width = 0, height = 0;
        platform->framebuffer_size(&width, &height);
        const Stage stage = stage_for(width, height, options.overlay);
        renderer.begin_frame(width, height);
        renderer.draw(scene.draw(stage, *controls.current().hz));
        if (imgui) {
            imgui->begin_frame();
            overlay.draw(controls, {platform.get(), &stats, &renderer.gl_renderer(), &scene, stage});
            imgui->end_frame();
        }
        if (error = outputs.screenshot_if_due(frame.index, renderer, scene, stage); !error.empty()) {
            return fail(error);
        }

        rendered = frame.index;

        // 4. Waiting at the frame start: present now. Before present: the
        //    next turn's wait comes first.
        if (*controls.current().wait_point == pacer::WaitPoint::FrameStart) present();

        stats.add(frame);
        outputs.write_trace(frame, step, controls, platform->last_swap_return_ns());
    }
    return outputs.finish(controls, *platform, renderer);
}

}  // namespace pacer_demo
