// session.cpp: one process's pacing under pacer-run (session.h).
#include "session.h"

#include "run/atomic_file.h"
#include "run/run_record.h"
#include "run/summary.h"
#include "run/trace.h"

#include <pacer/platform.h>
#include <pacer/status.h>

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>

namespace pacer_run {

namespace {

int64_t steady_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::string hz_text(double hz) {
    char text[32];
    std::snprintf(text, sizeof text, "%g Hz", hz);
    return text;
}

}  // namespace

Session::Session(RunSettings settings, std::string program, bool handover, std::string summary_dir)
    : settings_(std::move(settings)),
      program_(std::move(program)),
      handover_(handover),
      summary_dir_(settings_.summary ? std::move(summary_dir) : std::string()) {}

Session::~Session() = default;

void Session::interrupt() {
    if (pacer::Pacer* pacer = waiting_.load()) pacer->interrupt();
}

void Session::present(const void* window, HookedApi& api, HookedApi::Run run, void* context) {
    bool paced = settings_.paced && !finished_.load();
    bool handed_over = false;   // another window took over: its feedback, not the old one's
    if (paced) {
        std::lock_guard<std::mutex> lock(window_mutex_);
        const int64_t now_ns = steady_now_ns();
        if (paced_window_ == nullptr || paced_window_ == window || now_ns - paced_last_ns_ > kQuietNs) {
            handed_over = paced_window_ != nullptr && paced_window_ != window;
            paced_window_ = window;
            paced_last_ns_ = now_ns;
        } else {
            paced = false;
        }
    }
    std::unique_lock<std::timed_mutex> lock(pace_mutex_, std::defer_lock);
    if (paced) {
        lock.lock();
        // One Host paces: a program that presents through GLX and EGL (or GL
        // and Vulkan) is paced through the first it used.
        // A start that failed (no Pacer) leaves every present unpaced.
        paced = !finished_.load() && (!started_ || (pacer_ != nullptr && &api == api_));
        if (paced) api.present_with(run, context);   // before start_: the Host asks its window
        if (paced && !started_) {
            paced = start_(api, window);
        } else if (paced && handed_over) {
            api.starting(window);
        }
    }
    if (!paced) {
        if (lock.owns_lock()) api.present_with(nullptr, nullptr);
        run(context);
        return;
    }
    pacer::backends::WindowHost& host = api.host();
    pacer::Clock& clock = pacer_->clock();
    pacing_thread_.store(std::this_thread::get_id());
    if (settings_.wait_point == pacer::WaitPoint::BeforePresent) {
        waiting_.store(pacer_.get());
        const pacer::Frame frame = pacer_->wait();   // the GPU work finished (Host::finish_gpu), then the wait
        waiting_.store(nullptr);
        const int64_t swap_start_ns = clock.now_ns();
        host.present(*pacer_, frame);   // before_swap, the real present, mark_present
        const int64_t swap_return_ns = clock.now_ns();
        note_frame_(frame, swap_return_ns - swap_start_ns, swap_return_ns);
    } else {
        const int64_t swap_start_ns = clock.now_ns();
        host.before_swap(has_pending_ ? pending_.index : -1);
        run(context);
        host.after_swap();
        pacer_->mark_present();
        const int64_t swap_return_ns = clock.now_ns();
        if (has_pending_) note_frame_(pending_, swap_return_ns - swap_start_ns, swap_return_ns);
        waiting_.store(pacer_.get());
        pending_ = pacer_->wait();   // the program's next frame starts on the grid
        waiting_.store(nullptr);
        has_pending_ = true;
    }
    api.present_with(nullptr, nullptr);
    pacing_thread_.store(std::thread::id());
}

bool Session::start_(HookedApi& api, const void* window) {
    started_ = true;
    api.starting(window);
    pacer::backends::WindowHost& host = api.host();
    pacer::Config config;
    target_hz_ = settings_.hz;
    if (target_hz_ > 0) {
        target_reason_ = "as asked";
    } else if (const double refresh_hz = host.refresh_rate_hz(); refresh_hz > 0) {
        target_hz_ = refresh_hz;
        target_reason_ = "the display's refresh, " + hz_text(refresh_hz);
    } else {
        target_hz_ = kFallbackHz;
        target_reason_ = hz_text(kFallbackHz) + ": the display states no refresh";
    }
    config.target_hz = target_hz_;
    config.strategy = settings_.strategy;
    config.wait_point = settings_.wait_point;
    config.background_hz = settings_.background_hz;
    config.hidden_hz = settings_.hidden_hz;
    config.host = &host;
    std::string problem;
    pacer_ = pacer::Pacer::create(config, &problem);
    if (!pacer_) {
        std::fprintf(stderr, "pacer-run: %s; %s runs unpaced\n", problem.c_str(), program_.c_str());
        return false;
    }
    api_ = &api;
    record_ = std::make_unique<pacer_demo::RunRecord>(pacer_demo::Scenario{}.success_tolerance_ms);
    if (!settings_.trace.empty()) {
        trace_ = std::make_unique<pacer_demo::TraceWriter>(settings_.trace,
                                                           trace_part_path(settings_.trace, ::getpid()));
        if (!trace_->ok()) {
            std::fprintf(stderr, "pacer-run: %s; %s runs paced, without a trace\n", trace_->error().c_str(),
                         program_.c_str());
            trace_.reset();
        }
    }
    host.on_presented(on_presented_, this);
    return true;
}

void Session::note_frame_(const pacer::Frame& frame, int64_t swap_ns, int64_t swap_return_ns) {
    std::string decision;
    if (frame.decision_seq != decision_seq_) {
        decision_seq_ = frame.decision_seq;
        decision = pacer_->decision().reason;
    }
    // The frame's work ran from the wake before it to its wait, across the
    // present before this one (as the demo counts it).
    record_->add_frame(frame, -1, "the program's own", pacer_->display().locked, swap_in_work_ns_);
    record_->add_swap(frame.index, swap_return_ns);
    swap_in_work_ns_ = swap_ns;
    if (!summary_dir_.empty() && (frame.index + 1) % kSummaryEveryFrames == 0) leave_summary_();
    if (!trace_) return;
    pacer_demo::TraceExtra extra{decision, {}};
    extra.wait_point = pacer::wait_point_name(settings_.wait_point);
    extra.present_ns = swap_return_ns;
    extra.pacing_of(pacer_->decision());
    trace_->write(frame, extra);
    if (trace_->rows() % pacer_demo::TraceWriter::kChunkRows == 0) trace_->flush();
}

void Session::on_presented_(const pacer::Presented& presented, void* user) {
    auto* self = static_cast<Session*>(user);   // inside Pacer::wait: pace_mutex_ is held
    self->record_->add_presented(presented);
    if (self->trace_) self->trace_->displayed(presented.frame_index, presented.discarded, presented.displayed_ns);
}

void Session::flush_trace() {
    std::lock_guard<std::timed_mutex> lock(pace_mutex_);
    if (trace_) trace_->flush();
}

void Session::finish() {
    if (finished_.exchange(true)) return;
    interrupt();
    std::unique_lock<std::timed_mutex> lock(pace_mutex_, std::defer_lock);
    if (pacing_thread_.load() != std::this_thread::get_id() &&
        !lock.try_lock_for(std::chrono::nanoseconds(kFinishWaitNs))) {
        std::fprintf(stderr, "pacer-run: %s exited while a present on another thread did not end; "
                             "the trace keeps the rows written\n", program_.c_str());
        return;
    }
    // The Pacer is left as it is, never destroyed: at exit the program's GL
    // or Vulkan may be gone, and ~Pacer would put the swap interval back.
    if (!pacer_) return;
    if (trace_) {
        const std::string problem = handover_ ? trace_->leave_temp() : trace_->close();
        if (!problem.empty()) std::fprintf(stderr, "pacer-run: %s\n", problem.c_str());
    }
    if (!settings_.summary) return;
    std::fputs(summary_text_().c_str(), stderr);
    if (!summary_dir_.empty()) std::remove(summary_part_path(summary_dir_, ::getpid()).c_str());   // printed
}

// The summary pacer-run prints where the process ends without printing its
// own (a signal, _exit, a crash): the same text, as of the frames so far,
// written whole (atomic_file.h) every kSummaryEveryFrames frames. Its cost,
// a report over bounded histograms and a small file, falls once a second at
// 60 Hz in the frame's work after its present, as the trace's chunk does.
void Session::leave_summary_() {
    pacer_demo::AtomicFile file(summary_part_path(summary_dir_, ::getpid()), "pacer-run: the summary's copy");
    if (!file.ok()) return;
    std::fputs(summary_text_().c_str(), file.get());
    file.close();
}

std::string Session::summary_text_() const {
    pacer_demo::RunFacts facts;
    auto info = [&](const char* key, const std::string& value) { facts.info.emplace_back(key, value); };
    const pacer::Decision& decision = pacer_->decision();
    info("backend", "pacer-run");
    info("program", program_);
    info("api", api_->api_name());
    info("strategy", pacer::strategy_name(settings_.strategy));
    info("strategy_in_force", pacer::strategy_name(pacer_->status().strategy));
    info("decision_reason", decision.reason);
    info("target_hz", hz_text(target_hz_));
    info("wait_point", pacer::wait_point_name(settings_.wait_point));
    info("settings", format_settings(settings_));
    const pacer::backends::SwapIntervalState swap = api_->host().swap_interval();
    facts.brief.push_back("pacer-run: " + program_ + " (pid " + std::to_string(::getpid()) + "), " +
                          api_->api_name() + ", target " + hz_text(target_hz_) + " (" + target_reason_ + ")");
    facts.brief.push_back("pacing: " + std::string(pacer::strategy_name(settings_.strategy)) + " -> " +
                          decision.reason + "; swap interval: last asked " + std::to_string(swap.requested) +
                          ", " + pacer::backends::swap_answer_name(swap.answer));
    facts.present_feedback = api_->host().present_feedback();
    facts.refresh_hz = pacer_->display().stated_hz;
    const pacer_demo::RunReport report = record_->report(facts, *pacer_);
    return pacer_demo::summary_text(report);
}

namespace {

// The process's session. Never destroyed: the program's threads may present
// until the process ends, and exit() runs no destructor of ours before
// finish_at_exit (a static object's might run first).
std::mutex* g_mutex = new std::mutex;
Session* g_session = nullptr;
pid_t g_pid = 0;            // the process g_session belongs to
bool g_refused = false;     // PACER_RUN was bad: said once, nothing paced
bool g_at_exit = false;     // finish_at_exit registered (fork keeps it)

void finish_at_exit() {
    Session* session = nullptr;
    {
        std::lock_guard<std::mutex> lock(*g_mutex);
        if (g_pid == ::getpid()) session = g_session;
    }
    if (session != nullptr) session->finish();
}

// fork() from another thread while this one holds the lock would leave the
// child's copy locked for ever: the fork waits for it.
// The session's trace is flushed first: the child inherits its buffer.
void lock_before_fork() {
    g_mutex->lock();
    if (g_session != nullptr && g_pid == ::getpid()) g_session->flush_trace();
}
void unlock_after_fork() { g_mutex->unlock(); }

// The program's name as its command line reads now, after the last '/' or
// '\\'. Wine rewrites its process's command line to the Windows program's
// ("game.exe ARGS"), moving the strings program_invocation_short_name
// pointed into at start-up; the session starts at the first present, after
// that.
std::string program_name() {
    FILE* file = std::fopen("/proc/self/cmdline", "rb");
    std::string first;
    if (file != nullptr) {
        int c = 0;
        while ((c = std::fgetc(file)) != EOF && c != '\0' && first.size() < 4096) first.push_back(static_cast<char>(c));
        std::fclose(file);
    }
    if (first.empty()) return program_invocation_short_name;
    return first.substr(first.find_last_of("/\\") + 1);
}

}  // namespace

Session* process_session() {
    std::lock_guard<std::mutex> lock(*g_mutex);
    if (g_pid != ::getpid()) {   // the first call, or the first in a forked child: its own session
        static const bool registered = pthread_atfork(lock_before_fork, unlock_after_fork, unlock_after_fork) == 0;
        (void)registered;
        g_pid = ::getpid();
        g_session = nullptr;     // the parent's copy, left untouched
        g_refused = false;
    }
    if (g_session != nullptr || g_refused) return g_session;
    RunSettings settings;
    const char* text = std::getenv(kSettingsVariable);
    const std::string problem = text == nullptr ? std::string() : parse_settings(text, &settings);
    const std::string program = program_name();
    if (!problem.empty()) {
        std::fprintf(stderr, "pacer-run: %s; %s runs unpaced\n", problem.c_str(), program.c_str());
        g_refused = true;
        return nullptr;
    }
    const char* handover = std::getenv(kHandoverVariable);
    const char* summary_dir = std::getenv(kSummaryDirVariable);
    g_session = new Session(std::move(settings), program, handover != nullptr && std::string_view(handover) == "1",
                            summary_dir != nullptr ? summary_dir : "");
    if (!g_at_exit) g_at_exit = std::atexit(finish_at_exit) == 0;
    return g_session;
}

}  // namespace pacer_run
