// replay.cpp: the replay of replay.h: a fake clock and sleeper, the display
// model as a pacer::Host, and the demo's frame loop around the public API.
#include "replay.h"

#include <pacer/metrics.h>
#include <pacer/platform.h>
#include <pacer/status.h>
#include <pacer/units.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

namespace pacer_replay {

namespace {

constexpr int64_t kStartNs = pacer::kNsPerSecond;   // the fake clock's first reading
constexpr int64_t kSpinTurnNs = 1'000;              // one spin-loop turn of the fake sleeper
constexpr int64_t kSwapNs = 100'000;                // a swap that does not block returns this late
constexpr int64_t kReturnNs = 100'000;              // a blocking swap returns this long after its refresh

// Time passes only when the replay says so: sleeps and spins jump to their
// end, work advances it by the recorded amount.
class ReplayClock final : public pacer::Clock {
public:
    int64_t now_ns() override { return now_; }
    int64_t thread_cpu_ns() override { return -1; }
    void advance(int64_t ns) { now_ += std::max<int64_t>(ns, 0); }
    void set(int64_t ns) { now_ = std::max(now_, ns); }

private:
    int64_t now_ = kStartNs;
};

class ReplaySleeper final : public pacer::Sleeper {
public:
    explicit ReplaySleeper(ReplayClock& clock) : clock_(clock) {}
    void sleep_ns(int64_t duration_ns) override { clock_.advance(duration_ns); }
    bool has_high_res_timer() const override { return true; }
    bool sleep_until_ns(int64_t deadline_ns) override {
        clock_.set(deadline_ns);
        return true;
    }
    void pause() override { clock_.advance(kSpinTurnNs); }
    int64_t scheduler_period_ns() const override { return 0; }

private:
    ReplayClock& clock_;
};

// replay.h's DisplayModel as a Host: refreshes at kStartNs + k * period.
class FixedCadence final : public pacer::Host {
public:
    FixedCadence(ReplayClock& clock, const DisplayModel& model)
        : clock_(clock), period_(pacer::period_ns_of(model.refresh_hz)), latch_ns_(model.latch_ns),
          queue_frames_(std::max(model.queue_frames, 0)), jitter_ns_(std::max<int64_t>(model.report_jitter_ns, 0)) {}

    bool set_swap_interval(int interval) override {
        interval_ = std::max(interval, 0);
        return true;
    }
    double refresh_rate_hz() override { return pacer::hz_of(period_); }
    bool take_presented(pacer::Presented* out) override {
        flush();
        if (ready_.empty()) return false;
        *out = ready_.front();
        ready_.pop_front();
        told_.push_back(*out);
        return true;
    }
    const std::vector<pacer::Presented>& told() const { return told_; }   // every report handed out
    // The frame's GPU work runs from its work's start; the step waits for it
    // within the budget.
    void finish_gpu(int64_t budget_ns) override {
        const int64_t done = gpu_done_ns_ - clock_.now_ns();
        if (done > 0) clock_.advance(std::min(done, budget_ns));
    }
    void gpu_work(int64_t start_ns, int64_t gpu_ns) { gpu_done_ns_ = start_ns + gpu_ns; }

    // Swaps the frame built after wake frame_index; returns when the swap does.
    void swap(int64_t frame_index) {
        flush();
        clock_.set(gpu_done_ns_);   // the swap cannot show what the GPU has not finished
        int64_t k = first_refresh_at(clock_.now_ns() + latch_ns_);
        if (interval_ > 0) {
            if (last_k_ >= 0) k = std::max(k, last_k_ + interval_);
        } else if (!pending_.empty() && pending_.back().k >= k) {
            pacer::Presented gone;   // mailbox: replaced before its refresh
            gone.frame_index = pending_.back().frame;
            gone.discarded = true;
            ready_.push_back(gone);
            pending_.pop_back();
        }
        pending_.push_back({frame_index, k});
        last_k_ = k;
        const std::size_t queued = static_cast<std::size_t>(queue_frames_);
        if (interval_ > 0 && pending_.size() > queued) {
            // The swap returns once the frame queue_frames before it is on screen.
            clock_.set(refresh_ns(pending_[pending_.size() - 1 - queued].k) + kReturnNs);
        } else {
            clock_.advance(kSwapNs);
        }
        flush();
    }
    double period_ns() const { return period_; }

private:
    struct Pending {
        int64_t frame;
        int64_t k;
    };
    int64_t refresh_ns(int64_t k) const { return kStartNs + std::llround(static_cast<double>(k) * period_); }
    int64_t first_refresh_at(int64_t t) const {
        return static_cast<int64_t>(std::ceil(static_cast<double>(t - kStartNs) / period_ - 1e-9));
    }
    void flush() {
        while (!pending_.empty() && refresh_ns(pending_.front().k) <= clock_.now_ns()) {
            pacer::Presented shown;
            shown.frame_index = pending_.front().frame;
            shown.displayed_ns = refresh_ns(pending_.front().k) + noise();
            shown.refresh_ns = std::llround(period_);
            shown.seq = static_cast<uint64_t>(pending_.front().k + 1);
            shown.flags = pacer::kPresentedVsync | pacer::kPresentedHwCompletion |
                          (jitter_ns_ > 0 ? 0u : pacer::kPresentedHwClock);
            ready_.push_back(shown);
            pending_.pop_front();
        }
    }

    // In [-jitter, +jitter], from a fixed sequence: the same run every time.
    int64_t noise() {
        if (jitter_ns_ == 0) return 0;
        noise_state_ = noise_state_ * 6364136223846793005ULL + 1442695040888963407ULL;
        const double unit = static_cast<double>(noise_state_ >> 11) / 9007199254740992.0;
        return std::llround((2 * unit - 1) * static_cast<double>(jitter_ns_));
    }

    ReplayClock& clock_;
    double period_;
    int64_t latch_ns_;
    int queue_frames_;
    int64_t jitter_ns_;
    uint64_t noise_state_ = 12345;
    int interval_ = 0;
    int64_t last_k_ = -1;
    int64_t gpu_done_ns_ = 0;
    std::deque<Pending> pending_;
    std::deque<pacer::Presented> ready_;
    std::vector<pacer::Presented> told_;
};

double nearest_rank_ms(std::vector<int64_t> values, double q) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
    return pacer::ms_of(static_cast<double>(values[std::clamp<std::size_t>(rank, 1, values.size()) - 1]));
}

std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

}  // namespace

ReplayResult replay(const Recording& recording, const ReplayConfig& config) {
    ReplayClock clock;
    ReplaySleeper sleeper(clock);
    FixedCadence display(clock, config.display);
    pacer::Config pacing;
    pacing.target_hz = config.target_hz;
    pacing.strategy = config.strategy;
    pacing.wait_point = config.wait_point;
    pacing.display.lead_ns = config.lead_ns;
    pacing.display.hitches_per_1000 = config.hitches_per_1000;
    pacing.clock = &clock;
    pacing.sleeper = &sleeper;
    pacing.host = &display;
    pacer::Pacer pacer(pacing);   // the configs are ours: valid by construction
    pacer::RunMetrics metrics;

    // The frame loop of demo/app.cpp: wait; before present, show the frame
    // rendered last turn at once; then this frame's work.
    const bool before_present = config.wait_point == pacer::WaitPoint::BeforePresent;
    std::vector<int64_t> work_start(recording.frames.size() + 1, -1);   // by wake index
    int64_t rendered = -1;
    auto present = [&] {
        display.swap(rendered);
        pacer.mark_present(clock.now_ns());
        rendered = -1;
    };
    for (std::size_t i = 0; i <= recording.frames.size(); ++i) {
        const pacer::Frame frame = pacer.wait();
        metrics.add(frame);
        if (rendered >= 0) present();
        if (i == recording.frames.size()) break;
        const RecordedFrame& work = recording.frames[i];
        const int64_t start = clock.now_ns();
        if (frame.index >= 0 && static_cast<std::size_t>(frame.index) < work_start.size())
            work_start[static_cast<std::size_t>(frame.index)] = start;
        display.gpu_work(start, work.gpu_work_ns);
        clock.advance(work.cpu_work_ns);
        rendered = frame.index;
        if (!before_present) present();
    }
    // The last frames' fates, once their refreshes have passed.
    clock.advance(std::llround(4 * display.period_ns()));
    for (pacer::Presented report; display.take_presented(&report);) {
    }

    ReplayResult result;
    result.label = config.label.empty() ? pacer::strategy_name(config.strategy) + std::string(" at ") +
                                              pacer::hz_text(config.target_hz)
                                        : config.label;
    result.frames = static_cast<int64_t>(recording.frames.size());
    const pacer::Summary summary = metrics.summary();
    result.presents_off_pct = summary.presents.off_pct;
    result.shown_off_pct = summary.shown.off_pct;
    result.decision = pacer.decision().reason;

    // Latency, hitches and drops from the display's own reports.
    std::vector<std::pair<int64_t, int64_t>> shown;   // (frame, displayed_ns), by frame
    std::vector<int64_t> latency_ns;
    for (const pacer::Presented& report : display.told()) {
        if (report.discarded) {
            ++result.dropped;
            continue;
        }
        shown.emplace_back(report.frame_index, report.displayed_ns);
        const auto f = static_cast<std::size_t>(report.frame_index);
        if (report.frame_index >= 0 && f < work_start.size() && work_start[f] >= 0)
            latency_ns.push_back(report.displayed_ns - work_start[f]);
    }
    std::sort(shown.begin(), shown.end());
    result.latency_p50_ms = nearest_rank_ms(latency_ns, 0.50);
    result.latency_p99_ms = nearest_rank_ms(latency_ns, 0.99);
    // A hitch: a refresh that showed the frame before again, where the
    // target's cadence (n refreshes a frame) had a new one due.
    const double period = display.period_ns();
    const double per_frame = std::max(1.0, std::round(pacer::period_ns_of(config.target_hz) / period));
    double hitches = 0, refreshes = 0;
    for (std::size_t i = 1; i < shown.size(); ++i) {
        const double between = std::round(static_cast<double>(shown[i].second - shown[i - 1].second) / period);
        refreshes += between;
        hitches += std::max(0.0, between - per_frame);
    }
    result.hitches_per_1000 = refreshes > 0 ? 1000.0 * hitches / refreshes : 0;
    return result;
}

std::vector<ReplayConfig> default_configs(double target_hz, double refresh_hz) {
    std::vector<ReplayConfig> configs;
    for (pacer::Strategy strategy : {pacer::Strategy::Timer, pacer::Strategy::Vsync, pacer::Strategy::DisplayLock}) {
        ReplayConfig config;
        config.strategy = strategy;
        config.target_hz = target_hz;
        config.display.refresh_hz = refresh_hz;
        configs.push_back(config);
    }
    return configs;
}

std::string table(const Recording& recording, const std::vector<ReplayResult>& results) {
    // The recording's own figures: its presents and display changes off
    // their medians by more than 0.5 ms, and the frames it never showed.
    std::vector<double> presents, changes;
    int64_t not_shown = 0;
    for (const RecordedFrame& frame : recording.frames) {
        if (frame.present_ms > 0) presents.push_back(frame.present_ms);
        if (frame.displayed && frame.display_ms > 0) changes.push_back(frame.display_ms);
        not_shown += frame.displayed ? 0 : 1;
    }
    auto off_pct = [](std::vector<double> values) {
        if (values.empty()) return std::string("–");
        std::vector<double> sorted = values;
        std::sort(sorted.begin(), sorted.end());
        const double median = sorted[sorted.size() / 2];
        const auto off = std::count_if(values.begin(), values.end(), [&](double v) { return std::fabs(v - median) > 0.5; });
        return fixed(100.0 * static_cast<double>(off) / static_cast<double>(values.size()), 1);
    };
    std::string out = "replay of " + recording.path + " (" + recording.layout + "): " + recording.chain + " (" +
                      std::to_string(recording.chains) + " swap chain" + (recording.chains == 1 ? "" : "s") +
                      " in the file), " + std::to_string(recording.frames.size()) + " frames";
    if (recording.rows_without_work > 0)
        out += " (" + std::to_string(recording.rows_without_work) + " rows without CPU work left out)";
    out += "; its display fitted at " +
           (recording.refresh_hz > 0 ? pacer::hz_text(std::round(recording.refresh_hz * 100) / 100)
                                     : std::string("no rate (no displayed frames)")) + "\n";
    out += "PresentMon counts a game's own frame limiter's sleep as CPU work (MsCPUBusy): a capture of a limited "
           "game replays that sleep as work.\n\n";
    out += "| run | presents off % | shown off % | hitches / 1,000 | latency p50 ms | latency p99 ms | dropped | "
           "decision |\n|---|---|---|---|---|---|---|---|\n";
    out += "| the recording | " + off_pct(presents) + " | " + off_pct(changes) + " | – | – | – | " +
           std::to_string(not_shown) + " | – |\n";
    for (const ReplayResult& r : results) {
        out += "| " + r.label + " | " + fixed(r.presents_off_pct, 1) + " | " + fixed(r.shown_off_pct, 1) + " | " +
               fixed(r.hitches_per_1000, 1) + " | " + fixed(r.latency_p50_ms, 1) + " | " + fixed(r.latency_p99_ms, 1) +
               " | " + std::to_string(r.dropped) + " | " + r.decision + " |\n";
    }
    return out;
}

}  // namespace pacer_replay
