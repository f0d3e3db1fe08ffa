// pacer.cpp: the Pacer. It owns the deadline grid, decides missed frames and
// resyncs, talks to the Host for vsync, and hands each wait to its Waiter.
//
// The rules, for a wait() called at t whose next grid point is `next`:
//   - first wait: the grid is anchored at t; it returns at once (resynced).
//   - t - next >= resync_after_periods periods: a stall. Re-anchor at t, return
//     at once (resynced); missed counts the grid points that went by.
//   - t - next >= one period, Skip: every grid point strictly before t is
//     skipped (missed = their number) and it waits for the first one at or
//     after t. A point exactly at t is on time, not a miss.
//   - t - next >= one period, CatchUp: aim at next anyway (returns at once);
//     the following waits do the same until the grid is ahead of t again.
//   - otherwise: wait until next (at once if it has passed).
//   - a wait that wakes resync_after_periods periods or more after its
//     deadline (the process was stopped, or starved, inside it) is a stall
//     too: the grid is re-anchored at the wake and this frame says so, so the
//     stall is reported on the first frame after it, whatever it hit.
// Times are saturating (saturate.h): a clock or a caller's value near the
// int64 limits clamps at the limit instead of overflowing.
// sleep and vsync are relative: next = previous wake + period. For sleep that
// is the point (its error accumulates); for vsync the swap already blocked, so
// wait() does not wait, and missed counts the whole periods past next. The
// grid is re-anchored at each of their deadlines, so a switch back to an
// absolute strategy continues from the last one.
// reconfigure() applies at the next wait; a rate change re-anchors the grid
// at the last deadline with the new period, so index and grid continue.
//
// Vsync and auto (the rules are in pacer.h, at Strategy::Auto): the pacer
// keeps a window of the last 32 present intervals while the swap paces, and
// classifies each against the vsync period n / refresh: fast (under half: the
// swap did not block), slow (over 1.5 times: a refresh was missed) or fine.
// Auto probes before it trusts vsync and leaves it when either kind reaches a
// quarter of the window, or when the window's median is off the period by as
// much as a failed probe's; an explicit vsync stays but says so. Every change of
// what paces, or why, becomes a new Decision.
//
// Where the Host reports what the display showed (take_presented, drained at
// each wait), a DisplayModel fits the real refresh (display_clock.h). Auto
// then decides on the fitted refresh, re-decides when it moves, and its probe
// trusts vsync only on shown frames that keep cadence; vsync's dt and every
// predicted present come from the fit; and the delay bias slides the timer's
// grid onto the display's phase. docs/design.md has the rules and bounds.
#include "display_clock.h"
#include "grid.h"
#include "internal.h"
#include "saturate.h"
#include "waiter.h"

#include <pacer/platform.h>
#include <pacer/stats.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>

namespace pacer {

namespace {

constexpr double kAutoRateTolerance = 0.005;     // auto: target within 0.5 % of refresh / n
constexpr int kProbeFrames = 8;                  // intervals measured before vsync is trusted
constexpr double kProbeTolerance = 0.25;         // probe median within 25 % of the vsync period
constexpr int kWatchWindow = 32;                 // intervals watched while on vsync
constexpr int kWatchTrip = 8;                    // fast or slow ones in the window that count
constexpr int kWatchClear = 2;                   // at or under this, explicit vsync is fine again
constexpr double kFastFraction = 0.5;            // under half the vsync period: did not block
constexpr double kSlowFraction = 1.5;            // over 1.5 periods: a refresh was missed
constexpr int64_t kFirstBackoffNs = 2'000'000'000;    // auto re-probes after 2 s ...
constexpr int64_t kMaxBackoffNs = 64'000'000'000;     // ... doubling up to 64 s
constexpr int64_t kRefreshPollNs = 1'000'000'000;     // the refresh rate is read once a second
constexpr int kMaxReportsPerWait = 256;          // take_presented calls per wait, against a runaway host
constexpr int kFrameMemory = 64;                 // wakes kept to match reports to their frames
constexpr int kLatencyWindow = 16;               // refreshes from wake to shown behind the present prediction
constexpr int kLatencyMin = 2;                   // ... needed before they are used
constexpr int kCadenceWindow = 32;               // displayed frames judged for cadence under vsync
constexpr int kDisplayProbeFrames = 240;         // a probe waits this long for the display to lock
constexpr double kBiasSlew = 0.02;               // delay bias: grid moved by at most 2 % of a period per frame
constexpr int64_t kMaxPresentAheadNs = 1'000'000'000;   // mark_present: later is not a time of this clock
constexpr double kPi = 3.14159265358979323846;
constexpr double kMinRefreshHz = 1;                   // a host's refresh outside this range, or
constexpr double kMaxRefreshHz = 10'000;              // not finite, is taken as unknown (0)

std::string ms(double ns) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f ms", ns * 1e-6);
    return buffer;
}

std::string hz_text(double hz) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g Hz", hz);
    return buffer;
}

// A fitted rate: to 0.1 Hz, trailing zeros dropped ("59.9 Hz", "60 Hz"); a
// fit's last digits are noise.
std::string hz_rounded(double hz) { return hz_text(std::round(hz * 10) / 10); }

std::string seconds(int64_t ns) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g s", static_cast<double>(ns) * 1e-9);
    return buffer;
}

}  // namespace

using detail::sat_add;
using detail::sat_mul;
using detail::sat_sub;

struct Pacer::Impl {
    explicit Impl(const Config& config)
        : waiter(config), cfg(config), stats(cfg.stats.history_frames, cfg.stats.off_tolerance_ns) {
        grid.anchor(0, cfg.target_hz);
        if (cfg.host != nullptr) refresh_hz = read_refresh_hz();
        next_refresh_poll_ns = sat_add(waiter.clock().now_ns(), kRefreshPollNs);
        choose("");
    }

    // The host's refresh rate, 0 (unknown) for one no display has.
    double read_refresh_hz() const {
        const double hz = cfg.host->refresh_rate_hz();
        return hz >= kMinRefreshHz && hz <= kMaxRefreshHz ? hz : 0.0;
    }

    ~Impl() {
        // Leave the swap interval as we found it (off) rather than at our n.
        if (vsync_interval != 0) cfg.host->set_swap_interval(0);
    }

    // ---- choosing what paces -------------------------------------------

    bool wants_host() const {
        return cfg.host != nullptr && (cfg.strategy == Strategy::Vsync || cfg.strategy == Strategy::Auto);
    }

    // The refresh period: the display's fitted one when it was locked at the
    // last decision, else the stated one, else the target's.
    double refresh_unit_ns() const {
        if (shown_hz > 0) return 1e9 / shown_hz;
        return refresh_hz > 0 ? 1e9 / refresh_hz : 1e9 / cfg.target_hz;
    }
    // The vsync period of interval n.
    double vsync_period_ns() const { return refresh_unit_ns() * std::max(vsync_interval, 1); }

    // Asks the host for `wanted` (0: off). Returns whether vsync now paces at it.
    bool set_interval(int wanted) {
        if (wanted == vsync_interval) return wanted != 0;
        if (wanted != 0 && cfg.host->set_swap_interval(wanted)) {
            vsync_interval = wanted;
            return true;
        }
        // Leaving vsync, or the host refused a new interval: make sure the
        // swap no longer blocks, since the waiter now does the pacing.
        if (vsync_interval != 0) cfg.host->set_swap_interval(0);
        vsync_interval = 0;
        return false;
    }

    void start_watch(bool probe) {
        probing = probe;
        watch_count = 0;
        watch_next = 0;
        skip_samples = 1;   // the first interval straddles the switch
        health = Health::Fine;
        cadence_count = cadence_next = 0;
        vsync_since_index = index;   // reports of frames built before now say nothing of vsync
        probe_started_index = index;
    }

    // Re-evaluates from scratch: after construction, a strategy, rate or
    // refresh change, or when auto's retry time has come. `why` prefixes the
    // reason (e.g. the refresh change that caused it).
    void choose(const std::string& why) {
        shown_hz = 0;
        waiter.set_strategy(cfg.strategy);
        waiter_strategy = waiter.state().strategy;
        next_probe_ns = -1;
        std::string reason;
        const char* asked = strategy_name(cfg.strategy);
        if (cfg.strategy == Strategy::Vsync) {
            if (cfg.host == nullptr) {
                set_interval(0);
                reason = std::string("vsync -> ") + strategy_name(waiter_strategy) + ": no host to set the swap interval";
            } else {
                const long n = refresh_hz > 0 ? std::lround(refresh_hz / cfg.target_hz) : 0;
                const int wanted = n >= 1 ? static_cast<int>(n) : 1;   // every refresh when unknown
                if (set_interval(wanted)) {
                    start_watch(false);
                    reason = "vsync: swap interval " + std::to_string(wanted) +
                             (refresh_hz > 0 ? " at " + hz_text(refresh_hz) : std::string(" (refresh rate unknown)"));
                } else {
                    reason = "vsync -> timer: swap interval " + std::to_string(wanted) + " refused";
                }
            }
        } else if (cfg.strategy == Strategy::Auto) {
            // The display's own clock, once locked, outranks what the host states.
            shown_hz = display_model.locked() ? 1e9 / display_model.period_ns() : 0;
            const double hz = shown_hz > 0 ? shown_hz : refresh_hz;
            const bool lies = shown_hz > 0 && !(std::fabs(shown_hz - refresh_hz) <= kAutoRateTolerance * shown_hz);
            const std::string says = lies ? "display says " + hz_text(refresh_hz) + " but shows frames every " +
                                                ms(1e9 / shown_hz)
                                          : std::string();
            decided_hz = hz;
            if (cfg.host == nullptr) {
                set_interval(0);
                reason = "auto -> timer: no host to set the swap interval";
            } else if (!(hz > 0)) {
                set_interval(0);
                reason = "auto -> timer: refresh rate unknown";
            } else {
                const long n = std::lround(hz / cfg.target_hz);
                const bool fits = n >= 1 && std::fabs(hz / static_cast<double>(n) - cfg.target_hz) <=
                                                kAutoRateTolerance * cfg.target_hz;
                if (!fits) {
                    set_interval(0);
                    reason = "auto -> timer: " + (lies ? says : hz_text(cfg.target_hz) + " is not " + hz_text(hz) + " / n");
                } else if (set_interval(static_cast<int>(n))) {
                    start_watch(true);
                    reason = "auto -> vsync (probing): " + (lies ? says + ", " : std::string()) + hz_rounded(hz) +
                             " / " + std::to_string(n) + ", measuring presents";
                } else {
                    reason = "auto -> timer: swap interval " + std::to_string(n) + " refused";
                }
            }
        } else {
            set_interval(0);
            reason = std::string(asked) + ": asked for";
        }
        if (vsync_interval == 0 && waiter_strategy == Strategy::Timer && waiter.state().timer_fell_back)
            reason += " (no high-resolution timer: robust_sleep)";
        if (vsync_interval == 0) probing = false;
        record(why.empty() ? reason : why + ": " + reason);
    }

    Strategy strategy_in_force() const { return vsync_interval != 0 ? Strategy::Vsync : waiter_strategy; }

    // Makes a new Decision when anything about it changed.
    void record(const std::string& reason) {
        const Strategy in_force = strategy_in_force();
        if (decision.seq > 0 && decision.reason == reason && decision.in_force == in_force &&
            decision.swap_interval == vsync_interval && decision.probing == probing &&
            decision.requested == cfg.strategy)
            return;
        decision.seq += 1;
        decision.at_ns = waiter.clock().now_ns();
        decision.requested = cfg.strategy;
        decision.in_force = in_force;
        decision.swap_interval = vsync_interval;
        decision.probing = probing;
        decision.reason = reason;
    }

    // ---- watching vsync ---------------------------------------------------

    enum class Health { Fine, Fast, Slow, OffRate };

    // One present interval while the swap paces.
    void watch(int64_t interval_ns) {
        if (skip_samples > 0) {
            --skip_samples;
            return;
        }
        watch_ring[watch_next] = interval_ns;
        watch_next = (watch_next + 1) % kWatchWindow;
        watch_count = std::min(watch_count + 1, kWatchWindow);

        const double period = vsync_period_ns();
        if (probing) {
            if (watch_count < kProbeFrames) return;
            const int64_t median = median_of_last(kProbeFrames);
            const double m = static_cast<double>(median);
            // Where the display reports what it showed, only a swap that did
            // not block is judged by swap returns; the rest by the display.
            if (feedback_seen && m >= (1 - kProbeTolerance) * period) {
                judge_display_probe();
                return;
            }
            if (std::fabs(m - period) <= kProbeTolerance * period) {
                probing = false;
                watch_count = 0;   // watching starts afresh on confirmed vsync
                watch_next = 0;
                record("auto -> vsync: presents every " + ms(m) + " (" + hz_rounded(decided_hz) + " / " +
                       std::to_string(vsync_interval) + ")");
            } else if (m < period) {
                leave_vsync("vsync requested, swaps return every " + ms(m));
            } else {
                leave_vsync("vsync presents every " + ms(m) + ", not " + ms(period));
            }
            return;
        }

        int fast = 0, slow = 0;
        for (int i = 0; i < watch_count; ++i) {
            const double x = static_cast<double>(watch_ring[i]);
            if (x < kFastFraction * period) ++fast;
            if (x > kSlowFraction * period) ++slow;
        }
        // The probe's rule over the whole window: swaps that block, but at
        // another rate than the stated refresh implies (a display whose change
        // the host does not report, e.g. SDL2 on Wayland going 60 -> 144 Hz,
        // whose swaps then return every 7-10 ms: neither fast nor slow above).
        const int64_t median = watch_count == kWatchWindow ? median_of_last(watch_count) : 0;
        const bool off_rate = median > 0 && std::fabs(static_cast<double>(median) - period) > kProbeTolerance * period;
        // A display change explains all three: re-read the refresh before
        // blaming vsync (the regular read may be up to a second away).
        if ((fast >= kWatchTrip || slow >= kWatchTrip || off_rate) && refresh_changed()) return;
        // The texts below are built only when a reason is recorded, not every frame.
        const auto of = [&] { return " of the last " + std::to_string(watch_count); };
        // What the fast ones say: the typical time between swaps that did not block.
        const auto fast_median = [&] {
            return ms(static_cast<double>(median_where([&](double x) { return x < kFastFraction * period; })));
        };
        const auto off_rate_text = [&] {
            return "every " + ms(static_cast<double>(median)) + " (median" + of() + "), not " + ms(period);
        };
        if (cfg.strategy == Strategy::Auto) {
            if (fast >= kWatchTrip)
                leave_vsync("swaps return every " + fast_median() + " (" + std::to_string(fast) + of() +
                            " under half the vsync period)");
            else if (slow >= kWatchTrip)
                leave_vsync("vsync missed refreshes in " + std::to_string(slow) + of() + " frames");
            else if (off_rate)
                leave_vsync("swaps return " + off_rate_text());
            return;
        }
        // Explicit vsync stays (the user asked for it) but says what it sees,
        // with hysteresis: it turns fine again only when nearly all are.
        Health now = health;
        if (fast >= kWatchTrip) now = Health::Fast;
        else if (slow >= kWatchTrip) now = Health::Slow;
        else if (off_rate) now = Health::OffRate;
        else if (fast <= kWatchClear && slow <= kWatchClear &&
                 std::fabs(static_cast<double>(median) - period) <= 0.5 * kProbeTolerance * period)
            now = Health::Fine;
        if (now == health) return;
        health = now;
        const std::string head = "vsync: swap interval " + std::to_string(vsync_interval) + ", ";
        if (now == Health::Fast)
            record(head + "but swaps return every " + fast_median() + " (not blocking)");
        else if (now == Health::Slow)
            record(head + "but missed refreshes in " + std::to_string(slow) + of() + " frames");
        else if (now == Health::OffRate)
            record(head + "but swaps return " + off_rate_text());
        else
            record(head + "presents every " + ms(static_cast<double>(median_of_last(watch_count))));
    }

    // The median of the watched intervals that pass `keep`.
    template <typename Keep>
    int64_t median_where(Keep keep) const {
        std::array<int64_t, kWatchWindow> kept{};
        int n = 0;
        for (int i = 0; i < watch_count; ++i)
            if (keep(static_cast<double>(watch_ring[i]))) kept[n++] = watch_ring[i];
        if (n == 0) return 0;
        std::nth_element(kept.begin(), kept.begin() + n / 2, kept.begin() + n);
        return kept[n / 2];
    }

    int64_t median_of_last(int count) const {
        std::array<int64_t, kWatchWindow> last{};
        for (int i = 0; i < count; ++i) last[i] = watch_ring[(watch_next + kWatchWindow - 1 - i) % kWatchWindow];
        std::nth_element(last.begin(), last.begin() + count / 2, last.begin() + count);
        return last[count / 2];
    }

    // ---- the display's own account (Host::take_presented) ----------------

    // Drains the host's reports into the display model, the frame's newest
    // shown frame, the wake-to-shown times and, under vsync, the cadence.
    void take_presented(Frame& frame) {
        frame.displayed_index = -1;
        frame.displayed_ns = -1;
        if (cfg.host == nullptr) return;
        Presented report;
        for (int taken = 0; taken < kMaxReportsPerWait && cfg.host->take_presented(&report); ++taken) {
            display_model.add(report, refresh_hz);
            const bool ours = report.frame_index > vsync_since_index + 1 && report.frame_index < index;
            // Discards alone (sway 1.7 sends nothing else) say nothing of cadence.
            if (report.discarded) {
                if (vsync_interval != 0 && ours && feedback_seen) judge_cadence(false);
                continue;
            }
            if (report.displayed_ns < 0) continue;
            feedback_seen = true;   // the host tells when frames were shown
            frame.displayed_index = report.frame_index;
            frame.displayed_ns = report.displayed_ns;
            const int64_t fi = report.frame_index;
            if (fi >= 0 && fi < index && fi >= index - kFrameMemory) {
                const auto& wake = wakes[static_cast<size_t>(fi % kFrameMemory)];
                if (wake.index == fi && report.displayed_ns >= wake.wake_ns) {
                    latency_ring[static_cast<size_t>(latency_next)] = {wake.wake_ns, wake.present_ns, report.displayed_ns};
                    latency_next = (latency_next + 1) % kLatencyWindow;
                    latency_count = std::min(latency_count + 1, kLatencyWindow);
                }
            }
            const double unit = display_model.period_ns();
            if (vsync_interval != 0 && ours && fi == last_shown_index + 1 && unit > 0) {
                const double steps = std::round(static_cast<double>(report.displayed_ns - last_shown_ns) / unit);
                judge_cadence(steps == vsync_interval);
            }
            last_shown_index = fi;
            last_shown_ns = report.displayed_ns;
        }
    }

    // One displayed (or discarded) frame under vsync: n refreshes after the
    // previous one, or not. Auto leaves vsync when a quarter of the window is off.
    void judge_cadence(bool on_cadence) {
        cadence_ring[static_cast<size_t>(cadence_next)] = on_cadence ? 0 : 1;
        cadence_next = (cadence_next + 1) % kCadenceWindow;
        cadence_count = std::min(cadence_count + 1, kCadenceWindow);
        if (probing || cfg.strategy != Strategy::Auto || cadence_count < kCadenceWindow) return;
        const int off = cadence_off();
        if (off >= kWatchTrip)
            leave_vsync("displayed frames off cadence in " + std::to_string(off) + " of the last " +
                        std::to_string(cadence_count) + " (not " + std::to_string(vsync_interval) +
                        " refresh" + (vsync_interval == 1 ? "" : "es") + " apart)");
    }

    int cadence_off() const {
        int off = 0;
        for (int i = 0; i < cadence_count; ++i) off += cadence_ring[static_cast<size_t>(i)];
        return off;
    }

    // Auto's probe where the display reports: vsync is trusted once the
    // display clock is locked, n of its periods make the target's, and the
    // shown frames keep that cadence.
    void judge_display_probe() {
        if (!display_model.locked() || cadence_count < kProbeFrames) {
            if (index - probe_started_index >= kDisplayProbeFrames)
                leave_vsync("vsync requested, the display reports no steady refresh in " +
                            std::to_string(index - probe_started_index) + " frames");
            return;
        }
        const double shown = display_model.period_ns() * vsync_interval;
        const double target = 1e9 / cfg.target_hz;
        if (std::fabs(shown - target) > kAutoRateTolerance * target) {
            leave_vsync("display shows frames every " + ms(shown) + ", not " + ms(target));
            return;
        }
        const int off = cadence_off();
        if (off * 4 > cadence_count) {
            leave_vsync("displayed frames off cadence in " + std::to_string(off) + " of " +
                        std::to_string(cadence_count));
            return;
        }
        probing = false;
        watch_count = watch_next = 0;
        record("auto -> vsync: display shows frames every " + ms(shown) + " (" +
               hz_rounded(1e9 / display_model.period_ns()) + " / " + std::to_string(vsync_interval) + ")");
    }

    // Auto re-decides when the display's fitted refresh departs from the one
    // its decision rests on (a lying stated rate, a mode change).
    void check_display() {
        if (cfg.strategy != Strategy::Auto || cfg.host == nullptr || !display_model.locked()) return;
        const double hz = 1e9 / display_model.period_ns();
        if (decided_hz > 0 && std::fabs(hz - decided_hz) <= kAutoRateTolerance * decided_hz) return;
        backoff_ns = kFirstBackoffNs;
        choose(decided_hz > 0 ? "display refresh " + hz_rounded(decided_hz) + " -> " + hz_rounded(hz) : std::string());
    }

    // Delay bias: while a waiter paces at refresh / n and the display clock
    // is locked, the grid takes the fitted period and slides, at most
    // kBiasSlew of a period per frame, until each deadline falls
    // display.phase_lead_ns before a refresh.
    void bias_grid() {
        const double unit = display_model.period_ns();
        const double target = 1e9 / cfg.target_hz;
        const long n = unit > 0 ? std::lround(target / unit) : 0;
        const bool wanted = cfg.display.phase_lead_ns >= 0 && vsync_interval == 0 &&
                            waiter_strategy != Strategy::Sleep && display_model.locked() && n >= 1 &&
                            std::fabs(static_cast<double>(n) * unit - target) <= kAutoRateTolerance * target;
        if (!wanted) {
            if (biased) grid.anchor(grid.current(), cfg.target_hz);   // back to the target's own period
            biased = false;
            return;
        }
        const double step = static_cast<double>(n) * unit;
        const int64_t lead = cfg.display.phase_lead_ns;
        const int64_t next = grid.current() + std::llround(step);
        const int64_t error = next - (display_model.nearest_refresh(next + lead) - lead);
        const int64_t slew = std::llround(kBiasSlew * step);
        grid.anchor(grid.current() - std::clamp<int64_t>(error, -slew, slew), 1e9 / step);
        biased = true;
    }

    // Auto gives up on vsync for now: timer, and a retry after the backoff.
    void leave_vsync(const std::string& why) {
        set_interval(0);
        probing = false;
        const int64_t now = waiter.clock().now_ns();
        next_probe_ns = sat_add(now, backoff_ns);
        std::string reason = "auto -> timer: " + why + "; retry in " + seconds(backoff_ns);
        if (waiter_strategy == Strategy::Timer && waiter.state().timer_fell_back)
            reason += " (no high-resolution timer: robust_sleep)";
        backoff_ns = std::min(backoff_ns * 2, kMaxBackoffNs);
        record(reason);
    }

    // Reads the refresh rate; when it changed, starts over from it.
    bool refresh_changed() {
        next_refresh_poll_ns = sat_add(waiter.clock().now_ns(), kRefreshPollNs);
        const double now_hz = read_refresh_hz();
        if (now_hz == refresh_hz) return false;
        const std::string why = "refresh " + hz_text(refresh_hz) + " -> " + hz_text(now_hz);
        refresh_hz = now_hz;
        // The display changed: its old fit no longer holds (a new one locks
        // from the reports that follow).
        display_model.reset();
        backoff_ns = kFirstBackoffNs;
        choose(why);
        return true;
    }

    // Before each wait: a changed refresh rate, or auto's retry time.
    void check_host(int64_t t) {
        if (!wants_host()) return;
        if (t >= next_refresh_poll_ns && refresh_changed()) return;
        if (next_probe_ns >= 0 && t >= next_probe_ns) choose("retry");
    }

    // ---- the grid ------------------------------------------------------------

    // The deadline for a wait called at t, with missed grid points and resync.
    struct Step {
        int64_t deadline_ns;
        int32_t missed;
        bool resynced;
    };

    Step decide(int64_t t) {
        const int64_t period = grid.period_ns();
        // sleep and vsync follow the wakes (relative: their error accumulates,
        // which is sleep's point; vsync's pacing is the display's); the rest
        // follow the absolute grid.
        const bool relative = vsync_interval != 0 || waiter_strategy == Strategy::Sleep;
        const int64_t next = relative ? sat_add(last_wake_ns, period) : grid.next();
        const int64_t late = sat_sub(t, next);
        if (late >= resync_after_ns()) {
            grid.anchor(t, cfg.target_hz);
            return {t, clamp_count(ceil_div(late, period)), true};
        }
        if (relative) {
            // No waiting happens for vsync; sleep sleeps what is left, if anything.
            const int32_t missed = late >= period ? clamp_count(late / period) : 0;
            grid.anchor(next, cfg.target_hz);
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

    // Late by this much (or more) is a stall.
    int64_t resync_after_ns() const { return sat_mul(cfg.resync_after_periods, grid.period_ns()); }

    static int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : a / b + (a % b != 0 ? 1 : 0); }
    static int32_t clamp_count(int64_t n) { return static_cast<int32_t>(std::min<int64_t>(n, INT32_MAX)); }

    // ---- the engine's clock ----------------------------------------------------

    int64_t dt_for(const Frame& frame, bool vsync) const {
        int64_t dt = 0;
        if (frame.index == 0) {
            dt = grid.period_ns();
        } else if (vsync) {
            // Snap to whole refresh periods: the display shows frames only on
            // them. The fitted period where the display reports, else the stated.
            const double unit = display_model.locked() ? display_model.period_ns() : refresh_unit_ns();
            const double periods = std::max(1.0, std::round(static_cast<double>(frame.interval_ns) / unit));
            dt = detail::sat_from_double(std::round(std::min(periods * unit, static_cast<double>(cfg.max_dt_ns))));
        } else if (frame.resynced || waiter_strategy == Strategy::Sleep) {
            dt = frame.interval_ns;
        } else {
            dt = sat_sub(frame.deadline_ns, last_deadline_ns);
        }
        return std::clamp<int64_t>(dt, 0, cfg.max_dt_ns);
    }

    // The refresh a frame's present is counted from: the one the swap before
    // its wake returned in, where there was one, else the first after the
    // wake. A blocking swap returns at a steady phase of a refresh (weston
    // answers when it repaints, about 0.4 of a refresh after it), so a wake
    // that runs late does not move the anchor; the return is rounded around
    // that phase, since rounded to the nearest refresh a return a few ms late
    // on a busy machine lands on the next one.
    int64_t refresh_anchor(int64_t wake_ns, int64_t present_ns, int64_t return_phase_ns) const {
        return present_ns >= 0 ? display_model.nearest_refresh(sat_sub(present_ns, return_phase_ns))
                               : display_model.next_refresh(wake_ns);
    }

    // Where in its refresh a swap returns: the circular mean of the recent
    // shown frames' returns (a phase either side of the half-refresh wraps
    // instead of averaging to the middle).
    int64_t swap_return_phase_ns() const {
        const double period = display_model.period_ns();
        double sin_sum = 0, cos_sum = 0;
        for (int back = 1; back <= latency_count; ++back) {
            const Shown& s = shown_back(back);
            if (s.present_ns < 0) continue;
            const double angle = 2 * kPi * static_cast<double>(s.present_ns - display_model.nearest_refresh(s.present_ns)) / period;
            sin_sum += std::sin(angle);
            cos_sum += std::cos(angle);
        }
        if (sin_sum == 0 && cos_sum == 0) return 0;
        return std::llround(std::atan2(sin_sum, cos_sum) / (2 * kPi) * period);
    }

    int64_t predict_present(const Frame& frame, bool vsync) const {
        // From the display's first estimate on, not only once it locks: its
        // fallbacks below know nothing of a compositor's queue, which on
        // weston holds a frame three refreshes (Pacer::display().locked says
        // when the fit is trusted for decisions).
        if (display_model.period_ns() > 0 && latency_count >= kLatencyMin) {
            // The display's clock: the frame's anchor refresh plus the number
            // of refreshes recent frames took from theirs to the screen: the
            // newest two's where they agree (a compositor queue that grew or
            // shrank is followed within two reports), else the most common
            // (on a tie the newest), so one odd frame moves nothing. Whole
            // refreshes, not a time: where a wake falls within its refresh
            // then cannot round the prediction into a neighbour.
            // Counted with the current fit, so that reports from before the
            // first estimate count too.
            const double period = display_model.period_ns();
            const int64_t phase = swap_return_phase_ns();
            std::array<int64_t, kLatencyWindow> refreshes{};
            for (int back = 1; back <= latency_count; ++back) {
                const Shown& s = shown_back(back);
                refreshes[static_cast<size_t>(back - 1)] =
                    std::llround(static_cast<double>(s.shown_ns - refresh_anchor(s.wake_ns, s.present_ns, phase)) / period);
            }
            int64_t best = refreshes[0];
            if (refreshes[0] != refreshes[1]) {
                int best_count = 0;
                for (int i = 0; i < latency_count; ++i) {   // newest first: a tie keeps the newest
                    const int count = static_cast<int>(std::count(refreshes.begin(), refreshes.begin() + latency_count, refreshes[static_cast<size_t>(i)]));
                    if (count > best_count) best = refreshes[static_cast<size_t>(i)], best_count = count;
                }
            }
            return refresh_anchor(frame.wake_ns, frame.present_ns, phase) + std::llround(static_cast<double>(best) * display_model.period_ns());
        }
        if (vsync) {
            const int64_t period = detail::sat_from_double(std::round(vsync_period_ns()));
            // After this frame's swap, one vsync period: the swap that shows
            // it waits for the refresh after the one the last present took.
            if (frame.present_ns >= 0)
                return sat_add(frame.present_ns, sat_mul(cfg.wait_point == WaitPoint::BeforePresent ? 2 : 1, period));
            return sat_add(frame.wake_ns, period);
        }
        if (cfg.wait_point == WaitPoint::BeforePresent) {
            // The swap right after this wake shows the previous frame; the one
            // being built goes out after the next wait.
            const bool relative = waiter_strategy == Strategy::Sleep;
            return relative || frame.resynced ? sat_add(frame.wake_ns, grid.period_ns()) : grid.next();
        }
        return sat_add(frame.wake_ns, build_ns);
    }

    Frame wait() {
        Clock& clock = waiter.clock();
        const int64_t t = clock.now_ns();
        Frame frame{};
        take_presented(frame);
        if (index > 0) {
            check_display();
            check_host(t);
        }

        frame.index = index;
        frame.present_ns = present_ns;
        present_ns = -1;
        // FrameStart: the last frame's wake-to-present is the next one's estimate.
        if (frame.present_ns >= 0 && index > 0 && frame.present_ns >= last_wake_ns)
            build_ns = sat_sub(frame.present_ns, last_wake_ns);

        Step step{t, 0, true};
        if (index == 0) {
            grid.anchor(t, cfg.target_hz);   // the first frame anchors the grid at now
        } else {
            bias_grid();
            step = decide(t);
        }

        const bool vsync = vsync_interval != 0;
        WaitResult waited{t, 0, 0, 0};   // no wait (vsync's is the swap): no CPU
        if (!vsync && !step.resynced) {
            waited = waiter.wait_until(step.deadline_ns);
            // Stopped or starved inside the wait: a stall like one before it,
            // re-anchored here so that this frame, not the next, reports it.
            const int64_t late = sat_sub(waited.wake_ns, step.deadline_ns);
            if (late >= resync_after_ns()) {
                grid.anchor(waited.wake_ns, cfg.target_hz);
                step = {waited.wake_ns, clamp_count(sat_add(step.missed, ceil_div(late, grid.period_ns()))), true};
            }
        }

        frame.deadline_ns = step.deadline_ns;
        frame.wake_ns = waited.wake_ns;
        frame.lateness_ns = sat_sub(waited.wake_ns, step.deadline_ns);
        frame.interval_ns = index == 0 ? 0 : sat_sub(waited.wake_ns, last_wake_ns);
        frame.period_ns = grid.period_ns();
        frame.work_ns = index == 0 ? 0 : sat_sub(t, last_wake_ns);
        frame.slept_ns = waited.slept_ns;
        frame.spun_ns = waited.spun_ns;
        frame.wait_cpu_ns = waited.cpu_ns;
        frame.missed = step.missed;
        frame.resynced = step.resynced;
        frame.strategy = strategy_in_force();
        frame.dt_ns = dt_for(frame, vsync);
        frame.predicted_present_ns = predict_present(frame, vsync);
        // Only the timer watches contention; other strategies' frames say nothing.
        frame.contended = !vsync && waiter_strategy == Strategy::Timer && waiter.state().contended;

        // Vsync's evidence: present intervals where the host marks them, else
        // the wakes (the swap blocks right next to the wait either way).
        if (vsync && index > 0 && !step.resynced) {
            const bool presents = frame.present_ns >= 0 && last_present_ns >= 0;
            watch(presents ? sat_sub(frame.present_ns, last_present_ns) : frame.interval_ns);
        }
        frame.decision_seq = decision.seq;

        stats.add(frame);
        wakes[static_cast<size_t>(index % kFrameMemory)] = {index, waited.wake_ns, frame.present_ns};
        last_wake_ns = waited.wake_ns;
        last_deadline_ns = step.deadline_ns;
        if (frame.present_ns >= 0) last_present_ns = frame.present_ns;
        ++index;
        return frame;
    }

    // ---- live changes ------------------------------------------------------

    std::string reconfigure(const Config& next) {
        std::string problem = validate(next);
        if (!problem.empty()) return problem;
        if (next.clock != cfg.clock) return "clock: cannot change after construction";
        const Config old = cfg;
        if (old.stats.history_frames != next.stats.history_frames ||
            old.stats.off_tolerance_ns != next.stats.off_tolerance_ns)
            stats.resize(next.stats.history_frames, next.stats.off_tolerance_ns);
        const bool host_changed = old.host != next.host;
        // The old host's swap is left as found (off) before the new one is asked.
        if (host_changed && vsync_interval != 0) old.host->set_swap_interval(0);
        if (host_changed) {
            vsync_interval = 0;
            forget_display();
        }
        waiter.reconfigure(next);
        cfg = next;
        const bool rate_changed = old.target_hz != next.target_hz;
        const bool strategy_changed = old.strategy != next.strategy;
        if (rate_changed) {
            // The grid continues from the last deadline with the new period.
            grid.anchor(index > 0 ? grid.current() : 0, next.target_hz);
        }
        // The refresh is read only while vsync or auto is in force: read it afresh.
        if ((host_changed || strategy_changed) && wants_host()) {
            refresh_hz = read_refresh_hz();
            next_refresh_poll_ns = sat_add(waiter.clock().now_ns(), kRefreshPollNs);
        }
        const bool waiter_paces = cfg.strategy != Strategy::Vsync && cfg.strategy != Strategy::Auto;
        const bool sleeper_changed = old.sleeper != next.sleeper || old.wait.timer_slack_ns != next.wait.timer_slack_ns ||
                                     old.wait.sched_slice_ns != next.wait.sched_slice_ns ||
                                     old.scheduler_period_ns != next.scheduler_period_ns;
        if (rate_changed || strategy_changed || host_changed) {
            backoff_ns = kFirstBackoffNs;
            choose("");
        } else if (sleeper_changed && waiter_paces) {
            choose("");   // the timer's fallback may have changed; auto is not re-probed
        }
        return {};
    }

    // A new host is a new display: nothing learnt from the old one holds.
    void forget_display() {
        display_model.reset();
        feedback_seen = false;
        latency_count = latency_next = 0;
        cadence_count = cadence_next = 0;
        last_shown_index = last_shown_ns = -1;
        decided_hz = 0;
    }

    Waiter waiter;
    Config cfg;
    Stats stats;
    detail::Grid grid;
    Strategy waiter_strategy = Strategy::Timer;   // the waiter's resolved strategy, cached
    int vsync_interval = 0;   // the swap interval the host accepted; 0: not pacing by vsync
    int64_t index = 0;
    int64_t last_wake_ns = 0;
    int64_t last_deadline_ns = 0;
    int64_t present_ns = -1;        // marked since the last wait
    int64_t last_present_ns = -1;   // the last one a wait saw
    int64_t build_ns = 0;           // last wake-to-present time (FrameStart's prediction)

    // vsync and auto
    Decision decision{};
    double refresh_hz = 0;
    int64_t next_refresh_poll_ns = 0;
    int64_t next_probe_ns = -1;     // auto: when to try vsync again (-1: only on a change)
    int64_t backoff_ns = kFirstBackoffNs;
    bool probing = false;
    Health health = Health::Fine;   // explicit vsync: what the last reason said
    std::array<int64_t, kWatchWindow> watch_ring{};
    int watch_count = 0, watch_next = 0, skip_samples = 0;

    // the display (Host::take_presented)
    detail::DisplayModel display_model;
    bool feedback_seen = false;     // the host has reported a shown frame
    double decided_hz = 0;          // auto: the refresh its decision rests on (0 none)
    double shown_hz = 0;            // auto: the fitted refresh it used, 0 when the stated one
    struct Wake {
        int64_t index = -1, wake_ns = 0;
        int64_t present_ns = -1;   // the swap return before the wake (Frame::present_ns)
    };
    std::array<Wake, kFrameMemory> wakes{};           // by index % kFrameMemory
    struct Shown {
        int64_t wake_ns, present_ns, shown_ns;   // a frame's wake, the swap return before it, when shown
    };
    std::array<Shown, kLatencyWindow> latency_ring{};   // the newest shown frames of ours
    int latency_count = 0, latency_next = 0;
    const Shown& shown_back(int back) const {   // the back-th newest (1: the newest)
        return latency_ring[static_cast<size_t>((latency_next - back + kLatencyWindow) % kLatencyWindow)];
    }
    std::array<uint8_t, kCadenceWindow> cadence_ring{};   // 1: off cadence
    int cadence_count = 0, cadence_next = 0;
    int64_t vsync_since_index = 0;     // the frame index when vsync (re)started
    int64_t probe_started_index = 0;
    int64_t last_shown_index = -1, last_shown_ns = -1;
    bool biased = false;               // the grid follows the display (delay bias)
};

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
const Decision& Pacer::decision() const noexcept { return impl_->decision; }

WaitStatus Pacer::status() const noexcept {
    WaitStatus status = impl_->waiter.state();
    status.strategy = impl_->strategy_in_force();
    return status;
}

DisplayClock Pacer::display() const noexcept { return impl_->display_model.clock(); }

Clock& Pacer::clock() noexcept { return impl_->waiter.clock(); }

}  // namespace pacer
