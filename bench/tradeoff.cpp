// tradeoff.cpp: experiment 6, the precise-sleep trade-off (see tradeoff.h).
#include "tradeoff.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <thread>

#include "contention.h"
#include "machine_load.h"
#include "os.h"
#include "peers.h"
#include "plain_waits.h"
#include "waiter.h"

#include <pacer/metrics.h>
#include <pacer/platform.h>
#include <pacer/status.h>
#include <pacer/units.h>

namespace bench {

const char* const kTradeoffColumns =
    "condition,hz,variant,kind,margin_us,round,frames,cpu_pct,wake_p50_us,wake_p99_us,"
    "wake_max_us,off_pct,missed,final_margin_us,contended_pct,other_cpu_pct,steal_pct,load1,spin_stall_pct,"
    "sleep_cpu_us";

namespace {

// The wait settings every timer variant runs with: the library's defaults,
// written out so the fixed margins keep them if the defaults move.
constexpr int64_t kWaitSlackNs = 1;
constexpr int64_t kWaitSliceNs = 100'000;
constexpr double kOffToleranceUs = 500;   // an interval off by more than this counts as off
constexpr double kQuietPct = 2;           // other programs' CPU, % of a core, that counts as a quiet machine
constexpr double kPreciseUs = 10;         // "precise": wake p99 at most this late
constexpr double kSdl3OffSlackPts = 0.2;  // contended: the timer's off % within this many points of SDL3's

// ---------------------------------------------------------------------------
// The variants: one way of waiting for an absolute deadline each
// ---------------------------------------------------------------------------

// One variant made for one run (fresh state, its own sleeper on this thread).
class Waiting {
public:
    virtual ~Waiting() = default;
    // Waits until deadline_ns on pacer::OsClock's time base.
    virtual void wait_until(int64_t deadline_ns) = 0;
    virtual double margin_us() const { return -1; }   // an adaptive margin, where there is one
    virtual bool contended() const { return false; }
    virtual double spin_stall_pct() const { return -1; }   // the library timer's WaitStatus figure
    virtual double sleep_cpu_us() const { return -1; }     // likewise, its sleep's own CPU a wait
    virtual std::string describe() const { return {}; }   // the OS waits in force, where ours
};

// The library's timer strategy, through pacer::Waiter (the wait a Pacer makes).
class LibraryTimer final : public Waiting {
public:
    explicit LibraryTimer(const pacer::Config& config) : waiter_(config) {}
    void wait_until(int64_t deadline_ns) override { waiter_.wait_until(deadline_ns); }
    double margin_us() const override { return static_cast<double>(waiter_.state().timer_margin_ns) / 1e3; }
    bool contended() const override { return waiter_.state().contended; }
    double spin_stall_pct() const override { return 100 * waiter_.state().timer_spin_stall_share; }
    double sleep_cpu_us() const override {
        const int64_t ns = waiter_.state().timer_sleep_cpu_ns;
        return ns < 0 ? -1 : static_cast<double>(ns) / 1e3;
    }

private:
    pacer::Waiter waiter_;
};

pacer::OsSleeper::Options wait_settings() {
    pacer::OsSleeper::Options options{};
    options.wait_timer_slack_ns = kWaitSlackNs;
    options.wait_sched_slice_ns = kWaitSliceNs;
    return options;
}

// The timer with a fixed margin: an absolute wait on the OsSleeper's
// high-resolution timer to deadline - margin, then a pause spin. Margin 0 is
// the same timer wait to the deadline itself, with our wait settings.
class FixedMargin final : public Waiting {
public:
    explicit FixedMargin(int64_t margin_ns) : margin_ns_(margin_ns), sleeper_(wait_settings()) {}
    void wait_until(int64_t deadline_ns) override {
        if (deadline_ns - clock_.now_ns() > margin_ns_) sleeper_.sleep_until_ns(deadline_ns - margin_ns_);
        while (clock_.now_ns() < deadline_ns) sleeper_.pause();
    }
    std::string describe() const override { return sleeper_.describe(); }

private:
    int64_t margin_ns_;
    pacer::OsClock clock_;
    pacer::OsSleeper sleeper_;
};

// Spin: never sleeps. Its wake lateness is the floor the machine allows.
class Spin final : public Waiting {
public:
    void wait_until(int64_t deadline_ns) override {
        while (clock_.now_ns() < deadline_ns) sleeper_.pause();
    }

private:
    pacer::OsClock clock_;
    pacer::OsSleeper sleeper_;
};

// The peers (peers.h), each with the thread's own timer slack and slice, as
// their users get them, and the OS's waits as their sources make them:
// relative sleeps through std::this_thread::sleep_for (a nanosleep, retried
// when interrupted, as SDL's SDL_SYS_DelayNS is on Unix), pause through the
// CPU's pause instruction (SDL_CPUPauseInstruction, YieldProcessor).
void os_sleep_for(int64_t ns) { std::this_thread::sleep_for(std::chrono::nanoseconds(ns)); }

// The Linux nanosleep-versus-busy-wait seed: one plain absolute wait.
class PlainAbsolute final : public Waiting {
public:
    void wait_until(int64_t deadline_ns) override { peers::plain_absolute_sleep(deadline_ns, plain_sleep_until_ns); }
};

// std::chrono's steady clock at an OsClock time (the two may count from
// different origins; the offset is read once per run).
class SteadyMap {
public:
    SteadyMap() : offset_ns_(steady_ns() - pacer::os::now_ns()) {}
    std::chrono::steady_clock::time_point at(int64_t os_ns) const {
        return std::chrono::steady_clock::time_point(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::nanoseconds(os_ns + offset_ns_)));
    }

private:
    static int64_t steady_ns() {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }
    int64_t offset_ns_;
};

// The "every 5 ms" seed: the standard library's sleep_until, then yield.
class SeedSleepThenYield final : public Waiting {
public:
    void wait_until(int64_t deadline_ns) override {
        peers::sleep_until_then_yield(
            deadline_ns, pacer::os::now_ns, [this](int64_t at) { std::this_thread::sleep_until(map_.at(at)); },
            [] { std::this_thread::yield(); });
    }

private:
    SteadyMap map_;
};

// SDL3's SDL_DelayPrecise, aimed at each grid deadline; its state is per call.
class Sdl3DelayPrecise final : public Waiting {
public:
    void wait_until(int64_t deadline_ns) override {
        peers::sdl3_delay_precise(deadline_ns, pacer::os::now_ns, os_sleep_for, pacer::os::cpu_pause);
    }
};

// The 2020 article's preciseSleep; its estimate lasts the run, as the
// source's statics last the program.
class PreciseSleep2020 final : public Waiting {
public:
    void wait_until(int64_t deadline_ns) override {
        precise_.wait_until(deadline_ns, pacer::os::now_ns, os_sleep_for, [] {});
    }

private:
    peers::PreciseSleep2020 precise_;
};

// The 2021 article's robustSleep (1 ms period, 0.02 ms tolerance).
class RobustSleep2021 final : public Waiting {
public:
    void wait_until(int64_t deadline_ns) override {
        peers::robust_sleep_2021(deadline_ns, pacer::os::now_ns, os_sleep_for, pacer::os::cpu_pause);
    }
};

struct Variant {
    std::string key;        // the CSV's name
    std::string kind;       // adaptive, fixed, floor, seed, peer, candidate
    int64_t margin_ns;      // fixed margins; -1 otherwise
    std::string label;      // the table's
    std::function<std::unique_ptr<Waiting>(double hz)> make;   // null: not on this OS
};

pacer::Config timer_config(double hz) {
    pacer::Config config{};
    config.strategy = pacer::Strategy::Timer;
    config.target_hz = hz;
    config.tuning.wait.timer_slack_ns = kWaitSlackNs;
    config.tuning.wait.sched_slice_ns = kWaitSliceNs;
    return config;
}

// A candidate estimator: the library's timer with other margin settings.
Variant candidate(const std::string& key, const std::string& label,
                  std::function<void(pacer::Config&)> change) {
    return {key, "candidate", -1, label, [change](double hz) -> std::unique_ptr<Waiting> {
                pacer::Config config = timer_config(hz);
                change(config);
                return std::make_unique<LibraryTimer>(config);
            }};
}

std::vector<Variant> make_variants(bool candidates) {
    std::vector<Variant> v;
    v.push_back({"timer", "adaptive", -1, "timer (adaptive, the library's)", [](double hz) {
                     return std::unique_ptr<Waiting>(std::make_unique<LibraryTimer>(timer_config(hz)));
                 }});
    for (int64_t us : {0, 25, 50, 100, 200, 400}) {
        v.push_back({"fixed_" + std::to_string(us), "fixed", us * 1000,
                     "fixed margin " + std::to_string(us) + " µs", [us](double) {
                         return std::unique_ptr<Waiting>(std::make_unique<FixedMargin>(us * 1000));
                     }});
    }
    v.push_back({"spin", "floor", -1, "spin (floor)",
                 [](double) { return std::unique_ptr<Waiting>(std::make_unique<Spin>()); }});
    v.push_back({"plain_abs", "seed", -1, "plain clock_nanosleep(ABSTIME)",
                 plain_sleep_available() ? std::function<std::unique_ptr<Waiting>(double)>([](double) {
                     return std::unique_ptr<Waiting>(std::make_unique<PlainAbsolute>());
                 })
                                         : nullptr});
    v.push_back({"seed_5ms", "seed", -1, "sleep_until(d − 100 µs) + yield", [](double) {
                     return std::unique_ptr<Waiting>(std::make_unique<SeedSleepThenYield>());
                 }});
    v.push_back({"sdl3", "peer", -1, "SDL3 SDL_DelayPrecise", [](double) {
                     return std::unique_ptr<Waiting>(std::make_unique<Sdl3DelayPrecise>());
                 }});
    v.push_back({"precise_2020", "seed", -1, "preciseSleep (2020 article)", [](double) {
                     return std::unique_ptr<Waiting>(std::make_unique<PreciseSleep2020>());
                 }});
    v.push_back({"robust_2021", "seed", -1, "robustSleep (2021 article)", [](double) {
                     return std::unique_ptr<Waiting>(std::make_unique<RobustSleep2021>());
                 }});
    if (candidates) {
        // The library's timer with one setting changed; the labels say which.
        v.push_back(candidate("cand_p95", "timer, p95 + 5 µs, window 128 (the old estimator)",
                              [](pacer::Config& c) {
                                  c.tuning.timer.margin_quantile = 0.95;
                                  c.tuning.timer.margin_headroom = 1;
                                  c.tuning.timer.margin_window = 128;
                              }));
        v.push_back(candidate("cand_w128", "timer, window 128",
                              [](pacer::Config& c) { c.tuning.timer.margin_window = 128; }));
        v.push_back(candidate("cand_q999", "timer, quantile 0.999",
                              [](pacer::Config& c) { c.tuning.timer.margin_quantile = 0.999; }));
        v.push_back(candidate("cand_budget150", "timer, wait CPU budget min(150 µs, 1.5 %)", [](pacer::Config& c) {
            c.tuning.timer.max_wait_cpu_ns = 150'000;
            c.tuning.timer.max_wait_cpu_pct = 1.5;
        }));
        v.push_back(candidate("cand_no_runqueue_sign", "timer, no run-queue sign of contention",
                              [](pacer::Config& c) { c.tuning.timer.contention_wait_ns = 1'000'000'000; }));
        v.push_back(candidate("cand_one_sleep", "timer, one sleep to the margin (no short last sleep)",
                              [](pacer::Config& c) { c.tuning.timer.last_sleep_ns = 0; }));
        v.push_back(candidate("cand_last_1ms", "timer, last sleep 1 ms",
                              [](pacer::Config& c) { c.tuning.timer.last_sleep_ns = 1'000'000; }));
        v.push_back(candidate("cand_pct16", "timer, wait CPU budget min(140 µs, 1.6 %) (the old one)",
                              [](pacer::Config& c) { c.tuning.timer.max_wait_cpu_pct = 1.6; }));
        v.push_back(candidate("cand_own_waits", "timer, the thread's own slack and slice", [](pacer::Config& c) {
            c.tuning.wait.timer_slack_ns = -1;
            c.tuning.wait.sched_slice_ns = -1;
        }));
    }
    return v;
}

// ---------------------------------------------------------------------------
// Measuring one run
// ---------------------------------------------------------------------------

struct RunResult {
    bool ran = false;
    int frames = 0;
    double cpu_pct = -1;   // the waiting thread's CPU time / wall time, % of one core
    double p50_us = 0, p99_us = 0, max_us = 0;   // wake lateness (early counts as 0)
    double off_pct = 0;    // % of intervals off the period by more than kOffToleranceUs
    int off = 0, intervals = 0;   // the same as counts
    int missed = 0;        // grid points skipped (a wake later than the next deadline)
    double margin_us = -1;
    double spin_stall_pct = -1;
    double sleep_cpu_us = -1;
    double contended_pct = 0;
    double other_pct = -1, steal_pct = -1;
    std::vector<double> lateness_us;   // every frame's, for the pooled p99
};

// Waits on an absolute grid of `hz` from now: warm-up frames for warmup_s
// (unmeasured: adaptive state settles), then `frames` measured frames. A wake
// past the next grid point skips to the first one ahead (the Pacer's Skip).
RunResult run_grid(Waiting& waiting, double hz, double warmup_s, int frames, int64_t work_ns) {
    pacer::OsClock clock;
    const double period_ns = 1e9 / hz;
    const int64_t origin_ns = clock.now_ns();
    int64_t k = 0;
    auto deadline_of = [&](int64_t index) { return origin_ns + std::llround(static_cast<double>(index) * period_ns); };
    // The next grid point after the last one, skipping those already past.
    auto next_deadline = [&](int* skipped) {
        ++k;
        const int64_t now = clock.now_ns();
        while (deadline_of(k) <= now) {
            ++k;
            ++*skipped;
        }
        return deadline_of(k);
    };
    int ignored = 0;
    const int64_t warmup_end = origin_ns + static_cast<int64_t>(warmup_s * 1e9);
    // A frame's work after its wake (wall time, like a frame's deadline-bound
    // work under load); its CPU is kept out of the wait's.
    int64_t work_cpu_ns = 0;
    auto work = [&] {
        if (work_ns <= 0) return;
        const int64_t before = clock.thread_cpu_ns();
        burn_cpu_for(clock, work_ns);
        const int64_t after = clock.thread_cpu_ns();
        if (before >= 0 && after >= before) work_cpu_ns += after - before;
    };
    while (clock.now_ns() < warmup_end) {
        waiting.wait_until(next_deadline(&ignored));
        work();
    }
    work_cpu_ns = 0;

    RunResult r;
    r.ran = true;
    std::vector<double>& lateness_us = r.lateness_us;
    std::vector<double> interval_us;
    lateness_us.reserve(static_cast<std::size_t>(frames));
    int contended = 0, off = 0;
    const CpuTicks ticks0 = read_cpu_ticks();
    const int64_t cpu0 = clock.thread_cpu_ns();
    const int64_t wall0 = clock.now_ns();
    int64_t previous_wake = -1;
    for (int i = 0; i < frames; ++i) {
        const int64_t deadline = next_deadline(&r.missed);
        waiting.wait_until(deadline);
        const int64_t wake = clock.now_ns();
        lateness_us.push_back(static_cast<double>(std::max<int64_t>(wake - deadline, 0)) / 1e3);
        if (previous_wake >= 0) {
            const double interval = static_cast<double>(wake - previous_wake);
            off += std::fabs(interval - period_ns) > kOffToleranceUs * 1e3;
            interval_us.push_back(interval / 1e3);
        }
        previous_wake = wake;
        contended += waiting.contended();
        work();
    }
    const int64_t cpu1 = clock.thread_cpu_ns();
    const int64_t wall1 = clock.now_ns();
    const CpuTicks ticks1 = read_cpu_ticks();
    r.frames = frames;
    if (cpu0 >= 0 && cpu1 >= 0 && wall1 > wall0)
        r.cpu_pct =
            100.0 * static_cast<double>(cpu1 - cpu0 - work_cpu_ns) / static_cast<double>(wall1 - wall0);
    const pacer::Percentiles p = pacer::percentiles(lateness_us);
    r.p50_us = p.p50_us;
    r.p99_us = p.p99_us;
    r.max_us = p.max_us;
    r.off_pct = interval_us.empty() ? 0 : 100.0 * off / static_cast<double>(interval_us.size());
    r.off = off;
    r.intervals = static_cast<int>(interval_us.size());
    r.margin_us = waiting.margin_us();
    r.spin_stall_pct = waiting.spin_stall_pct();
    r.sleep_cpu_us = waiting.sleep_cpu_us();
    r.contended_pct = 100.0 * contended / frames;
    r.other_pct = other_cpu_pct(ticks0, ticks1);
    r.steal_pct = steal_pct(ticks0, ticks1);
    return r;
}

// ---------------------------------------------------------------------------
// Cells, pooled figures and verdicts
// ---------------------------------------------------------------------------

struct Cell {
    std::string condition;   // idle, contention, partial, loaded
    double hz;
};

// A "loaded" frame works after each wake beside one busy thread per CPU, as
// the accuracy experiment's "loaded" does: what an engine's frame meets,
// where the other conditions measure the wait alone.
int64_t frame_work_ns(const Cell& cell) { return cell.condition == "loaded" ? loaded_work_ns(cell.hz) : 0; }

double median(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// One variant's figures in one round, or pooled over the rounds.
struct Point {
    bool ran = false;
    double cpu = 0, p99 = 0, off = 0;
};

Point point_of(const RunResult& r) { return {r.ran, r.cpu_pct, r.p99_us, r.off_pct}; }

// The rounds pooled: the CPU's median over the rounds (a run's CPU is one
// figure), the p99 of every round's wakes together and the off % of every
// round's intervals together, so a cell's p99 and off % rest on all its frames.
Point pooled_point(const std::vector<RunResult>& runs) {
    std::vector<double> cpu, late;
    int off = 0, intervals = 0;
    for (const RunResult& r : runs) {
        if (!r.ran) continue;
        cpu.push_back(r.cpu_pct);
        late.insert(late.end(), r.lateness_us.begin(), r.lateness_us.end());
        off += r.off;
        intervals += r.intervals;
    }
    if (cpu.empty()) return {};
    return {true, median(cpu), pacer::percentiles(late).p99_us,
            intervals > 0 ? 100.0 * off / intervals : 0.0};
}

// The CPU budget of "precise sleep": 1 % of a core at 60 Hz, 2 % at 144 Hz.
double cpu_budget_pct(double hz) { return hz <= 60 ? 1.0 : 2.0; }

struct Verdict {
    std::string name;
    bool pass = true;
    std::string detail;
};

std::string us(double value) { return fixed(value, value < 10 ? 1 : 0) + " µs"; }
std::string pct(double value) { return fixed(value, 2) + " %"; }

// A variant's point, when it ran (points[v] follows `variants`).
const Point* point_named(const char* key, const std::vector<Variant>& variants, const std::vector<Point>& points) {
    for (std::size_t v = 0; v < variants.size(); ++v)
        if (variants[v].key == key && points[v].ran) return &points[v];
    return nullptr;
}
const Point* plain_point(const std::vector<Variant>& variants, const std::vector<Point>& points) {
    return point_named("plain_abs", variants, points);
}

// The off % verdict's bound: max(0.5 %, the plain absolute sleep's off %).
double off_bound(const Point* plain) { return std::max(0.5, plain ? plain->off : 0.5); }

// The verdicts of one cell, from one set of points (one round, or the rounds pooled).
// points[v] follows `variants`; timer is index 0.
std::vector<Verdict> judge(const Cell& cell, const std::vector<Variant>& variants,
                           const std::vector<Point>& points) {
    std::vector<Verdict> out;
    const Point& t = points[0];
    if (cell.condition == "idle") {
        Verdict beaten{"idle, not beaten", true, ""};
        for (std::size_t v = 0; v < variants.size(); ++v) {
            if (variants[v].kind != "fixed" || !points[v].ran) continue;
            const Point& f = points[v];
            if (f.cpu <= 0.8 * t.cpu && f.p99 <= 0.8 * t.p99) {
                beaten.pass = false;
                beaten.detail += variants[v].key + " (" + pct(f.cpu) + ", " + us(f.p99) + ") beats it; ";
            }
        }
        if (beaten.pass) beaten.detail = "no fixed margin is 20 % better on both";
        out.push_back(beaten);

        Verdict reach{"idle, in reach", true, ""};
        const double budget = cpu_budget_pct(cell.hz);
        std::string reached;
        for (std::size_t v = 0; v < variants.size(); ++v) {
            const Point& f = points[v];
            if (variants[v].kind == "fixed" && f.ran && f.cpu <= budget && f.p99 <= kPreciseUs)
                reached += (reached.empty() ? "" : ", ") + variants[v].key;
        }
        const bool timer_reaches = t.cpu <= budget && t.p99 <= kPreciseUs;
        if (reached.empty()) {
            reach.detail = "no fixed margin within " + fixed(budget, 0) + " % reaches p99 ≤ 10 µs";
        } else {
            reach.pass = timer_reaches;
            reach.detail = reached + " reach p99 ≤ 10 µs within " + fixed(budget, 0) + " %; timer " +
                           (timer_reaches ? "too" : "does not");
        }
        reach.detail += " (timer " + pct(t.cpu) + ", " + us(t.p99) + ")";
        out.push_back(reach);
    } else {
        Verdict off{cell.condition == "partial"  ? "partial load, off %"
                    : cell.condition == "loaded" ? "loaded, off %"
                                                 : "contention, off %",
                    true, ""};
        const Point* plain = plain_point(variants, points);
        off.pass = t.off <= off_bound(plain);
        off.detail = "timer " + pct(t.off) + " ≤ max(0.5 %, plain " +
                     (plain ? pct(plain->off) : std::string("n/a")) + ")";
        out.push_back(off);
    }
    // Beside SDL3's SDL_DelayPrecise: idle, no later at no more CPU; loaded
    // or contended, within kSdl3OffSlackPts of its off %.
    const Point* sdl3 = point_named("sdl3", variants, points);
    if (sdl3 == nullptr) return out;
    if (cell.condition == "idle") {
        Verdict versus{"idle, vs SDL3", t.p99 <= sdl3->p99 && t.cpu <= sdl3->cpu, ""};
        versus.detail = "timer " + pct(t.cpu) + ", " + us(t.p99) + "; SDL3 " + pct(sdl3->cpu) + ", " + us(sdl3->p99);
        out.push_back(versus);
    } else {
        Verdict versus{cell.condition + ", off % vs SDL3", t.off <= sdl3->off + kSdl3OffSlackPts, ""};
        versus.detail = "timer " + pct(t.off) + " ≤ SDL3 " + pct(sdl3->off) + " + " + fixed(kSdl3OffSlackPts, 1);
        out.push_back(versus);
    }
    return out;
}

// For an off % cell: each variant's off intervals summed over the rounds, and
// which of the other waits meet the timer's bound pooled. An off %
// turns on a few late wakes (each puts two intervals off), so this says
// whether the timer differs from the rest or the cell is that close.
std::string off_context(const std::vector<Variant>& variants, const std::vector<std::vector<RunResult>>& runs,
                        const std::vector<Point>& pooled) {
    const double bound = off_bound(plain_point(variants, pooled));
    std::string counts, meeting;
    int others = 0, met = 0, intervals = 0;
    for (std::size_t v = 0; v < variants.size(); ++v) {
        if (!pooled[v].ran) continue;
        int off = 0;
        intervals = 0;
        for (const RunResult& r : runs[v]) {
            off += r.off;
            intervals += r.intervals;
        }
        counts += (counts.empty() ? "" : ", ") + variants[v].key + " " + std::to_string(off);
        const std::string& kind = variants[v].kind;
        if (v == 0 || variants[v].key == "plain_abs" || kind == "floor" || kind == "candidate") continue;
        ++others;
        if (pooled[v].off <= bound) {
            ++met;
            meeting += (meeting.empty() ? "" : ", ") + variants[v].key;
        }
    }
    return "Intervals off, summed over the rounds (of " + std::to_string(intervals) + " each): " + counts +
           ". Of the " + std::to_string(others) + " other sleeping waits, " + std::to_string(met) +
           " meet the timer's bound (≤ " + pct(bound) + ") pooled" +
           (meeting.empty() ? "" : ": " + meeting) + ".\n";
}

// "0.42×" (timer / peer); "–" when the peer's figure is 0.
std::string ratio(double timer, double peer) {
    if (peer <= 0) return timer <= 0 ? "1×" : "–";
    return fixed(timer / peer, timer / peer < 10 ? 2 : 0) + "×";
}

std::string csv_or_empty(double value, int decimals) {
    return value < 0 ? std::string() : fixed(value, decimals);
}

void progress(const std::string& what) { std::cerr << "[tradeoff] " << what << std::endl; }

// The busy threads of a condition: one per CPU ("contention", "loaded"), one
// fewer than the CPUs, at least one ("partial"), none ("idle").
std::unique_ptr<Contention> start_busy_threads(const std::string& condition) {
    const int cpus = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    int threads = 0;
    if (condition == "contention" || condition == "loaded") threads = cpus;
    if (condition == "partial") threads = std::max(1, cpus - 1);
    if (threads == 0) return nullptr;
    auto load = std::make_unique<Contention>(threads);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return load;
}

std::string first_word(const std::string& text) { return text.substr(0, text.find(' ')); }

// The variants asked for (--variants), the library's timer first.
std::vector<Variant> selected_variants(const Options& options) {
    std::vector<Variant> variants = make_variants(options.tradeoff_candidates);
    if (options.tradeoff_variants.empty()) return variants;
    // timer stays first: every verdict is about it (main.cpp insists on it).
    const std::vector<std::string>& keep = options.tradeoff_variants;
    variants.erase(std::remove_if(variants.begin(), variants.end(),
                                  [&](const Variant& v) { return std::find(keep.begin(), keep.end(), v.key) == keep.end(); }),
                   variants.end());
    return variants;
}

// The cells asked for (--conditions, --hz); "loaded" only when named, since
// the verdict cells are the others.
std::vector<Cell> selected_cells(const Options& options) {
    std::vector<Cell> cells;
    for (const Cell& cell : std::vector<Cell>{{"idle", 60},        {"idle", 144},       {"idle", 240},
                                              {"contention", 60},  {"contention", 144}, {"contention", 240},
                                              {"partial", 60},     {"partial", 144},    {"partial", 240},
                                              {"loaded", 60},      {"loaded", 144},     {"loaded", 240}}) {
        const std::vector<std::string>& conditions = options.tradeoff_conditions;
        const bool condition_ok = conditions.empty() ? cell.condition != "loaded"
                                                     : std::find(conditions.begin(), conditions.end(),
                                                                 cell.condition) != conditions.end();
        const std::vector<double>& rates = options.tradeoff_hz;
        const bool hz_ok = rates.empty() || std::find(rates.begin(), rates.end(), cell.hz) != rates.end();
        if (condition_ok && hz_ok) cells.push_back(cell);
    }
    return cells;
}

// What the report says first: how the runs are made and judged, and the
// settings the library's timer waits with.
void print_intro(const Options& options) {
    const int rounds = options.tradeoff_rounds;
    const double run_s = options.tradeoff_run_s;
    const double warmup_s = options.tradeoff_warmup_s;
    const int cpus = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    std::cout << "\n## 6. Trade-off: precise sleep against fixed margins, the seeds and SDL3\n\n"
              << "Every variant waits on the same absolute frame grid, in " << rounds
              << " interleaved rounds per cell (each round runs every variant once, in an order "
                 "rotated by one per round, so a slow drift in the machine's noise reaches every "
                 "variant alike). A run: " << fixed(warmup_s, 2)
              << " s unmeasured warm-up, then " << fixed(run_s, 2)
              << " s of measured frames (the frame count is the rate times that). The timer "
                 "variants wait with slack " << kWaitSlackNs << " ns and slice "
              << kWaitSliceNs / 1000
              << " µs; the seeds and SDL3 with the thread's own settings, as their users get "
                 "them. Conditions: idle; contention = one busy thread per CPU (" << cpus
              << "); partial = one busy thread fewer than the CPUs (" << std::max(1, cpus - 1)
              << "); loaded (only when named) = contention, and a quarter of the period of CPU "
                 "work after each wake, every variant alike. CPU = the waiting thread's CPU time "
                 "outside that work / wall time, % of one core; p99 = wake "
                 "lateness p99 (early counts as 0); off = % of intervals off the period by more "
                 "than 0.5 ms. Per cell: the rounds pooled (CPU: the median of the rounds; p99 and off: "
                 "over every round's frames together), then each round's figures. "
                 "others = other programs' CPU during the round (% of one core, the busy threads "
                 "excluded); steal = the host's, % of one core summed over CPUs; load = the 1-minute "
                 "load average when the round started.\n";

    {
        // What the timer waits really ran with (the slice needs Linux >= 6.12).
        FixedMargin probe(0);
        pacer::OsClock clock;
        probe.wait_until(clock.now_ns() + 1'000'000);
        std::cout << "\nThe timer variants' OS waits, as the sleeper reports them after one wait: "
                  << probe.describe() << ".\n";
        const pacer::Config d = pacer::Config{};
        std::cout << "The library's timer: margin = " << fixed(d.tuning.timer.margin_headroom, 2) << " × the "
                  << fixed(d.tuning.timer.margin_quantile, 3) << " quantile of the last " << d.tuning.timer.margin_window
                  << " wakes' lateness + " << d.tuning.timer.margin_pad_ns / 1000
                  << " µs, its spin within a wait CPU budget of min(" << d.tuning.timer.max_wait_cpu_ns / 1000 << " µs, "
                  << fixed(d.tuning.timer.max_wait_cpu_pct, 1)
                  << " % of the period) a frame less the sleep's own measured CPU; a calm wait's last sleep "
                  << d.tuning.timer.last_sleep_ns / 1000 << " µs; no spin while contended (a "
                     "sign at every wait for "
                  << pacer::detail::kContentionOnsetNs / 1'000'000
                  << " ms: more runnable threads than CPUs, or a run-queue wait ≥ "
                  << d.tuning.timer.contention_wait_ns / 1000 << " µs in a frame; calm after "
                  << pacer::detail::kContentionCalmNs / 1'000'000 << " ms without).\n";
    }
}

// Waits (at most --settle-s) for other programs to quiet down, and says so.
// The first measured run of a bench often met other programs still busy
// from the build or the last command (docs/precision.md).
void settle(const Options& options) {
    const Settled settled = settle_machine(options.tradeoff_settle_s, kQuietPct);
    std::cout << "Before the first cell: " << fixed(settled.waited_s, 1) << " s for other programs to use under "
              << fixed(kQuietPct, 0) << " % of a core over a second ("
              << (settled.other_pct < 0 ? std::string("unknown here")
                                        : "the last second: " + fixed(settled.other_pct, 1) + " %")
              << (settled.quiet || settled.other_pct < 0 ? "" : "; not reached, went on") << ").\n";
}

struct CellResult {
    Cell cell;
    int frames = 0;                             // measured a run: the rate times --run-s
    std::vector<std::vector<RunResult>> runs;   // [variant][round]
    std::vector<std::string> round_load;        // per round
    std::vector<double> round_other, round_steal;
    std::vector<Point> pooled;                  // [variant]: the rounds pooled (pooled_point)
};

// Runs every variant of one cell in interleaved rounds (each round in an
// order rotated by one), beside the cell's busy threads.
CellResult measure_cell(const Cell& cell, const std::vector<Variant>& variants, const Options& options) {
    const int rounds = options.tradeoff_rounds;
    const std::unique_ptr<Contention> load = start_busy_threads(cell.condition);
    const int frames = std::max(10, static_cast<int>(std::lround(options.tradeoff_run_s * cell.hz)));
    CellResult res{cell, frames,
                   std::vector<std::vector<RunResult>>(variants.size(), std::vector<RunResult>(rounds)), {}, {}, {}, {}};
    for (int round = 0; round < rounds; ++round) {
        progress(cell.condition + " " + pacer::number_text(cell.hz) + " Hz, round " + std::to_string(round + 1) + "/" +
                 std::to_string(rounds));
        res.round_load.push_back(first_word(load_average()));
        std::vector<double> other, steal;
        for (std::size_t k = 0; k < variants.size(); ++k) {
            const std::size_t v = (static_cast<std::size_t>(round) + k) % variants.size();
            if (!variants[v].make) continue;
            // Made and destroyed here, on this thread: a held slice is put back.
            std::unique_ptr<Waiting> waiting = variants[v].make(cell.hz);
            res.runs[v][round] = run_grid(*waiting, cell.hz, options.tradeoff_warmup_s, frames, frame_work_ns(cell));
            other.push_back(res.runs[v][round].other_pct);
            steal.push_back(res.runs[v][round].steal_pct);
        }
        res.round_other.push_back(median(other));
        res.round_steal.push_back(median(steal));
    }
    for (const std::vector<RunResult>& runs : res.runs) res.pooled.push_back(pooled_point(runs));
    return res;
}

// The cell's table (the rounds pooled, then each round's p99 and CPU) and
// its CSV rows.
void print_cell_table(const CellResult& res, const std::vector<Variant>& variants, int rounds,
                                    CsvFile& csv) {
    const Cell& cell = res.cell;
    const int frames = res.frames;
    // The cell's table: the rounds pooled, then each round's p99 and CPU.
    std::cout << "\n### Trade-off: " << cell.condition << ", " << pacer::number_text(cell.hz) << " Hz (period "
              << fixed(1e3 / cell.hz, 3) << " ms, " << frames << " frames a run)\n\nRounds: ";
    for (int round = 0; round < rounds; ++round)
        std::cout << (round ? "; " : "") << "r" << round + 1 << " load " << res.round_load[round]
                  << ", others " << fixed(res.round_other[round], 0, true) << " %, steal "
                  << fixed(res.round_steal[round], 0, true) << " %";
    std::cout << ".\n\n";
    Table table({"variant", "CPU %", "wake p99 µs", "off %", "p50 µs", "max µs", "missed",
                 "p99 by round", "CPU % by round", "off % by round", "note"},
                {0, 7, 8, 9, 10});
    for (std::size_t v = 0; v < variants.size(); ++v) {
        const std::vector<RunResult>& runs = res.runs[v];
        const Point& m = res.pooled[v];
        if (!m.ran) {
            table.add_row({variants[v].label, "–", "–", "–", "–", "–", "–", "", "", "", "not on this OS"});
            continue;
        }
        std::string p99s, cpus_text, offs, note;
        std::vector<double> p50, mx, margins, stalls, sleep_cpus, contended;
        int missed = 0;
        for (const RunResult& r : runs) {
            p99s += (p99s.empty() ? "" : " / ") + fixed(r.p99_us, 1);
            cpus_text += (cpus_text.empty() ? "" : " / ") + fixed(r.cpu_pct, 2);
            offs += (offs.empty() ? "" : " / ") + fixed(r.off_pct, 1);
            p50.push_back(r.p50_us);
            mx.push_back(r.max_us);
            margins.push_back(r.margin_us);
            stalls.push_back(r.spin_stall_pct);
            sleep_cpus.push_back(r.sleep_cpu_us);
            contended.push_back(r.contended_pct);
            missed += r.missed;
        }
        if (runs[0].margin_us >= 0)
            note = "margin " + fixed(median(margins), 0) + " µs, contended " + fixed(median(contended), 0) + " %";
        if (runs[0].spin_stall_pct >= 0) note += ", spin stalls " + fixed(median(stalls), 1) + " %";
        if (runs[0].sleep_cpu_us >= 0) note += ", sleep CPU " + fixed(median(sleep_cpus), 0) + " µs";
        table.add_row({variants[v].label, fixed(m.cpu, 2), fixed(m.p99, 1), fixed(m.off, 2),
                       fixed(median(p50), 1), fixed(*std::max_element(mx.begin(), mx.end()), 0),
                       std::to_string(missed), p99s, cpus_text, offs, note});
        for (int round = 0; round < rounds; ++round) {
            const RunResult& r = runs[round];
            if (!csv.is_open()) break;
            csv.add_row({cell.condition, pacer::number_text(cell.hz), variants[v].key, variants[v].kind,
                         variants[v].margin_ns >= 0 ? std::to_string(variants[v].margin_ns / 1000) : "",
                         std::to_string(round + 1), std::to_string(r.frames), csv_or_empty(r.cpu_pct, 3),
                         fixed(r.p50_us, 3), fixed(r.p99_us, 3), fixed(r.max_us, 3), fixed(r.off_pct, 3),
                         std::to_string(r.missed), csv_or_empty(r.margin_us, 1), fixed(r.contended_pct, 1),
                         csv_or_empty(r.other_pct, 1), csv_or_empty(r.steal_pct, 1), res.round_load[round],
                         csv_or_empty(r.spin_stall_pct, 2), csv_or_empty(r.sleep_cpu_us, 1)});
        }
        if (csv.is_open()) {
            csv.add_row({cell.condition, pacer::number_text(cell.hz), variants[v].key, variants[v].kind,
                         variants[v].margin_ns >= 0 ? std::to_string(variants[v].margin_ns / 1000) : "",
                         "pooled", std::to_string(runs[0].frames), fixed(m.cpu, 3), fixed(median(p50), 3),
                         fixed(m.p99, 3), fixed(*std::max_element(mx.begin(), mx.end()), 3),
                         fixed(m.off, 3), std::to_string(missed),
                         runs[0].margin_us >= 0 ? fixed(median(margins), 1) : "", fixed(median(contended), 1),
                         fixed(median(res.round_other), 1), fixed(median(res.round_steal), 1), "",
                         runs[0].spin_stall_pct >= 0 ? fixed(median(stalls), 2) : "",
                         runs[0].sleep_cpu_us >= 0 ? fixed(median(sleep_cpus), 1) : ""});
        }
    }
    table.print(std::cout);
}

// The cell's verdicts: the rounds pooled, and each round on its own.
void print_cell_verdicts(const CellResult& res, const std::vector<Variant>& variants, int rounds) {
    const Cell& cell = res.cell;
    const std::vector<Point>& pooled = res.pooled;
    // Verdicts: the rounds pooled, and each round on its own.
    std::cout << "\nVerdicts (the rounds pooled; then each round):\n\n";
    const std::vector<Verdict> verdicts = judge(cell, variants, pooled);
    std::vector<std::vector<Verdict>> by_round;
    for (int round = 0; round < rounds; ++round) {
        std::vector<Point> points;
        for (std::size_t v = 0; v < variants.size(); ++v) points.push_back(point_of(res.runs[v][round]));
        by_round.push_back(judge(cell, variants, points));
    }
    Table vt({"verdict", "pooled", "detail", "by round"}, {0, 1, 2, 3});
    for (std::size_t i = 0; i < verdicts.size(); ++i) {
        std::string rounds_text;
        for (int round = 0; round < rounds; ++round)
            rounds_text += (round ? " " : "") + std::string(by_round[round][i].pass ? "pass" : "FAIL");
        vt.add_row({verdicts[i].name, verdicts[i].pass ? "pass" : "FAIL", verdicts[i].detail, rounds_text});
    }
    vt.print(std::cout);
    for (int round = 0; round < rounds; ++round)
        for (const Verdict& v : by_round[round])
            if (!v.pass) std::cout << "\n- round " << round + 1 << ", " << v.name << ": " << v.detail;
    std::cout << "\n";
    if (cell.condition != "idle") std::cout << "\n" << off_context(variants, res.runs, pooled);
    std::cout.flush();
}

// Every cell's verdicts, and the timer against each peer, side by side.
void print_summary(const std::vector<CellResult>& results, const std::vector<Variant>& variants, int rounds) {
    // Summary: every cell's verdicts and the peers, side by side.
    std::cout << "\n### Trade-off summary\n\n";
    Table summary({"cell", "verdict", "pooled", "by round", "detail"}, {0, 1, 2, 3, 4});
    Table peers({"cell", "timer CPU %", "timer p99 µs", "timer off %", "vs SDL3 (CPU, p99, off)",
                 "vs plain abs sleep", "vs sleep_until + yield", "vs preciseSleep 2020", "vs robustSleep 2021",
                 "vs spin (CPU, p99)"},
                {0, 4, 5, 6, 7, 8, 9});
    for (const CellResult& res : results) {
        const std::vector<Point>& pooled = res.pooled;
        const std::string cell = res.cell.condition + " " + pacer::number_text(res.cell.hz) + " Hz";
        const std::vector<Verdict> verdicts = judge(res.cell, variants, pooled);
        for (std::size_t i = 0; i < verdicts.size(); ++i) {
            std::string rounds_text;
            for (int round = 0; round < rounds; ++round) {
                std::vector<Point> points;
                for (std::size_t v = 0; v < variants.size(); ++v) points.push_back(point_of(res.runs[v][round]));
                rounds_text += (round ? " " : "") + std::string(judge(res.cell, variants, points)[i].pass ? "pass" : "FAIL");
            }
            summary.add_row({cell, verdicts[i].name, verdicts[i].pass ? "pass" : "FAIL", rounds_text, verdicts[i].detail});
        }
        const Point& t = pooled[0];
        auto versus = [&](const std::string& key, bool with_off) -> std::string {
            for (std::size_t v = 0; v < variants.size(); ++v) {
                if (variants[v].key != key) continue;
                if (!pooled[v].ran) return "not run";
                std::string text = ratio(t.cpu, pooled[v].cpu) + ", " + ratio(t.p99, pooled[v].p99);
                if (with_off) text += ", " + ratio(t.off, pooled[v].off);
                return text;
            }
            return "not run";
        };
        peers.add_row({cell, fixed(t.cpu, 2), fixed(t.p99, 1), fixed(t.off, 2), versus("sdl3", true),
                       versus("plain_abs", true), versus("seed_5ms", true), versus("precise_2020", true),
                       versus("robust_2021", true), versus("spin", false)});
    }
    summary.print(std::cout);
    std::cout << "\nPeers: the timer's pooled figures over each peer's (timer / peer; below 1× the "
                 "timer is lower, which is better for all three). \"–\": the peer's figure is 0.\n\n";
    peers.print(std::cout);
    std::cout.flush();
}

}  // namespace

std::vector<std::string> tradeoff_variant_keys(bool candidates) {
    std::vector<std::string> keys;
    for (const Variant& v : make_variants(candidates)) keys.push_back(v.key);
    return keys;
}

void run_tradeoff(const Options& options, CsvFile& csv) {
    const std::vector<Variant> variants = selected_variants(options);
    print_intro(options);
    if (options.tradeoff_settle_s > 0) settle(options);
    std::vector<CellResult> results;
    for (const Cell& cell : selected_cells(options)) {
        CellResult res = measure_cell(cell, variants, options);
        print_cell_table(res, variants, options.tradeoff_rounds, csv);
        print_cell_verdicts(res, variants, options.tradeoff_rounds);
        results.push_back(std::move(res));
    }
    print_summary(results, variants, options.tradeoff_rounds);
}

}  // namespace bench
