// session.h: one process's pacing under pacer-run: the Pacer, the Host its
// presents go through, and the record of the run (the demo's trace and
// summary, demo/run/). The GL hooks (gl_preload.cpp) and the Vulkan layer
// (vk_layer.cpp) hand each present of the program here; nothing else does.
//
// Which presents are paced: those of one window a frame. A program that
// presents two windows each frame would otherwise wait twice a frame and run
// at half the rate; the session paces the first window presented, and moves
// to another only once that one has presented nothing for kQuietNs (a
// window closed, a splash screen replaced by the game's). The others' presents
// pass through at once.
//
// Threads: presents may come from any thread. The paced window's present
// runs under one lock (a Pacer is used by one thread at a time); another
// window's present never waits for it.
#pragma once

#include "settings.h"

#include <pacer/backends/window_host.h>
#include <pacer/pacer.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace pacer_demo {
class RunRecord;
class TraceWriter;
}  // namespace pacer_demo

namespace pacer_run {

// What the session asks of a hooked API (GLX, EGL, Vulkan): the Host its
// pacer uses, the real call the hook intercepted, its name, and the window
// it paces.
class HookedApi {
public:
    using Run = void (*)(void* context);
    virtual ~HookedApi() = default;
    // The Host the session's Pacer is made with: the same one every call.
    virtual pacer::backends::WindowHost& host() = 0;
    // The present the Host's swap makes: the real call the hook intercepted
    // (nullptr, nullptr: none now).
    virtual void present_with(Run run, void* context) = 0;
    // What the summary names the API by: "OpenGL (GLX)", "Vulkan".
    virtual const char* api_name() const = 0;
    // Before the session's Pacer is made, with the window it paces, and
    // again when another window takes over: a Host opens the present
    // feedback of that window (Wayland's surface, or the X window) here.
    virtual void starting(const void* window) { (void)window; }
};

// GL's Host for a program nobody rebuilt: the WindowHost of the GLFW and
// SDL2 backends (GL's finish before the wait, the swap interval's answer,
// the present feedback), whose swap is the hooked call.
class PresentHost : public pacer::backends::WindowHost, public HookedApi {
public:
    pacer::backends::WindowHost& host() override { return *this; }
    void present_with(Run run, void* context) override {
        run_ = run;
        context_ = context;
    }
    // Wayland's present feedback for the window's surface, once it is known.
    void watch_surface(void* wl_display, void* wl_surface) { open_feedback(wl_display, wl_surface); }
    // X11's (the Present extension) for an X window: the program's Xlib
    // Display* (null: $DISPLAY's server) and the window.
    void watch_x11_window(void* display, unsigned long window) { open_x11_feedback(display, window); }

protected:
    void* present_context() const { return context_; }   // the call present_with() named
    void swap_buffers() override {
        if (run_ != nullptr) run_(context_);
    }
    // As in front, where the Host has no way to ask (EGL); the GLX Host
    // asks the X server (gl_preload.cpp), and Config::background_hz and
    // hidden_hz then apply.
    WindowFlags window_flags() const override { return {}; }

private:
    Run run_ = nullptr;
    void* context_ = nullptr;
};

class Session {
public:
    static constexpr int64_t kQuietNs = 250'000'000;   // a paced window silent this long hands over
    static constexpr int64_t kFinishWaitNs = 1'000'000'000;

    // program: the name the summary gives; handover: pacer-run renames the
    // trace once the program has ended (its part is left, trace_part_path);
    // summary_dir: pacer-run's folder for the summary's copies ("" none).
    Session(RunSettings settings, std::string program, bool handover, std::string summary_dir = {});
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // A present of window (a drawable, a surface, a swapchain: any stable
    // address) through host, whose present_with() names the real call. The
    // paced window's present: finished GPU work, the wait, the present, its
    // mark (wait=before_present), or the present, then the wait
    // (frame_start). Any other: the present at once.
    void present(const void* window, HookedApi& api, HookedApi::Run run, void* context);

    // Whether the pacer sets the swap interval (vsync, auto, display_lock):
    // the program's own requests are then answered and not applied.
    bool owns_swap_interval() const { return settings_.paced && pacer::strategy_uses_host(settings_.strategy); }
    // The strategy the session paces with (pacer-run's --strategy).
    pacer::Strategy strategy() const { return settings_.strategy; }
    // The trace's rows so far pushed to its file: before a fork, so that the
    // child, which inherits the buffer, never writes them a second time.
    void flush_trace();

    // The trace closed (or left for pacer-run) and the summary printed, once;
    // presents after it pass through. Safe from an atexit handler while a
    // present is under way: its wait is cut short first, and a present on
    // another thread that does not end within kFinishWaitNs is not waited
    // for (the trace keeps the chunks written).
    void finish();
    // The pacer's wait in progress cut short (Pacer::interrupt).
    void interrupt();

private:
    bool start_(HookedApi& api, const void* window);   // under pace_mutex_: the Pacer and the outputs
    void note_frame_(const pacer::Frame& frame, int64_t swap_ns, int64_t swap_return_ns);
    std::string summary_text_() const;   // under pace_mutex_, once started
    void leave_summary_();                // its copy in summary_dir_, for pacer-run
    static void on_presented_(const pacer::Presented& presented, void* user);

    RunSettings settings_;
    std::string program_;
    bool handover_;
    std::string summary_dir_;   // pacer-run's folder for the summary's copies, "" none
    // Which window is paced (window_mutex_): the first, until kQuietNs quiet.
    mutable std::mutex window_mutex_;
    const void* paced_window_ = nullptr;
    int64_t paced_last_ns_ = 0;
    // The pacing and its record (pace_mutex_), and the thread inside a paced
    // present: a program that exits from inside its swap (Xlib's exit on a
    // lost server) runs finish() on the thread that holds the lock.
    std::timed_mutex pace_mutex_;
    std::atomic<std::thread::id> pacing_thread_{};
    std::atomic<bool> finished_{false};
    std::atomic<pacer::Pacer*> waiting_{nullptr};   // for interrupt(), from any thread
    HookedApi* api_ = nullptr;                      // the first present's: not owned
    std::unique_ptr<pacer::Pacer> pacer_;
    std::unique_ptr<pacer_demo::RunRecord> record_;
    std::unique_ptr<pacer_demo::TraceWriter> trace_;
    bool started_ = false;
    double target_hz_ = 0;
    std::string target_reason_;
    int32_t decision_seq_ = 0;
    int64_t swap_in_work_ns_ = 0;
    bool has_pending_ = false;                      // frame_start: the frame waiting for its present
    pacer::Frame pending_{};
};

// The process's session, made at its first call from PACER_RUN; nullptr
// where PACER_RUN is bad (its line printed once: the program runs unpaced).
// A child made by fork() starts a session of its own at its first present,
// and leaves its parent's untouched. The session finishes at exit().
Session* process_session();

}  // namespace pacer_run
