#include "experiments.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <random>
#include <thread>

#include "machine_load.h"
#include "waiter.h"

#include <pacer/metrics.h>
#include <pacer/platform.h>
#include <pacer/status.h>
#include <pacer/thread_timing.h>
#include <pacer/units.h>

#include "stats_internal.h"

namespace bench {

const char* const kAccuracyColumns =
    "condition,strategy,hz,frames,wake_mean_us,wake_sd_us,wake_p50_us,wake_p95_us,wake_p99_us,"
    "wake_max_us,interval_sd_us,interval_p99_us,off_pct,cpu_pct,spin_pct,interval_max_us,"
    "interval_mean_us,missed,fps,timer_margin_us,precise_estimate_us,other_cpu_pct,"
    "runq_wait_us,contended_pct,steal_pct,wake_on_time_pct";
const char* const kSleepColumns =
    "strategy,requested_us,reps,actual_mean_us,actual_sd_us,actual_p50_us,actual_p99_us,"
    "actual_max_us,over_mean_us,cpu_pct,spin_pct";
const char* const kCpuColumns =
    "strategy,interval_ms,frames,cpu_pct,spin_pct,wake_p50_us,wake_p99_us,off_pct";
const char* const kHeatmapColumns =
    "strategy,period_ms,interval_ms,reps,rel_err_mean_pct,rel_err_p50_pct,rel_err_p99_pct,"
    "rel_err_max_pct,cpu_pct,spin_pct,preemptions,preempt_probability";
const char* const kTuningColumns =
    "condition,hz,variant,wait_timer_slack_ns,wait_sched_slice_ns,timer_margin_quantile,rounds,"
    "frames,wake_mean_us,wake_p50_us,wake_p95_us,wake_p99_us,wake_max_us,wake_on_time_pct,"
    "off_pct,cpu_pct,spin_pct,timer_margin_us,contended_pct,steal_pct";

pacer::Config base_config(const Options& options, pacer::Strategy strategy) {
    pacer::Config config{};
    config.strategy = strategy;
    // The bench's zeros keep the library's defaults.
    if (options.timer_quantile != 0) config.tuning.timer.margin_quantile = options.timer_quantile;
    if (options.timer_min_margin_ns != 0) config.tuning.timer.min_margin_ns = options.timer_min_margin_ns;
    if (options.timer_max_margin_ns != 0) config.tuning.timer.max_margin_ns = options.timer_max_margin_ns;
    if (options.wait_timer_slack_ns != 0) config.tuning.wait.timer_slack_ns = options.wait_timer_slack_ns;
    if (options.wait_sched_slice_ns != 0) config.tuning.wait.sched_slice_ns = options.wait_sched_slice_ns;
    // The starting margin must lie in [min, max]; follow a narrowed range.
    config.tuning.timer.margin_ns = std::clamp(config.tuning.timer.margin_ns, config.tuning.timer.min_margin_ns,
                                        std::max(config.tuning.timer.min_margin_ns, config.tuning.timer.max_margin_ns));
    return config;
}

namespace {

using WallClock = std::chrono::steady_clock;
const WallClock::time_point g_start = WallClock::now();

// One progress line on stderr, stamped with seconds since the bench started,
// so a long run shows where it is without touching the stdout report.
void progress(const std::string& what) {
    const double s = std::chrono::duration<double>(WallClock::now() - g_start).count();
    std::cerr << "[" << fixed(s, 1) << " s] " << what << std::endl;
}

std::string ms_text(double ms) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", ms);
    return buffer;
}

// What a strategy's adaptive state converged to, for the note column.
std::string state_note(const pacer::WaitStatus& state, double contended_pct) {
    std::string note;
    if (state.strategy == pacer::Strategy::Timer) {
        note = "margin " + fixed(state.timer_margin_ns / 1e3, 1) + " µs, spin stalls " +
               fixed(100 * state.timer_spin_stall_share, 1) + " %, contended " + fixed(contended_pct, 0) + " %";
        if (state.timer_fell_back) note += ", fell back to robust_sleep";
    } else if (state.strategy == pacer::Strategy::PreciseSleep) {
        note = "estimate " + fixed(state.precise_estimate_ns / 1e6, 3) + " ms (" +
               std::to_string(state.precise_samples) + " samples)";
    } else if (state.strategy == pacer::Strategy::RobustSleep) {
        note = "period " + fixed(static_cast<double>(state.scheduler_period_ns) / 1e6, 3) + " ms";
    }
    return note;
}

// ---------------------------------------------------------------------------
// Measuring a Pacer: shared by experiments 1 (accuracy) and 5 (tuning)
// ---------------------------------------------------------------------------

// Runs frames until `frames` are done and at least min_s has passed, or until
// max_s has passed: under contention frames overrun, and the cap keeps the
// whole bench inside its time budget (the tables say how many frames were
// measured). work_ns of CPU work follows each wait (the "work" condition).
void run_frames(pacer::Pacer& pacer, int64_t work_ns, int frames, double min_s, double max_s) {
    pacer::Clock& clock = pacer.clock();
    const int64_t start_ns = clock.now_ns();
    const int64_t min_ns = static_cast<int64_t>(min_s * 1e9);
    const int64_t max_ns = static_cast<int64_t>(max_s * 1e9);
    for (int i = 0;; ++i) {
        const int64_t elapsed_ns = clock.now_ns() - start_ns;
        if ((i >= frames && elapsed_ns >= min_ns) || elapsed_ns >= max_ns) break;
        pacer.wait();
        if (work_ns > 0) burn_cpu_for(clock, work_ns);
    }
}

// How one measured stretch of frames went: the library's Summary plus what
// the bench reads around it.
struct Measurement {
    pacer::Summary summary;
    pacer::WaitStatus state;   // at the end of the stretch
    double on_time_pct;         // % of frames woken at most kOnTimeUs late
    double other_pct;           // other programs' CPU use, % of one core (-1 unknown)
    double steal_pct;           // the machine's steal, % of one core (-1 unknown)
    double wall_s;              // the stretch's wall time, for merging steal
    double runq_us;             // the waiting thread's run-queue wait per frame, µs (-1 unknown)
    double contended_pct;       // % of frames the timer counted as contended
};

// A wake this close to its deadline counts as on time: the goals' 10 µs.
constexpr double kOnTimeUs = 10.0;

// % of frames in `stats` whose wake was at most kOnTimeUs late.
double on_time_pct(const pacer::Stats& stats) {
    if (stats.size() == 0) return 0;
    std::size_t on_time = 0;
    for (std::size_t i = 0; i < stats.size(); ++i)
        on_time += static_cast<double>(stats.at(i).lateness_ns) <= kOnTimeUs * 1e3;
    return 100.0 * static_cast<double>(on_time) / static_cast<double>(stats.size());
}

// Warms the pacer up (frames that settle the adaptive strategies: the timer
// margin; the precise_sleep estimator keeps its state, so its
// unlucky-first-sample failure, if it happens, stays visible), then measures
// `frames` frames, stopping at twice their expected time plus 0.5 s. The
// pacer's history must hold `frames` frames.
Measurement measure(pacer::Pacer& pacer, int64_t work_ns, int warmup_frames, double warmup_s,
                    int frames) {
    pacer::Clock& clock = pacer.clock();
    run_frames(pacer, work_ns, warmup_frames, warmup_s, warmup_s + 1.0);
    pacer.reset_stats();
    const double period_s = 1.0 / pacer.config().target_hz;
    const double expected_s = frames * std::max(period_s, static_cast<double>(work_ns) * 1e-9);
    const CpuTicks before = read_cpu_ticks();
    const int64_t runq_before_ns = clock.thread_runqueue_wait_ns();
    run_frames(pacer, work_ns, frames, 0.0, 2.0 * expected_s + 0.5);
    const int64_t runq_after_ns = clock.thread_runqueue_wait_ns();
    const CpuTicks after = read_cpu_ticks();

    Measurement m{};
    const pacer::Stats& stats = pacer.stats();
    m.summary = stats.summarize();
    m.state = pacer.status();
    m.on_time_pct = on_time_pct(stats);
    m.other_pct = other_cpu_pct(before, after);
    m.steal_pct = steal_pct(before, after);
    m.wall_s = static_cast<double>(after.wall_ns - before.wall_ns) * 1e-9;
    m.runq_us = runq_before_ns >= 0 && runq_after_ns >= 0 && m.summary.frames > 0
                    ? static_cast<double>(runq_after_ns - runq_before_ns) / 1e3 /
                          static_cast<double>(m.summary.frames)
                    : -1;
    std::size_t contended = 0;
    for (std::size_t i = 0; i < stats.size(); ++i) contended += stats.at(i).contended;
    m.contended_pct = stats.size() > 0 ? 100.0 * static_cast<double>(contended) /
                                             static_cast<double>(stats.size())
                                       : 0;
    return m;
}

// The busy threads of "contention" and "loaded", started and given a moment
// to spin up; null for the other conditions.
std::unique_ptr<Contention> start_load(const std::string& condition, int threads) {
    if (condition == "partial") threads = std::max(1, threads - 1);
    else if (condition != "contention" && condition != "loaded") return nullptr;
    auto load = std::make_unique<Contention>(threads);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return load;
}

// ---------------------------------------------------------------------------
// 1. Accuracy
// ---------------------------------------------------------------------------

// The line under a condition's heading that says what runs beside the pacer.
void print_condition(const Options& options, const std::string& condition) {
    if (condition == "contention") {
        std::cout << "\nCondition contention: " << options.threads << " busy background threads.\n";
    } else if (condition == "partial") {
        std::cout << "\nCondition partial: " << std::max(1, options.threads - 1)
                  << " busy background threads, one fewer than --threads.\n";
    } else if (condition == "work") {
        std::cout << "\nCondition work: " << fixed(options.work_ms, 2)
                  << " ms of CPU work per frame after each wait.\n";
    } else if (condition == "loaded") {
        std::cout << "\nCondition loaded: " << options.threads
                  << " busy background threads, and CPU work of a quarter of the period per "
                     "frame after each wait (a game's frame beside other busy programs).\n";
    }
}

struct AccuracyRun {
    std::string condition;
    pacer::Strategy strategy;
    double hz;
    Measurement m;
};

// The CPU work each frame does after its wait: --work-ms in "work",
// loaded_work_ns in "loaded", none otherwise.
int64_t frame_work_ns(const Options& options, const std::string& condition, double hz) {
    if (condition == "work") return static_cast<int64_t>(options.work_ms * 1e6);
    if (condition == "loaded") return loaded_work_ns(hz);
    return 0;
}

AccuracyRun run_one_accuracy(const Options& options, const std::string& condition,
                             pacer::Strategy strategy, double hz) {
    pacer::Config config = base_config(options, strategy);
    config.target_hz = hz;
    config.stats.history_frames = options.frames;   // summarise every measured frame
    pacer::Pacer pacer(config);
    const int64_t work_ns = frame_work_ns(options, condition, hz);
    return {condition, strategy, hz, measure(pacer, work_ns, 5, options.warmup_s, options.frames)};
}

void print_accuracy_table(const std::string& condition, double hz,
                          const std::vector<AccuracyRun>& runs) {
    std::cout << "\n### Accuracy: " << condition << ", " << pacer::number_text(hz) << " Hz (period "
              << fixed(1e3 / hz, 3) << " ms)\n\n";
    Table table({"strategy", "frames", "wake mean µs", "σ", "p50", "p95", "p99", "max",
                 "on time %", "interval σ µs", "err p99", "err max", "off >0.5ms %", "missed",
                 "CPU %", "spin %", "runq µs/frame", "others %", "steal %", "state"},
                /*left_columns=*/{0, 19});
    for (const AccuracyRun& run : runs) {
        const pacer::Summary& s = run.m.summary;
        table.add_row({pacer::strategy_name(run.strategy), std::to_string(s.frames),
                       fixed(s.lateness.mean_us, 1),
                       fixed(s.lateness.sd_us, 1), fixed(s.lateness.p50_us, 1),
                       fixed(s.lateness.p95_us, 1), fixed(s.lateness.p99_us, 1),
                       fixed(s.lateness.max_us, 1), fixed(run.m.on_time_pct, 1),
                       fixed(s.interval.sd_us, 1),
                       fixed(s.interval_error.p99_us, 1), fixed(s.interval_error.max_us, 1),
                       fixed(s.off_pct, 2), std::to_string(s.missed), fixed(s.cpu_pct, 2, true),
                       fixed(s.spin_pct, 2), fixed(run.m.runq_us, 1, true),
                       fixed(run.m.other_pct, 0, true), fixed(run.m.steal_pct, 0, true),
                       state_note(run.m.state, run.m.contended_pct)});
    }
    table.print(std::cout);
}

// "" for an unknown (negative) value, as the CSVs leave unknowns empty.
std::string csv_or_empty(double value, int decimals) {
    return value < 0 ? std::string() : fixed(value, decimals);
}

void add_accuracy_csv(CsvFile& csv, const AccuracyRun& run) {
    if (!csv.is_open()) return;
    const pacer::Summary& s = run.m.summary;
    const bool timer = run.m.state.strategy == pacer::Strategy::Timer;
    const bool precise = run.m.state.strategy == pacer::Strategy::PreciseSleep;
    csv.add_row({run.condition, pacer::strategy_name(run.strategy), pacer::number_text(run.hz),
                 std::to_string(s.frames), fixed(s.lateness.mean_us, 3), fixed(s.lateness.sd_us, 3),
                 fixed(s.lateness.p50_us, 3), fixed(s.lateness.p95_us, 3), fixed(s.lateness.p99_us, 3),
                 fixed(s.lateness.max_us, 3), fixed(s.interval.sd_us, 3),
                 fixed(s.interval_error.p99_us, 3), fixed(s.off_pct, 3), fixed(s.cpu_pct, 3),
                 fixed(s.spin_pct, 3), fixed(s.interval_error.max_us, 3), fixed(s.interval.mean_us, 3),
                 std::to_string(s.missed), fixed(s.fps, 3),
                 timer ? fixed(run.m.state.timer_margin_ns / 1e3, 3) : std::string(),
                 precise ? fixed(run.m.state.precise_estimate_ns / 1e3, 3) : std::string(),
                 csv_or_empty(run.m.other_pct, 1), csv_or_empty(run.m.runq_us, 1),
                 fixed(run.m.contended_pct, 2), csv_or_empty(run.m.steal_pct, 1),
                 fixed(run.m.on_time_pct, 2)});
}

// The library issue's performance goals, checked for timer and auto. Each
// wake goal also shows what spin got at the same condition and rate: a thread
// that never sleeps, so its lateness is the host's and the scheduler's alone.
// When even that is over 10 µs the goal is likely out of reach here; the
// verdict still says MISSES, the floor only explains.
void print_goals(const std::vector<AccuracyRun>& runs) {
    Table table({"goal", "strategy", "condition", "Hz", "measured", "verdict",
                 "machine floor (spin p99)"},
                {0, 1, 2, 5});
    auto verdict = [](bool ok) { return std::string(ok ? "meets" : "MISSES"); };
    auto spin_floor = [&](const AccuracyRun& like) -> std::string {
        for (const AccuracyRun& run : runs) {
            if (run.strategy == pacer::Strategy::Spin && run.condition == like.condition &&
                run.hz == like.hz) {
                return fixed(run.m.summary.lateness.p99_us, 1) + " µs (steal " +
                       fixed(run.m.steal_pct, 0, true) + " %)";
            }
        }
        return "spin not run";
    };
    bool any_floor = false;
    for (const AccuracyRun& run : runs) {
        if (run.strategy != pacer::Strategy::Timer && run.strategy != pacer::Strategy::Auto)
            continue;
        const pacer::Summary& s = run.m.summary;
        const char* name = pacer::strategy_name(run.strategy);
        if (run.condition == "idle" && (run.hz == 60 || run.hz == 144)) {
            const double cpu_cap = run.hz == 60 ? 1.0 : 2.0;
            table.add_row({"wake p99 ≤ 10 µs", name, run.condition, pacer::number_text(run.hz),
                           fixed(s.lateness.p99_us, 1) + " µs", verdict(s.lateness.p99_us <= 10),
                           spin_floor(run)});
            any_floor = true;
            table.add_row({"CPU ≤ " + fixed(cpu_cap, 0) + " % of a core", name, run.condition,
                           pacer::number_text(run.hz), fixed(s.cpu_pct, 2, true) + " %",
                           verdict(s.cpu_pct >= 0 && s.cpu_pct <= cpu_cap)});
        }
        if (run.condition == "contention" || run.condition == "loaded") {
            table.add_row({"off >0.5 ms ≤ 0.5 %", name, run.condition, pacer::number_text(run.hz),
                           fixed(s.off_pct, 2) + " %", verdict(s.off_pct <= 0.5)});
        }
        // "Never 100 % spinning" read as: spin under half of a core.
        if (run.condition != "work" && run.condition != "loaded" && run.hz >= 30 && run.hz <= 1000) {
            table.add_row({"spin < 50 % (never 100 %)", name, run.condition, pacer::number_text(run.hz),
                           fixed(s.spin_pct, 2) + " %", verdict(s.spin_pct < 50)});
        }
    }
    std::cout << "\n### Performance goals (library issue), timer and auto\n\n";
    if (any_floor) {
        std::cout << "Machine floor: spin's wake p99 at the same condition and rate in this run, "
                     "with the host's steal during it (% of one core). Spin never sleeps, so its "
                     "lateness is what the host and the scheduler add by themselves: a floor over "
                     "10 µs says the wake goal is likely out of reach on this machine. It is not "
                     "a strict bound: on a busy machine the scheduler preempts a spinning thread "
                     "and favours a woken sleeper, so the timer can beat it.\n\n";
    }
    table.print(std::cout);
}

// ---------------------------------------------------------------------------
// 2. Requested versus actual sleep
// ---------------------------------------------------------------------------

struct SleepCell {
    int reps;
    pacer::Percentiles actual_us;
    double cpu_pct, spin_pct;
};

}  // namespace

void print_accuracy_summary(const std::vector<AccuracyResult>& results, std::ostream& out) {
    std::vector<std::string> conditions;
    std::vector<std::pair<pacer::Strategy, double>> rows;
    for (const AccuracyResult& r : results) {
        if (std::find(conditions.begin(), conditions.end(), r.condition) == conditions.end())
            conditions.push_back(r.condition);
        if (std::find(rows.begin(), rows.end(), std::make_pair(r.strategy, r.hz)) == rows.end())
            rows.emplace_back(r.strategy, r.hz);
    }
    std::vector<std::string> header = {"strategy", "Hz"};
    for (const std::string& condition : conditions) header.push_back(condition);
    Table table(header, {0});
    for (const auto& [strategy, hz] : rows) {
        std::vector<std::string> cells = {pacer::strategy_name(strategy), pacer::number_text(hz)};
        for (const std::string& condition : conditions) {
            std::string cell = "-";
            for (const AccuracyResult& r : results) {
                if (r.strategy == strategy && r.hz == hz && r.condition == condition)
                    cell = fixed(r.off_pct, 2) + " / " + fixed(r.cpu_pct, 1, true) + " / " + fixed(r.wake_p99_us, 0);
            }
            cells.push_back(cell);
        }
        table.add_row(cells);
    }
    out << "\n## Summary (experiment 1): off % / CPU % / wake p99 µs per condition\n\n"
        << "off = intervals off by more than 0.5 ms; CPU = the waiting thread's, % of one core; wake p99 = "
           "lateness after the deadline. Every cell is one run on this machine in this run; the tables "
           "below hold the rest.\n\n";
    table.print(out);
}

void run_accuracy(const Options& options, CsvFile& csv, std::vector<AccuracyResult>* results) {
    std::cout << "\n## 1. Accuracy: a real Pacer per condition, rate and strategy\n\n"
              << "Wake = lateness of each frame's wake after its deadline (early counts as "
                 "0); on time = frames woken at most "
              << fixed(kOnTimeUs, 0)
              << " µs late; interval σ = σ of frame intervals; err = |interval − period|; off = "
                 "intervals off by more than 0.5 ms; CPU = the waiting thread's CPU time / "
                 "wall time (% of one core); spin = spin time / wall time; runq = time the "
                 "waiting thread was runnable but "
                 "not running (preempted or not yet scheduled), per frame (the library's "
                 "Clock::thread_runqueue_wait_ns); contended = frames the timer counted as "
                 "contended (Frame::contended); others = CPU used "
                 "by other programs on this machine during the run (% of one core); steal = "
                 "time the host ran something else while this machine's CPUs were ready to "
                 "run (a VM's /proc/stat steal, % of one core summed over the "
              << std::thread::hardware_concurrency()
              << " CPUs, so up to " << 100 * std::thread::hardware_concurrency()
              << " %): it delays every wake, even spin's. runq, others and steal read Linux "
                 "/proc, n/a elsewhere. "
                 "A warm-up of "
              << fixed(options.warmup_s, 2)
              << " s (at least 5 frames) runs before each measurement and is not counted. "
                 "A run stops early at twice its expected time plus 0.5 s (frames shows "
                 "how many were measured).\n";
    std::vector<AccuracyRun> all;
    for (const std::string& condition : options.conditions) {
        const std::unique_ptr<Contention> load = start_load(condition, options.threads);
        print_condition(options, condition);
        for (double hz : options.hz) {
            std::vector<AccuracyRun> runs;
            for (pacer::Strategy strategy : options.strategies) {
                progress("accuracy " + condition + " " + pacer::number_text(hz) + " Hz " +
                         pacer::strategy_name(strategy));
                runs.push_back(run_one_accuracy(options, condition, strategy, hz));
                add_accuracy_csv(csv, runs.back());
                const pacer::Summary& s = runs.back().m.summary;
                results->push_back({condition, hz, strategy, s.off_pct, s.cpu_pct, s.lateness.p99_us});
            }
            print_accuracy_table(condition, hz, runs);
            std::cout.flush();
            all.insert(all.end(), runs.begin(), runs.end());
        }
    }
    print_goals(all);
}

void run_sleep(const Options& options, CsvFile& csv) {
    std::cout << "\n## 2. Requested versus actual sleep (Waiter::wait_until, idle)\n\n"
              << "Each requested duration is waited for repeatedly by one Waiter per "
                 "strategy; repetitions are bounded by about "
              << fixed(options.sleep_budget_s, 1)
              << " s per duration (at most 100, at least " << (options.quick ? 1 : 3)
              << ").\n";
    const int min_reps = options.quick ? 1 : 3;
    std::vector<int64_t> requests_ns;
    for (int64_t ns = 1000; ns <= 1'000'000'000; ns *= 10) requests_ns.push_back(ns);

    std::vector<std::vector<SleepCell>> cells;   // [strategy][request]
    for (pacer::Strategy strategy : options.strategies) {
        progress(std::string("sleep ") + pacer::strategy_name(strategy));
        pacer::Waiter waiter(base_config(options, strategy));
        pacer::Clock& clock = waiter.clock();
        const bool cpu_known = clock.thread_cpu_ns() >= 0;
        std::vector<SleepCell> row;
        for (int64_t request_ns : requests_ns) {
            const int reps = std::clamp(
                static_cast<int>(options.sleep_budget_s * 1e9 / static_cast<double>(request_ns)),
                min_reps, 100);
            std::vector<double> actual_us;
            int64_t wall_ns = 0, cpu_ns = 0, spun_ns = 0;
            for (int r = 0; r < reps; ++r) {
                // The wall span encloses both CPU readings, so the CPU share of
                // a microsecond wait cannot exceed 100 % by the readings' own cost.
                const int64_t wall0 = clock.now_ns();
                const int64_t cpu0 = clock.thread_cpu_ns();
                const int64_t start = clock.now_ns();
                const pacer::WaitResult result = waiter.wait_until(start + request_ns);
                const int64_t cpu1 = clock.thread_cpu_ns();
                const int64_t wall1 = clock.now_ns();
                actual_us.push_back(static_cast<double>(result.wake_ns - start) / 1e3);
                wall_ns += wall1 - wall0;
                cpu_ns += cpu1 - cpu0;
                spun_ns += result.spun_ns;
            }
            SleepCell cell{};
            cell.reps = reps;
            cell.actual_us = pacer::percentiles(actual_us);
            cell.cpu_pct = cpu_known ? 100.0 * static_cast<double>(cpu_ns) /
                                           static_cast<double>(wall_ns)
                                     : -1;
            cell.spin_pct = 100.0 * static_cast<double>(spun_ns) / static_cast<double>(wall_ns);
            row.push_back(cell);
            if (csv.is_open()) {
                const double req_us = static_cast<double>(request_ns) / 1e3;
                const pacer::Percentiles& a = cell.actual_us;
                csv.add_row({pacer::strategy_name(strategy), fixed(req_us, 0),
                             std::to_string(reps), fixed(a.mean_us, 3), fixed(a.sd_us, 3),
                             fixed(a.p50_us, 3), fixed(a.p99_us, 3), fixed(a.max_us, 3),
                             fixed(a.mean_us - req_us, 3), fixed(cell.cpu_pct, 3),
                             fixed(cell.spin_pct, 3)});
            }
        }
        cells.push_back(std::move(row));
    }

    std::vector<std::string> header{"strategy"};
    for (int64_t ns : requests_ns) {
        header.push_back(ns < 1'000'000 ? std::to_string(ns / 1000) + " µs"
                         : ns < 1'000'000'000 ? std::to_string(ns / 1'000'000) + " ms"
                                              : std::to_string(ns / 1'000'000'000) + " s");
    }
    auto print = [&](const char* title, auto value) {
        std::cout << "\n" << title << "\n\n";
        Table table(header);
        for (std::size_t s = 0; s < options.strategies.size(); ++s) {
            std::vector<std::string> row{pacer::strategy_name(options.strategies[s])};
            for (std::size_t r = 0; r < requests_ns.size(); ++r)
                row.push_back(value(cells[s][r], static_cast<double>(requests_ns[r]) / 1e3));
            table.add_row(row);
        }
        table.print(std::cout);
    };
    print("Mean overshoot, actual − requested (µs):", [](const SleepCell& c, double req_us) {
        return fixed(c.actual_us.mean_us - req_us, 1);
    });
    print("p99 overshoot (µs):", [](const SleepCell& c, double req_us) {
        return fixed(c.actual_us.p99_us - req_us, 1);
    });
    print("CPU % of one core while waiting:", [](const SleepCell& c, double) {
        return fixed(c.cpu_pct, 1, true);
    });
}

void run_cpu(const Options& options, CsvFile& csv) {
    const std::vector<double> intervals_ms{1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25};
    std::cout << "\n## 3. CPU use versus requested interval (a Pacer at 1000/interval Hz, idle)\n\n"
              << "About " << fixed(options.cpu_seconds, 2)
              << " s per interval (at least 10 frames), after 3 warm-up frames. "
                 "CPU = the waiting thread's CPU time / wall time, from the library's "
                 "Summary.\n";
    std::vector<std::vector<pacer::Summary>> cells;   // [strategy][interval]
    for (pacer::Strategy strategy : options.strategies) {
        progress(std::string("cpu ") + pacer::strategy_name(strategy));
        std::vector<pacer::Summary> row;
        for (double interval_ms : intervals_ms) {
            const int frames =
                std::max(10, static_cast<int>(options.cpu_seconds * 1e3 / interval_ms));
            pacer::Config config = base_config(options, strategy);
            config.target_hz = 1e3 / interval_ms;
            config.stats.history_frames = frames;
            pacer::Pacer pacer(config);
            for (int i = 0; i < 3; ++i) pacer.wait();
            pacer.reset_stats();
            for (int i = 0; i < frames; ++i) pacer.wait();
            const pacer::Summary s = pacer.stats().summarize();
            row.push_back(s);
            if (csv.is_open()) {
                csv.add_row({pacer::strategy_name(strategy), ms_text(interval_ms),
                             std::to_string(s.frames), fixed(s.cpu_pct, 3),
                             fixed(s.spin_pct, 3), fixed(s.lateness.p50_us, 3),
                             fixed(s.lateness.p99_us, 3), fixed(s.off_pct, 3)});
            }
        }
        cells.push_back(std::move(row));
    }
    std::vector<std::string> header{"strategy"};
    for (double ms : intervals_ms) header.push_back(ms_text(ms) + " ms");
    auto print = [&](const char* title, auto value) {
        std::cout << "\n" << title << "\n\n";
        Table table(header);
        for (std::size_t s = 0; s < options.strategies.size(); ++s) {
            std::vector<std::string> row{pacer::strategy_name(options.strategies[s])};
            for (const pacer::Summary& summary : cells[s]) row.push_back(value(summary));
            table.add_row(row);
        }
        table.print(std::cout);
    };
    print("CPU % of one core:", [](const pacer::Summary& s) { return fixed(s.cpu_pct, 1, true); });
    print("Spin % of wall time:", [](const pacer::Summary& s) { return fixed(s.spin_pct, 1); });
}

void run_heatmap(const Options& options, CsvFile& csv) {
    // Periods 1..10 ms as in the 2020 article, plus Windows' default 15.625 ms.
    std::vector<int64_t> periods_ns;
    for (int ms = 1; ms <= 10; ++ms) periods_ns.push_back(ms * int64_t{1'000'000});
    periods_ns.push_back(15'625'000);
    // Requested intervals: short sleeps, then common frame periods (144, 100,
    // 60, 30 Hz).
    const std::vector<double> intervals_ms{1, 2, 5, 6.944, 10, 16.667, 33.333};
    std::vector<pacer::Strategy> strategies;
    for (pacer::Strategy s : options.strategies)
        if (s != pacer::Strategy::Spin) strategies.push_back(s);   // spin never sleeps

    std::cout << "\n## 4. Robustness heatmap: simulated scheduler period × requested interval\n\n"
              << "A SimulatedScheduler (preempt probability "
              << fixed(options.preempt_probability, 3) << ", seed " << options.seed
              << ") under each sleep-based strategy's Waiter; " << options.heatmap_reps
              << " waits per cell, each started at a random phase of the tick grid. "
                 "Cell: mean relative error (actual − requested) / requested in %, then "
                 "spin % of the waiting time in brackets. Rows: period (ms); columns: "
                 "requested interval (ms). spin is left out: it never sleeps.\n";

    pacer::OsClock clock;
    pacer::OsSleeper os_sleeper;
    pacer::OsSleeper phase_sleeper;   // real sleeps that randomise the start phase
    std::mt19937_64 rng(options.seed);
    const bool cpu_known = clock.thread_cpu_ns() >= 0;

    for (pacer::Strategy strategy : strategies) {
        progress(std::string("heatmap ") + pacer::strategy_name(strategy));
        std::vector<std::string> header{"period"};
        for (double ms : intervals_ms) header.push_back(ms_text(ms));
        Table table(header);
        for (int64_t period_ns : periods_ns) {
            pacer::SimulatedSchedulerConfig sim_config{};
            sim_config.period_ns = period_ns;
            sim_config.preempt_probability = options.preempt_probability;
            sim_config.seed = options.seed;
            pacer::SimulatedScheduler sim(os_sleeper, clock, sim_config);
            pacer::Config config = base_config(options, strategy);
            config.clock = &clock;
            config.sleeper = &sim;   // robust_sleep reads the simulated period from it
            pacer::Waiter waiter(config);
            std::uniform_int_distribution<int64_t> phase(0, period_ns - 1);

            std::vector<std::string> row{ms_text(static_cast<double>(period_ns) / 1e6)};
            for (double interval_ms : intervals_ms) {
                const int64_t interval_ns = static_cast<int64_t>(interval_ms * 1e6);
                const int64_t preempt0 = sim.preemptions();
                std::vector<double> error_pct;
                int64_t wall_ns = 0, cpu_ns = 0, spun_ns = 0;
                for (int r = 0; r < options.heatmap_reps; ++r) {
                    phase_sleeper.sleep_ns(phase(rng));
                    // The wall span encloses both CPU readings, so the CPU share of
                    // a microsecond wait cannot exceed 100 % by the readings' own cost.
                    const int64_t wall0 = clock.now_ns();
                    const int64_t cpu0 = clock.thread_cpu_ns();
                    const int64_t start = clock.now_ns();
                    const pacer::WaitResult result = waiter.wait_until(start + interval_ns);
                    const int64_t cpu1 = clock.thread_cpu_ns();
                    const int64_t wall1 = clock.now_ns();
                    error_pct.push_back(100.0 * static_cast<double>(result.wake_ns - start -
                                                                    interval_ns) /
                                        static_cast<double>(interval_ns));
                    wall_ns += wall1 - wall0;
                    cpu_ns += cpu1 - cpu0;
                    spun_ns += result.spun_ns;
                }
                const pacer::detail::Spread e = pacer::detail::spread(error_pct);   // in %
                const double spin_pct =
                    100.0 * static_cast<double>(spun_ns) / static_cast<double>(wall_ns);
                const double cpu_pct =
                    cpu_known ? 100.0 * static_cast<double>(cpu_ns) / static_cast<double>(wall_ns)
                              : -1;
                row.push_back(fixed(e.mean, 2) + " (" + fixed(spin_pct, 0) + ")");
                if (csv.is_open()) {
                    csv.add_row({pacer::strategy_name(strategy),
                                 fixed(static_cast<double>(period_ns) / 1e6, 3),
                                 ms_text(interval_ms), std::to_string(options.heatmap_reps),
                                 fixed(e.mean, 3), fixed(e.p50, 3), fixed(e.p99, 3),
                                 fixed(e.max, 3), fixed(cpu_pct, 3), fixed(spin_pct, 3),
                                 std::to_string(sim.preemptions() - preempt0),
                                 fixed(options.preempt_probability, 3)});
                }
            }
            table.add_row(row);
        }
        std::cout << "\n### " << pacer::strategy_name(strategy) << "\n\n";
        table.print(std::cout);
        std::cout.flush();
    }
}

// ---------------------------------------------------------------------------
// 5. Tuning: the timer's wait settings and margin quantile, interleaved
// ---------------------------------------------------------------------------

namespace {

struct TuningVariant {
    const char* key;     // the CSV's name for it
    const char* label;   // the table's
    int64_t slack_ns;    // Config::tuning.wait.timer_slack_ns (-1: the thread's own)
    int64_t slice_ns;    // Config::tuning.wait.sched_slice_ns (-1: the thread's own)
    double quantile;     // Config::tuning.timer.margin_quantile
};

// Explicit values rather than zeros, so each label stays true if the library's
// defaults move; the variant equal to the defaults is marked in the table.
// The wait settings are compared at the default quantile, the quantiles
// with the default wait settings.
constexpr TuningVariant kTuningVariants[] = {
    {"own", "thread's own slack and slice, q 0.998", -1, -1, 0.998},
    {"slack", "slack 1 ns, thread's own slice, q 0.998", 1, -1, 0.998},
    {"slack_slice_q95", "slack 1 ns + slice 100 µs, q 0.95", 1, 100'000, 0.95},
    {"slack_slice_q99", "slack 1 ns + slice 100 µs, q 0.99", 1, 100'000, 0.99},
    {"slack_slice_q998", "slack 1 ns + slice 100 µs, q 0.998", 1, 100'000, 0.998},
};
constexpr std::size_t kTuningVariantCount = sizeof kTuningVariants / sizeof kTuningVariants[0];

// Each run's unmeasured warm-up: enough wakes for the margin's quantile to
// have left its 200 us starting value behind.
constexpr int kTuningWarmupFrames = 30;
constexpr double kTuningWarmupS = 0.25;

bool is_library_default(const TuningVariant& variant) {
    const pacer::Config defaults;
    return defaults.tuning.wait.timer_slack_ns == variant.slack_ns &&
           defaults.tuning.wait.sched_slice_ns == variant.slice_ns &&
           defaults.tuning.timer.margin_quantile == variant.quantile;
}

// One variant's runs over the rounds. The frames are spliced into one
// timeline so the library's Stats summarises them with its own definitions:
// each run is shifted to start one interval (its first frame's, as measured)
// after the previous run's last wake. Intervals, lateness and per-wait costs
// stay as measured, and the wall time is the sum of the runs' own.
struct TuningTotals {
    pacer::Stats merged;
    int64_t end_ns = 0;
    std::vector<double> margins_us;   // each run's final margin
    double steal_pct_s = 0;           // sum of steal % x wall s, over runs where known
    double wall_s = 0;
    bool steal_known = true;

    TuningTotals(int32_t capacity, int64_t off_tolerance_ns) : merged(capacity, off_tolerance_ns) {}

    void add(const pacer::Stats& run, const Measurement& m) {
        if (run.size() > 0) {
            const pacer::Frame& first = run.at(0);
            const int64_t shift =
                merged.size() == 0 ? 0 : end_ns + first.interval_ns - first.wake_ns;
            for (std::size_t i = 0; i < run.size(); ++i) {
                pacer::Frame frame = run.at(i);
                frame.deadline_ns += shift;
                frame.wake_ns += shift;
                frame.predicted_present_ns += shift;
                if (frame.present_ns >= 0) frame.present_ns += shift;
                merged.add(frame);
            }
            end_ns = run.at(run.size() - 1).wake_ns + shift;
        }
        margins_us.push_back(static_cast<double>(m.state.timer_margin_ns) / 1e3);
        if (m.steal_pct < 0) steal_known = false;
        steal_pct_s += m.steal_pct * m.wall_s;
        wall_s += m.wall_s;
    }
    double steal_pct() const { return steal_known && wall_s > 0 ? steal_pct_s / wall_s : -1; }
    double contended_pct() const {
        std::size_t contended = 0;
        for (std::size_t i = 0; i < merged.size(); ++i) contended += merged.at(i).contended;
        return merged.size() > 0 ? 100.0 * static_cast<double>(contended) /
                                       static_cast<double>(merged.size())
                                 : 0;
    }
};

void print_tuning_table(const std::string& condition, double hz,
                        const std::vector<TuningTotals>& totals) {
    std::cout << "\n### Tuning: " << condition << ", " << pacer::number_text(hz) << " Hz (period "
              << fixed(1e3 / hz, 3) << " ms)\n\n";
    Table table({"variant", "frames", "wake p50 µs", "p95", "p99", "max", "on time %",
                 "off >0.5ms %", "CPU %", "spin %", "margin µs", "contended %", "steal %"});
    for (std::size_t v = 0; v < kTuningVariantCount; ++v) {
        const TuningTotals& t = totals[v];
        const pacer::Summary s = t.merged.summarize();
        std::string label = kTuningVariants[v].label;
        if (is_library_default(kTuningVariants[v])) label += " (default)";
        table.add_row({label, std::to_string(s.frames), fixed(s.lateness.p50_us, 1),
                       fixed(s.lateness.p95_us, 1), fixed(s.lateness.p99_us, 1),
                       fixed(s.lateness.max_us, 1), fixed(on_time_pct(t.merged), 1),
                       fixed(s.off_pct, 2), fixed(s.cpu_pct, 2, true), fixed(s.spin_pct, 2),
                       fixed(pacer::percentiles(t.margins_us).p50_us, 1),
                       fixed(t.contended_pct(), 0), fixed(t.steal_pct(), 0, true)});
    }
    table.print(std::cout);
}

void add_tuning_csv(CsvFile& csv, const std::string& condition, double hz, int rounds,
                    const std::vector<TuningTotals>& totals) {
    if (!csv.is_open()) return;
    for (std::size_t v = 0; v < kTuningVariantCount; ++v) {
        const TuningVariant& variant = kTuningVariants[v];
        const TuningTotals& t = totals[v];
        const pacer::Summary s = t.merged.summarize();
        csv.add_row({condition, pacer::number_text(hz), variant.key, std::to_string(variant.slack_ns),
                     std::to_string(variant.slice_ns), fixed(variant.quantile, 3),
                     std::to_string(rounds), std::to_string(s.frames), fixed(s.lateness.mean_us, 3),
                     fixed(s.lateness.p50_us, 3), fixed(s.lateness.p95_us, 3), fixed(s.lateness.p99_us, 3),
                     fixed(s.lateness.max_us, 3), fixed(on_time_pct(t.merged), 2),
                     fixed(s.off_pct, 3), csv_or_empty(s.cpu_pct, 3), fixed(s.spin_pct, 3),
                     fixed(pacer::percentiles(t.margins_us).p50_us, 3),
                     fixed(t.contended_pct(), 2), csv_or_empty(t.steal_pct(), 1)});
    }
}

}  // namespace

void run_tuning(const Options& options, CsvFile& csv) {
    const int rounds = options.tuning_rounds;
    const int per_round = std::max(5, options.frames / rounds);
    const double warmup_s = std::max(kTuningWarmupS, options.warmup_s);
    std::cout << "\n## 5. Tuning: the timer's wait settings and margin quantile, interleaved\n\n"
              << "Every variant is the timer strategy. slack = the timer slack each wait runs "
                 "with (Config::tuning.wait.timer_slack_ns), slice = the EEVDF slice it runs with "
                 "(Config::tuning.wait.sched_slice_ns, Linux >= 6.12), q = the wake-lateness quantile "
                 "the margin tracks (Config::tuning.timer.margin_quantile); \"thread's own\" leaves "
                 "the thread's setting (-1). Slack and slice exist on Linux only: elsewhere "
                 "the variants differ only in q. "
              << rounds << (rounds == 1 ? " round" : " rounds")
              << "; each runs every variant once, in an order rotated by one "
                 "per round, with a fresh Pacer, "
              << per_round << " measured frames after an unmeasured warm-up of at least "
              << kTuningWarmupFrames << " frames and " << fixed(warmup_s, 2)
              << " s, so a slow drift in the machine's noise reaches every variant alike. "
                 "Each variant's frames are merged over the rounds and summarised by the "
                 "library (columns as in experiment 1: on time = woken at most "
              << fixed(kOnTimeUs, 0)
              << " µs late); margin = the final margin, median over the rounds; steal = the "
                 "host's, % of one core, summed over CPUs. --timer-min/max-margin-ns apply; "
                 "--strategies, --timer-quantile and --wait-* do not (the variants set them).\n";
    for (const std::string& condition : options.tuning_conditions) {
        const std::unique_ptr<Contention> load = start_load(condition, options.threads);
        print_condition(options, condition);
        for (double hz : options.tuning_hz) {
            std::vector<TuningTotals> totals(
                kTuningVariantCount,
                TuningTotals(per_round * rounds, pacer::Config{}.stats.off_tolerance_ns));
            for (int round = 0; round < rounds; ++round) {
                progress("tuning " + condition + " " + pacer::number_text(hz) + " Hz round " +
                         std::to_string(round + 1) + "/" + std::to_string(rounds));
                for (std::size_t k = 0; k < kTuningVariantCount; ++k) {
                    const std::size_t v = (static_cast<std::size_t>(round) + k) % kTuningVariantCount;
                    const TuningVariant& variant = kTuningVariants[v];
                    pacer::Config config = base_config(options, pacer::Strategy::Timer);
                    config.target_hz = hz;
                    config.stats.history_frames = per_round;
                    config.tuning.wait.timer_slack_ns = variant.slack_ns;
                    config.tuning.wait.sched_slice_ns = variant.slice_ns;
                    config.tuning.timer.margin_quantile = variant.quantile;
                    pacer::Pacer pacer(config);
                    const Measurement m = measure(pacer, frame_work_ns(options, condition, hz),
                                                  kTuningWarmupFrames, warmup_s, per_round);
                    totals[v].add(pacer.stats(), m);
                }
            }
            print_tuning_table(condition, hz, totals);
            add_tuning_csv(csv, condition, hz, rounds, totals);
            std::cout.flush();
        }
    }
}

}  // namespace bench
