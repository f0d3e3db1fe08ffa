// platform.cpp: what both backends share.
#include "platform/window.h"

#include <atomic>
#include <csignal>
#include "platform/present_feedback.h"

namespace pacer_demo {

namespace {

volatile std::sig_atomic_t g_close_signal = 0;
std::atomic<pacer::Pacer*> g_interrupted_pacer{nullptr};
static_assert(std::atomic<pacer::Pacer*>::is_always_lock_free, "read from a signal handler");

// Async-signal-safe: records the signal, cuts the pacer's wait short
// (Pacer::interrupt sets a lock-free flag), and puts the default back so
// that a second one ends the process at once.
extern "C" void on_close_signal(int signal) {
    g_close_signal = signal;
    if (pacer::Pacer* pacer = g_interrupted_pacer.load()) pacer->interrupt();
    std::signal(signal, SIG_DFL);
}

}  // namespace

void install_close_signal_handlers() {
    std::signal(SIGINT, on_close_signal);
    std::signal(SIGTERM, on_close_signal);
}

int close_signal() { return g_close_signal; }

void interrupt_on_close(pacer::Pacer* pacer) { g_interrupted_pacer.store(pacer); }

const char* close_signal_name() {
    switch (g_close_signal) {
        case 0: return "";
        case SIGINT: return "SIGINT";
        case SIGTERM: return "SIGTERM";
        default: return "a signal";
    }
}

const char* backend_name(Backend backend) {
    return backend == Backend::Glfw ? "glfw" : "sdl2";
}

const char* swap_answer_name(SwapAnswer answer) {
    switch (answer) {
        case SwapAnswer::None: return "not requested";
        case SwapAnswer::Accepted: return "accepted";
        case SwapAnswer::Refused: return "refused";
        case SwapAnswer::Unconfirmed: return "requested, cannot confirm";
    }
    return "?";
}

Platform::~Platform() = default;

void Platform::open_present_feedback_(void* wl_display, void* wl_surface) {
    std::string why;
    present_feedback_ = open_wayland_present_feedback(wl_display, wl_surface, &why);
    present_feedback_source_ = present_feedback_
                                   ? std::string("wp_presentation, clock ") + present_feedback_->clock_name()
                                   : "none: " + why;
}

void Platform::request_presented_(int64_t frame_index) {
    if (present_feedback_) present_feedback_->request(frame_index);
}

bool Platform::take_presented(pacer::Presented* out) {
    if (!present_feedback_ || !present_feedback_->take(out)) return false;
    // Bounded, in case nobody drains it (a run without outputs keeps none).
    if (reports_.size() < kMaxReports) reports_.push_back(*out);
    return true;
}

bool Platform::set_swap_interval(int interval) {
    swap_state_.requested = interval;
    swap_state_.answer = request_swap_interval_(interval);
    return swap_state_.answer != SwapAnswer::Refused;
}

}  // namespace pacer_demo
