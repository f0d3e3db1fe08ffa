// window.cpp: what both backends share.
#include "window/window.h"

#include <atomic>
#include <csignal>

namespace pacer_demo {

namespace {

volatile std::sig_atomic_t g_close_signal = 0;
std::atomic<pacer::Pacer*> g_interrupted_pacer{nullptr};
static_assert(std::atomic<pacer::Pacer*>::is_always_lock_free, "read from a signal handler");
std::atomic<void (*)()> g_last_words{nullptr};

// A second close signal: the last words (the run's temporary files
// removed), then the signal's own default, which ends the process at once.
extern "C" void on_second_close_signal(int signal) {
    if (void (*last_words)() = g_last_words.load()) last_words();
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

// Async-signal-safe: records the signal, cuts the pacer's wait short
// (Pacer::interrupt sets a lock-free flag), and hands the next one to
// on_second_close_signal.
extern "C" void on_close_signal(int signal) {
    g_close_signal = signal;
    if (pacer::Pacer* pacer = g_interrupted_pacer.load()) pacer->interrupt();
    std::signal(signal, on_second_close_signal);
}

}  // namespace

void install_close_signal_handlers() {
    std::signal(SIGINT, on_close_signal);
    std::signal(SIGTERM, on_close_signal);
#ifdef SIGHUP   // POSIX: a closed terminal, kill -QUIT and kill -USR1 end the run as TERM does
    std::signal(SIGHUP, on_close_signal);
    std::signal(SIGQUIT, on_close_signal);
    std::signal(SIGUSR1, on_close_signal);
    // A reader that went away (pacer-demo ... | head -1) fails the write
    // (EPIPE) instead of killing the run and its files.
    std::signal(SIGPIPE, SIG_IGN);
#endif
}

int close_signal() { return g_close_signal; }

void interrupt_on_close(pacer::Pacer* pacer) { g_interrupted_pacer.store(pacer); }

void on_second_close_signal_first(void (*last_words)()) { g_last_words.store(last_words); }

const char* close_signal_name() {
    switch (g_close_signal) {
        case 0: return "";
        case SIGINT: return "SIGINT";
        case SIGTERM: return "SIGTERM";
#ifdef SIGHUP
        case SIGHUP: return "SIGHUP";
        case SIGQUIT: return "SIGQUIT";
        case SIGUSR1: return "SIGUSR1";
#endif
        default: return "a signal";
    }
}

const char* backend_name(Backend backend) {
    return backend == Backend::Glfw ? "glfw" : "sdl2";
}

Window::~Window() = default;

void Window::keep_report(const pacer::Presented& presented, void* window) {
    // Bounded, in case nobody drains it (a run without outputs keeps none).
    std::vector<pacer::Presented>& reports = static_cast<Window*>(window)->reports_;
    if (reports.size() < kMaxReports) reports.push_back(presented);
}

}  // namespace pacer_demo
