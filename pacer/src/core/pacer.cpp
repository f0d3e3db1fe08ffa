// pacer.cpp: the Pacer. It owns the deadline grid, decides missed frames and
// resyncs, gives the engine its dt, and hands each wait to its Waiter. What
// paces and why is the Arbiter's (arbiter.h); what the display showed, and
// the predicted present, the PresentModel's (present_model.h).
//
// The grid's rules (first wait, skip, catch up, stalls, relative sleep and
// vsync, live changes) are listed in docs/design.md, "The grid"; times are
// saturating (base/saturate.h). Where the Host reports what the display
// showed, vsync's dt and every predicted present come from the fitted
// display clock (present_model.h).
#include "core/pacer_impl.h"

#include <pacer/metrics.h>
#include <pacer/status.h>

#include <string>

namespace pacer {

WaitResult Pacer::Impl::wait_until(int64_t deadline_ns) {
    Clock& clock = waiter.clock();
    int64_t now = clock.now_ns();
    const int64_t began = now;
    WaitResult sliced{now, 0, 0, 0};
    int64_t cpu_before = 0;   // read at the first slice only: a wait that is not sliced pays nothing
    bool slices = false;
    bool went_back = false;   // the clock went back mid-wait: it ends here (the next wait re-anchors)
    while (!interrupt_requested.load(std::memory_order_relaxed) && !went_back &&
           sat_sub(deadline_ns, now) > 2 * kSliceNs) {
        if (!slices) cpu_before = clock.thread_cpu_ns();
        slices = true;
        if (arbiter.waiter_strategy() == Strategy::Spin) {
            sliced.spun_ns = sat_add(sliced.spun_ns, waiter.wait_until(sat_add(now, kSliceNs)).spun_ns);
        } else {
            waiter.sleeper().sleep_ns(kSliceNs);
            sliced.slept_ns = sat_add(sliced.slept_ns, sat_sub(clock.now_ns(), now));
        }
        now = clock.now_ns();
        went_back = now < began;
    }
    WaitResult result = sliced;
    if (interrupt_requested.load(std::memory_order_relaxed) || went_back) {
        result.wake_ns = now;
    } else {
        result = waiter.wait_until(deadline_ns);
        result.slept_ns = sat_add(result.slept_ns, sliced.slept_ns);
        result.spun_ns = sat_add(result.spun_ns, sliced.spun_ns);
    }
    if (slices) {   // the slices' CPU too, where the clock can tell
        const int64_t cpu_after = clock.thread_cpu_ns();
        result.cpu_ns = cpu_before >= 0 && cpu_after >= cpu_before ? cpu_after - cpu_before : -1;
    }
    return result;
}

// The frame's figures, from its step, its wait and where it aims.
void Pacer::Impl::describe(Frame& frame, const Step& step, const WaitResult& waited, int64_t t, int64_t work_end_ns,
                           bool vsync, int64_t aim_ns) {
    frame.deadline_ns = step.deadline_ns;
    frame.wake_ns = waited.wake_ns;
    frame.lateness_ns = sat_sub(waited.wake_ns, step.deadline_ns);
    frame.interval_ns = index == 0 ? 0 : sat_sub(waited.wake_ns, last_wake_ns);
    frame.period_ns = grid.period_ns();
    frame.work_ns = index == 0 ? 0 : sat_sub(work_end_ns, last_wake_ns);
    frame.gpu_finish_ns = sat_sub(work_end_ns, t);
    frame.slept_ns = waited.slept_ns;
    frame.spun_ns = waited.spun_ns;
    frame.wait_cpu_ns = waited.cpu_ns;
    frame.missed = step.missed;
    frame.resynced = step.resynced;
    frame.strategy = arbiter.in_force();
    frame.dt_ns = dt_for(frame, vsync, aim_ns);
    // display_lock aims the swap right after this wake; waiting before
    // present, that swap shows the frame built before it, and the one
    // built after goes out at the next deadline, a step later.
    const bool shown_next = swap_follows_wait();
    frame.predicted_present_ns = aim_ns < 0 ? predict_present(frame, vsync)
                                 : shown_next ? sat_add(aim_ns, grid.period_ns())
                                              : aim_ns;
    // Only the timer watches contention; other strategies' frames say nothing.
    frame.contended = !vsync && arbiter.waiter_strategy() == Strategy::Timer && waiter.state().contended;
}

Frame Pacer::Impl::wait() {
    Clock& clock = waiter.clock();
    const int64_t t = clock.now_ns();
    Frame frame{};
    if (index > 0) present.note_swap(index - 1, present_ns);   // the swap after the last wake
    take_presented(frame);
    if (index > 0) arbiter.before_wait(t, index);
    follow_ceiling(t);

    frame.index = index;
    frame.present_ns = present_ns;
    present_ns = -1;
    // FrameStart: the last frame's wake-to-present is the next one's estimate.
    if (frame.present_ns >= 0 && index > 0 && frame.present_ns >= last_wake_ns)
        build_ns = sat_sub(frame.present_ns, last_wake_ns);

    // display_lock paces on the display's clock while it holds; through a
    // loss (Arbiter's hold) the grid keeps the last step, as timer.
    const bool locked = arbiter.in_force() == Strategy::DisplayLock && present.display().locked();
    Step step = place(t, locked);

    const bool vsync = arbiter.vsync_interval() != 0;
    const int64_t work_end_ns = finish_gpu(t, step, vsync);
    WaitResult waited{work_end_ns, 0, 0, 0};   // no wait (vsync's is the swap): no CPU
    if (!vsync && !step.resynced) {
        waited = wait_until(step.deadline_ns);
        // Stopped or starved inside the wait: a stall like one before it,
        // re-anchored here so that this frame, not the next, reports it.
        const int64_t late = sat_sub(waited.wake_ns, step.deadline_ns);
        if (late >= resync_after_ns()) {
            grid.anchor(waited.wake_ns, arbiter.pace_hz());
            step = {waited.wake_ns, clamp_count(sat_add(step.missed, ceil_div(late, grid.period_ns()))), true};
        }
    }

    // Taken here, whatever the wait did: a call during the engine's work
    // cuts the next wait, and one during a wait that had no time left
    // still reaches the engine.
    frame.interrupted = interrupt_requested.exchange(false, std::memory_order_relaxed);
    const int64_t aim_ns = locked ? present.aim_of(step.deadline_ns) : -1;
    describe(frame, step, waited, t, work_end_ns, vsync, aim_ns);

    // Vsync's evidence: present intervals where the host marks them, else
    // the wakes (the swap blocks right next to the wait either way).
    if (vsync && index > 0 && !step.resynced) {
        const bool presents = frame.present_ns >= 0 && last_present_ns >= 0;
        arbiter.watch(presents ? sat_sub(frame.present_ns, last_present_ns) : frame.interval_ns, index);
    }
    frame.decision_seq = arbiter.decision().seq;

    if (!frame.interrupted) stats.add(frame);   // a frame cut short says nothing of the pacing
    present.note_wake(index, waited.wake_ns, frame.present_ns, aim_ns, vsync ? frame.predicted_present_ns : -1);
    last_aim_ns = aim_ns;
    last_wake_ns = waited.wake_ns;
    last_deadline_ns = step.deadline_ns;
    if (frame.present_ns >= 0) last_present_ns = frame.present_ns;
    ++index;
    return frame;
}

std::string Pacer::Impl::reconfigure(const Config& next) {
    std::string problem = validate(next);
    if (!problem.empty()) return problem;
    if (next.clock != cfg.clock) return "clock: cannot change after construction";
    const Config old = cfg;
    if (old.stats != next.stats) stats.resize(next.stats.history_frames, next.stats.off_tolerance_ns);
    if (old.host != next.host) {
        arbiter.host_changing(old.host);
        present.forget();
    }
    waiter.reconfigure(next);
    cfg = next;
    present.configure(cfg.display);
    arbiter.reconfigured(old, index);
    if (old.target_hz != next.target_hz) {
        // The grid continues from the last deadline with the new period.
        grid.anchor(index > 0 ? grid.current() : 0, arbiter.pace_hz());
        ceiling_hz = arbiter.limit_hz();
    }
    follow_ceiling(waiter.clock().now_ns());
    return {};
}

Pacer::Impl::Step Pacer::Impl::decide(int64_t t) {
    const int64_t period = grid.period_ns();
    // sleep and vsync follow the wakes (relative: their error accumulates,
    // which is sleep's point; vsync's pacing is the display's); the rest
    // follow the absolute grid.
    const bool relative = arbiter.vsync_interval() != 0 || arbiter.waiter_strategy() == Strategy::Sleep;
    const int64_t next = relative ? sat_add(last_wake_ns, period) : grid.next();
    const int64_t late = sat_sub(t, next);
    if (late >= resync_after_ns()) {
        grid.anchor(t, arbiter.pace_hz());
        return {t, clamp_count(ceil_div(late, period)), true};
    }
    // The clock went back (a hostile or adjusted Clock): the grid lies as
    // far ahead. Re-anchored here as a forward jump is, rather than a wait
    // of the whole jump.
    if (sat_sub(next, t) >= sat_add(resync_after_ns(), period)) {
        grid.anchor(t, arbiter.pace_hz());
        return {t, 0, true};
    }
    if (relative) {
        // No waiting happens for vsync; sleep sleeps what is left, if anything.
        const int32_t missed = late >= period ? clamp_count(late / period) : 0;
        grid.anchor(next, arbiter.pace_hz());
        return {next, missed, false};
    }
    if (late >= period && cfg.miss_policy == MissPolicy::Skip) {
        // Skip every grid point strictly before t; a point at t is on time.
        int64_t skipped = std::max<int64_t>(late / period - 1, 0);
        while (grid.at(sat_add(grid.step(), 1 + skipped)) < t) ++skipped;
        grid.advance(skipped + 1);
        return {grid.current(), clamp_count(skipped), false};
    }
    // On time, slightly late, or catching up: the next grid point.
    grid.advance(1);
    return {grid.current(), 0, false};
}

Pacer::Pacer(const Config& config) : impl_(std::make_unique<Impl>(config)) {}
Pacer::Pacer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Pacer::~Pacer() = default;

std::unique_ptr<Pacer> Pacer::create(const Config& config, std::string* error) {
    std::string problem = validate(config);
    if (error != nullptr) *error = problem;
    if (!problem.empty()) return nullptr;
    // Valid, so neither Impl nor its Waiter throws (short of running out of memory).
    return std::unique_ptr<Pacer>(new Pacer(std::make_unique<Impl>(config)));
}

Frame Pacer::wait() noexcept { return impl_->wait(); }

void Pacer::interrupt() noexcept { impl_->interrupt_requested.store(true, std::memory_order_relaxed); }

void Pacer::mark_present(int64_t present_ns) noexcept {
    const int64_t now = impl_->waiter.clock().now_ns();
    if (present_ns == -1) present_ns = now;
    // Not a time of this clock: ignored, as if none had been marked.
    if (present_ns < 0 || present_ns > sat_add(now, kMaxPresentAheadNs)) return;
    impl_->present_ns = present_ns;
}

std::string Pacer::reconfigure(const Config& config) noexcept { return impl_->reconfigure(config); }

const Config& Pacer::config() const noexcept { return impl_->cfg; }
const Stats& Pacer::stats() const noexcept { return impl_->stats; }
void Pacer::reset_stats() noexcept { impl_->stats.reset(); }
const Decision& Pacer::decision() const noexcept { return impl_->arbiter.decision(); }

WaitStatus Pacer::status() const noexcept {
    WaitStatus status = impl_->waiter.state();
    status.strategy = impl_->arbiter.in_force();
    const bool locked = status.strategy == Strategy::DisplayLock;
    status.display_lead_ns = locked ? impl_->present.lead_ns() : -1;
    const bool learned = locked && impl_->cfg.display.lead_ns == kLeadAuto;
    status.display_work_tail_ns = learned ? impl_->present.lead().tail_ns() : -1;
    status.display_latch_ns = learned ? impl_->present.lead().latch_ns() : -1;
    status.display_pad_ns = learned ? impl_->present.lead().pad_ns() : -1;
    status.display_refreshes = locked ? impl_->arbiter.display_refreshes() : 0;
    status.display_judged = impl_->present.lead().judged();
    status.display_missed = impl_->present.lead().missed();
    const HitchCount& hitches = impl_->present.hitches();
    status.display_hitches = hitches.hitches();
    status.display_refreshes_counted = hitches.refreshes();
    status.display_hitches_per_1000 = hitches.per_1000();
    return status;
}

DisplayClock Pacer::display() const noexcept { return impl_->present.display().clock(); }

Clock& Pacer::clock() noexcept { return impl_->waiter.clock(); }

}  // namespace pacer
