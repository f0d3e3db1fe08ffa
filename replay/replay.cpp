// replay.cpp: the replay of replay.h: a fake clock and sleeper, the display
// model as a pacer::Host, and the demo's frame loop around the public API.
#include "replay.h"
#include "vrr_panel.h"

#include <pacer/metrics.h>
#include <pacer/platform.h>
#include <pacer/status.h>
#include <pacer/units.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <memory>
#include <tuple>
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

// replay.h's DisplayModel as a Host: refreshes at kStartNs + k * period, or
// at the recorded times (refreshes, sorted) and at the period past them.
class DisplayHost final : public pacer::Host {
public:
    DisplayHost(ReplayClock& clock, const DisplayModel& model, std::vector<int64_t> refreshes, Observer* observer)
        : clock_(clock), observer_(observer), period_(pacer::period_ns_of(model.refresh_hz)),
          stated_period_(pacer::period_ns_of(model.stated_hz > 0 ? model.stated_hz : model.refresh_hz)),
          latch_ns_(model.latch_ns), queue_frames_(std::max(model.queue_frames, 0)),
          jitter_ns_(std::max<int64_t>(model.report_jitter_ns, 0)),
          idle_repaint_ns_(std::max<int64_t>(model.idle_repaint_ns, 0)), refreshes_(std::move(refreshes)) {
        if (model.vrr) vrr_ = std::make_unique<VrrPanel>(model.vrr_min_hz, model.refresh_hz);
    }

    bool set_swap_interval(int interval) override {
        interval_ = std::max(interval, 0);
        return true;
    }
    double refresh_rate_hz() override { return pacer::hz_of(stated_period_); }
    bool variable_refresh(pacer::VrrRange* out) override {
        if (!vrr_) return false;
        out->min_hz = vrr_->min_hz();
        out->max_hz = vrr_->max_hz();
        out->source = "the replay's VRR display";
        return true;
    }
    bool take_presented(pacer::Presented* out) override {
        flush();
        if (ready_.empty()) return false;
        *out = ready_.front();
        ready_.pop_front();
        told_.push_back(*out);
        if (observer_ != nullptr) observer_->presented(*out);
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

    // Swaps the frame built after wake frame_index; returns when the swap
    // does. Its frame enters the display at the call (a Wayland commit comes
    // first: weston's reports put a 3 ms swap's frame on screen as early as
    // a 0.2 ms one's), and the swap returns its own_ns later where the
    // recording timed it (else kSwapNs).
    void swap(int64_t frame_index, int64_t own_ns) {
        flush();
        clock_.set(gpu_done_ns_);   // the swap cannot show what the GPU has not finished
        if (vrr_) {
            swap_vrr(frame_index, own_ns);
            return;
        }
        int64_t k = first_refresh_at(clock_.now_ns() + latch_ns_);
        if (idle_repaint_ns_ > 0 && pending_.empty() &&
            (last_k_ < 0 || refresh_ns(last_k_ + 1) - latch_ns_ < clock_.now_ns())) {
            // A refresh passed with no frame waiting: the compositor stopped
            // repainting, and this swap starts its clock again.
            offset_ns_ += clock_.now_ns() + idle_repaint_ns_ + latch_ns_ - refresh_ns(k);
        }
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
            clock_.advance(own_ns > 0 ? own_ns : kSwapNs);
        }
        flush();
    }
    double period_ns() const { return period_; }

private:
    struct Pending {
        int64_t frame;
        int64_t k;   // the refresh that shows it; a VRR panel's: when its scanout begins, ns
    };
    // On the VRR panel: the frame's scanout begins as the panel allows; a
    // swap with an interval returns once it has begun.
    void swap_vrr(int64_t frame_index, int64_t own_ns) {
        bool torn = false;
        const int64_t begins = std::llround(
            vrr_->show(static_cast<double>(clock_.now_ns() + latch_ns_), interval_ > 0, &torn));
        pending_.push_back({frame_index, begins});
        if (interval_ > 0 && begins - latch_ns_ > clock_.now_ns())
            clock_.set(begins - latch_ns_ + kReturnNs);
        else
            clock_.advance(own_ns > 0 ? own_ns : kSwapNs);
        flush();
    }
    int64_t refresh_ns(int64_t k) const { return offset_ns_ + scheduled_ns(k); }
    int64_t first_refresh_at(int64_t t) const { return first_scheduled_at(t - offset_ns_); }
    // The refreshes as scheduled, before the idle restarts moved them.
    int64_t scheduled_ns(int64_t k) const {
        if (refreshes_.empty()) return kStartNs + std::llround(static_cast<double>(k) * period_);
        const auto known = static_cast<int64_t>(refreshes_.size());
        if (k < known) return refreshes_[static_cast<std::size_t>(k)];
        return refreshes_.back() + std::llround(static_cast<double>(k - known + 1) * period_);
    }
    int64_t first_scheduled_at(int64_t t) const {
        if (refreshes_.empty() || t > refreshes_.back()) {
            const int64_t base = refreshes_.empty() ? kStartNs : refreshes_.back();
            const int64_t past = refreshes_.empty() ? 0 : static_cast<int64_t>(refreshes_.size()) - 1;
            return past + static_cast<int64_t>(std::ceil(static_cast<double>(t - base) / period_ - 1e-9));
        }
        return static_cast<int64_t>(std::lower_bound(refreshes_.begin(), refreshes_.end(), t) - refreshes_.begin());
    }
    void flush() {
        while (vrr_ && !pending_.empty() && pending_.front().k <= clock_.now_ns()) {
            pacer::Presented shown;
            shown.frame_index = pending_.front().frame;
            shown.displayed_ns = pending_.front().k;
            shown.flags = pacer::kPresentedHwClock | pacer::kPresentedHwCompletion;
            ready_.push_back(shown);
            pending_.pop_front();
        }
        while (!vrr_ && !pending_.empty() && refresh_ns(pending_.front().k) <= clock_.now_ns()) {
            pacer::Presented shown;
            shown.frame_index = pending_.front().frame;
            shown.displayed_ns = refresh_ns(pending_.front().k) + noise();
            shown.refresh_ns = std::llround(stated_period_);
            if (refreshes_.empty()) {   // a recorded display's times are a compositor's: no flags, no counter
                shown.seq = static_cast<uint64_t>(pending_.front().k + 1);
                shown.flags = pacer::kPresentedVsync | pacer::kPresentedHwCompletion |
                              (jitter_ns_ > 0 ? 0u : pacer::kPresentedHwClock);
            }
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
    Observer* observer_;
    double period_;
    double stated_period_;
    int64_t latch_ns_;
    int queue_frames_;
    int64_t jitter_ns_;
    int64_t idle_repaint_ns_;
    int64_t offset_ns_ = 0;   // how far the idle restarts moved the refreshes
    uint64_t noise_state_ = 12345;
    int interval_ = 0;
    int64_t last_k_ = -1;
    int64_t gpu_done_ns_ = 0;
    std::deque<Pending> pending_;
    std::deque<pacer::Presented> ready_;
    std::vector<pacer::Presented> told_;
    std::vector<int64_t> refreshes_;
    std::unique_ptr<VrrPanel> vrr_;   // a VRR panel (DisplayModel::vrr), else null
};

// The recording's own refreshes on the replay's clock: the times it saw
// frames shown, a gap of n refreshes filled with n - 1 evenly spaced, and
// refreshes at the period before the first.
std::vector<int64_t> recorded_refreshes(const Recording& recording, double period_ns) {
    std::vector<int64_t> seen;
    for (const RecordedFrame& frame : recording.frames) {
        if (frame.shown_at_ms >= 0) seen.push_back(kStartNs + std::llround(pacer::ns_of_ms(frame.shown_at_ms)));
    }
    std::sort(seen.begin(), seen.end());
    std::vector<int64_t> out;
    if (seen.empty()) return out;
    for (int64_t t = seen.front() - std::llround(period_ns); t > 0; t -= std::llround(period_ns)) out.push_back(t);
    std::reverse(out.begin(), out.end());
    for (int64_t t : seen) {
        if (!out.empty()) {
            const double gap = static_cast<double>(t - out.back());
            if (gap < 0.25 * period_ns) continue;   // one refresh, reported twice
            const auto n = static_cast<int64_t>(std::round(gap / period_ns));
            const int64_t from = out.back();
            for (int64_t j = 1; j < n; ++j)
                out.push_back(from + std::llround(gap * static_cast<double>(j) / static_cast<double>(n)));
        }
        out.push_back(t);
    }
    return out;
}

// Refreshes per 1,000 that showed the frame before again where the target
// had a new one due: the library's count (pacer::HitchCount), as the live
// run's summary and overlay give it. shown: (time, the report's flags), sorted.
// grid: Fixed where period_ns is the display's own, as the live count keeps
// the refresh a display states and its reports confirm.
double hitches_per_1000(const std::vector<std::pair<int64_t, uint32_t>>& shown, double period_ns, double target_hz,
                        pacer::HitchCount::Grid grid = pacer::HitchCount::Grid::Follow) {
    pacer::HitchCount count;
    const int due = pacer::due_refreshes(period_ns, target_hz);
    for (const auto& [shown_ns, flags] : shown) count.add(shown_ns, period_ns, due, flags, grid);
    return count.per_1000();
}

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

ReplayResult replay(const Recording& recording, const ReplayConfig& config, Observer* observer) {
    ReplayClock clock;
    ReplaySleeper sleeper(clock);
    DisplayHost display(clock, config.display,
                        config.display.recorded ? recorded_refreshes(recording, pacer::period_ns_of(config.display.refresh_hz))
                                                : std::vector<int64_t>{},
                        observer);
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
    std::vector<int64_t> work_start(recording.frames.size() + 1, -1);   // by wake index
    int64_t rendered = -1;
    std::size_t rendered_work = 0;   // its recorded frame
    int decisions = 0;
    int32_t decision_seq = 0;
    int64_t last_swap_return_ns = -1;
    auto present = [&] {
        const int64_t called = clock.now_ns();
        display.swap(rendered, recording.frames[rendered_work].swap_ns);
        last_swap_return_ns = clock.now_ns();
        pacer.mark_present(last_swap_return_ns);
        if (observer != nullptr) observer->swapped(rendered, last_swap_return_ns, last_swap_return_ns - called);
        rendered = -1;
    };
    for (std::size_t i = 0; i <= recording.frames.size(); ++i) {
        const pacer::Frame frame = pacer.wait();
        metrics.add(frame);
        if (frame.decision_seq != decision_seq) {
            decision_seq = frame.decision_seq;
            ++decisions;
        }
        if (rendered >= 0) present();
        if (i == recording.frames.size()) break;
        if (observer != nullptr && !observer->turn_started(pacer, frame)) break;
        const RecordedFrame& work = recording.frames[i];
        const int64_t start = clock.now_ns();
        if (frame.index >= 0 && static_cast<std::size_t>(frame.index) < work_start.size())
            work_start[static_cast<std::size_t>(frame.index)] = start;
        display.gpu_work(start, work.gpu_work_ns);
        clock.advance(work.cpu_work_ns);
        rendered = frame.index;
        rendered_work = i;
        if (pacer.config().wait_point == pacer::WaitPoint::FrameStart) present();
        if (observer != nullptr) observer->turn_done(pacer, frame, last_swap_return_ns);
    }
    // The last frames' fates, once their refreshes have passed.
    clock.advance(std::llround(4 * display.period_ns()));
    for (pacer::Presented report; display.take_presented(&report);) {
    }
    if (observer != nullptr) observer->finished(pacer);

    ReplayResult result;
    result.label = config.label.empty() ? pacer::strategy_name(config.strategy) + std::string(" at ") +
                                              pacer::hz_text(config.target_hz)
                                        : config.label;
    result.frames = static_cast<int64_t>(recording.frames.size());
    const pacer::Summary summary = metrics.summary();
    result.presents_off_pct = summary.presents.off_pct;
    result.shown_off_pct = summary.shown.off_pct;
    result.decision = pacer.decision().reason;
    result.decisions = decisions;

    // Latency, hitches and drops from the display's own reports.
    std::vector<std::tuple<int64_t, int64_t, uint32_t>> shown;   // (frame, displayed_ns, flags), by frame
    std::vector<int64_t> latency_ns;
    for (const pacer::Presented& report : display.told()) {
        if (report.discarded) {
            ++result.dropped;
            continue;
        }
        shown.emplace_back(report.frame_index, report.displayed_ns, report.flags);
        const auto f = static_cast<std::size_t>(report.frame_index);
        if (report.frame_index >= 0 && f < work_start.size() && work_start[f] >= 0)
            latency_ns.push_back(report.displayed_ns - work_start[f]);
    }
    std::sort(shown.begin(), shown.end());
    result.latency_p50_ms = nearest_rank_ms(latency_ns, 0.50);
    result.latency_p99_ms = nearest_rank_ms(latency_ns, 0.99);
    // A VRR panel has no refresh of its own: a hitch there is a frame a
    // quarter of the pace's period or more behind it.
    const double pace_hz = config.display.vrr ? pacer.decision().pace_hz : config.target_hz;
    const double period = config.display.vrr ? pacer::period_ns_of(pace_hz) : display.period_ns();
    std::vector<std::pair<int64_t, uint32_t>> shown_ns;
    for (const auto& [frame, at_ns, flags] : shown) shown_ns.emplace_back(at_ns, flags);
    // A modelled display that states its own refresh keeps it: the live
    // count's Grid::Fixed (a stated refresh its software dates confirm).
    const bool own = !config.display.vrr && !config.display.recorded &&
                     (config.display.stated_hz <= 0 || config.display.stated_hz == config.display.refresh_hz);
    result.hitches_per_1000 = hitches_per_1000(shown_ns, period, pace_hz,
                                               own ? pacer::HitchCount::Grid::Fixed : pacer::HitchCount::Grid::Follow);
    return result;
}

ReplayResult recorded_figures(const Recording& recording) {
    ReplayResult result;
    result.label = "the recording";
    result.frames = static_cast<int64_t>(recording.frames.size());
    result.decisions = recording.decisions;
    std::vector<double> presents, changes;
    std::vector<int64_t> shown_ns, latency_ns;
    for (const RecordedFrame& frame : recording.frames) {
        if (frame.present_ms > 0) presents.push_back(frame.present_ms);
        if (frame.displayed && frame.display_ms > 0) changes.push_back(frame.display_ms);
        result.dropped += frame.displayed ? 0 : 1;
        if (frame.shown_at_ms >= 0) shown_ns.push_back(std::llround(pacer::ns_of_ms(frame.shown_at_ms)));
        if (frame.latency_ms >= 0) latency_ns.push_back(std::llround(pacer::ns_of_ms(frame.latency_ms)));
    }
    auto off_pct = [](std::vector<double> values) {
        if (values.empty()) return -1.0;
        std::sort(values.begin(), values.end());
        const double median = values[values.size() / 2];
        const auto off = std::count_if(values.begin(), values.end(), [&](double v) { return std::fabs(v - median) > 0.5; });
        return 100.0 * static_cast<double>(off) / static_cast<double>(values.size());
    };
    result.presents_off_pct = off_pct(presents);
    result.shown_off_pct = off_pct(changes);
    result.hitches_per_1000 = -1;
    result.latency_p50_ms = result.latency_p99_ms = -1;
    if (recording.shown_times && recording.refresh_hz > 0) {
        std::sort(shown_ns.begin(), shown_ns.end());
        const double period = pacer::period_ns_of(recording.refresh_hz);
        // A recording says nothing of who dated its frames: the nearest
        // refresh (software dates).
        std::vector<std::pair<int64_t, uint32_t>> dated;
        for (int64_t t : shown_ns) dated.emplace_back(t, 0u);
        result.hitches_per_1000 =
            hitches_per_1000(dated, period, 1000.0 / recording.target_period_ms);
        result.latency_p50_ms = nearest_rank_ms(latency_ns, 0.50);
        result.latency_p99_ms = nearest_rank_ms(latency_ns, 0.99);
    }
    return result;
}

int64_t fitted_latch_ns(const Recording& recording) {
    const double period_ms = recording.refresh_hz > 0 ? pacer::ms_of(pacer::period_ns_of(recording.refresh_hz)) : 0;
    int64_t made = -1, missed = -1;
    const RecordedFrame* ahead = nullptr;   // the frame shown before this one
    for (const RecordedFrame& frame : recording.frames) {
        if (frame.shown_at_ms < 0) continue;
        const bool dated = frame.swapped_at_ms >= 0 && !frame.swap_blocked && frame.shown_at_ms >= frame.swapped_at_ms;
        if (dated) {
            const int64_t room = std::llround(pacer::ns_of_ms(frame.shown_at_ms - frame.swapped_at_ms));
            made = made < 0 ? room : std::min(made, room);
            const bool next_refresh = ahead != nullptr && period_ms > 0 &&
                                      std::fabs(frame.shown_at_ms - ahead->shown_at_ms - period_ms) <= period_ms / 4;
            if (next_refresh && frame.swapped_at_ms < ahead->shown_at_ms)
                missed = std::max<int64_t>(missed, std::llround(pacer::ns_of_ms(ahead->shown_at_ms - frame.swapped_at_ms)));
        }
        ahead = &frame;
    }
    if (made < 0) return -1;
    return missed >= 0 && missed < made ? missed + (made - missed) / 2 : made;
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
    const std::string unit = recording.layout == "CapFrameX JSON" ? " run" : " swap chain";
    std::string out = "replay of " + recording.path + " (" + recording.layout + "): " + recording.chain + " (" +
                      std::to_string(recording.chains) + unit + (recording.chains == 1 ? "" : "s") +
                      " in the file), " + std::to_string(recording.frames.size()) + " frames";
    if (recording.rows_without_work > 0)
        out += " (" + std::to_string(recording.rows_without_work) + " rows without CPU work left out)";
    out += "; its display fitted at " +
           (recording.refresh_hz > 0 ? pacer::hz_text(std::round(recording.refresh_hz * 100) / 100)
                                     : std::string("no rate (no displayed frames)")) + "\n";
    out += "PresentMon counts a game's own frame limiter's sleep as CPU work (MsCPUBusy): a capture of a limited "
           "game replays that sleep as work.\n\n";
    // Decisions are counted where the recording counts its own (the demo's trace).
    const bool decisions = recording.decisions >= 0;
    out += std::string("| run | presents off % | shown off % | hitches / 1,000 | latency p50 ms | latency p99 ms | ") +
           "dropped | " + (decisions ? "decisions | " : "") + "decision |\n|---|---|---|---|---|---|---|" +
           (decisions ? "---|" : "") + "---|\n";
    auto cell = [](double value) { return value < 0 ? std::string("–") : fixed(value, 1); };
    std::vector<ReplayResult> rows{recorded_figures(recording)};
    rows.insert(rows.end(), results.begin(), results.end());
    for (const ReplayResult& r : rows) {
        const bool own = &r == &rows.front();
        out += "| " + r.label + " | " + cell(r.presents_off_pct) + " | " + cell(r.shown_off_pct) + " | " +
               cell(r.hitches_per_1000) + " | " + cell(r.latency_p50_ms) + " | " + cell(r.latency_p99_ms) + " | " +
               std::to_string(r.dropped) + " | " + (decisions ? std::to_string(r.decisions) + " | " : "") +
               (own ? std::string("–") : r.decision) + " |\n";
    }
    return out;
}

}  // namespace pacer_replay
