// pacer-bench: the seed articles' experiments, every strategy side by side in
// the same run, on this machine. See --help (its footer documents the CSVs).
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include "cli/checks.h"
#include <pacer/pacer.h>
#include <pacer/platform.h>
#include <pacer/status.h>
#include <pacer/thread_timing.h>

#include "experiments.h"
#include "machine_load.h"
#include "report.h"
#include "tradeoff.h"

namespace {

const char* const kCsvHelp = R"(
CSV files (one row per measurement, times in microseconds unless the column says otherwise):
  --csv FILE        experiment 1 (accuracy), columns:
      condition,strategy,hz,frames            idle|contention|work|loaded, strategy name, target rate, measured frames
      wake_mean_us,wake_sd_us,wake_p50_us,wake_p95_us,wake_p99_us,wake_max_us
                                              wake lateness after the deadline (early clamped to 0)
      interval_sd_us                          sigma of the frame intervals
      interval_p99_us,interval_max_us         p99 and max of |interval - period|
      off_pct                                 % of intervals off by more than 0.5 ms
      cpu_pct                                 waiting thread's CPU time / wall time, % of one core
      spin_pct                                spin time / wall time, % of one core
      interval_mean_us,missed,fps             mean interval, grid points skipped, frames per second
      timer_margin_us                         timer's final margin (timer and auto rows)
      precise_estimate_us                     precise_sleep's final estimate of a 1 ms sleep
      other_cpu_pct                           CPU used by other programs during the run, % of one
                                              core (Linux /proc; empty where unknown)
      runq_wait_us                            time the waiting thread was runnable but not
                                              running, per frame (Linux schedstat; empty where unknown)
      contended_pct                           % of frames the timer counted as contended
      steal_pct                               the machine's steal during the run (time the host ran
                                              something else while this VM's CPUs were ready), %
                                              of one core summed over CPUs (up to 100 per CPU;
                                              Linux /proc/stat; empty where unknown)
      wake_on_time_pct                        % of frames woken at most 10 us late (the goals'
                                              bound; a minimum lateness would say little: a spin
                                              tail makes it about 0 for every strategy but sleep)
  --csv-dir DIR     every experiment run: DIR/accuracy.csv (as above), and
    sleep.csv    strategy,requested_us,reps,actual_mean_us,actual_sd_us,actual_p50_us,
                 actual_p99_us,actual_max_us,over_mean_us (actual - requested),cpu_pct,spin_pct
    cpu.csv      strategy,interval_ms,frames,cpu_pct,spin_pct,wake_p50_us,wake_p99_us,off_pct
    heatmap.csv  strategy,period_ms,interval_ms,reps,rel_err_mean_pct,rel_err_p50_pct,
                 rel_err_p99_pct,rel_err_max_pct (100 * (actual - requested) / requested),
                 cpu_pct,spin_pct,preemptions (extra ticks added),preempt_probability
    tuning.csv   condition,hz,variant (own|slack|slack_slice_q95|slack_slice_q99|slack_slice_q998),
                 wait_timer_slack_ns,wait_sched_slice_ns (-1: the thread's own),
                 timer_margin_quantile,rounds,frames (merged over the rounds),wake_mean_us,
                 wake_p50_us,wake_p95_us,wake_p99_us,wake_max_us,wake_on_time_pct,off_pct,
                 cpu_pct,spin_pct,timer_margin_us (final, median over rounds),contended_pct,
                 steal_pct (as in accuracy.csv)
    tradeoff.csv condition,hz,variant,kind (adaptive|fixed|floor|seed|peer|candidate),
                 margin_us (fixed margins),round (1..N, or "pooled": CPU the median of the
                 rounds, p99 and off over all their frames),frames,
                 cpu_pct,wake_p50_us,wake_p99_us,wake_max_us,off_pct,missed,final_margin_us
                 (adaptive),contended_pct,other_cpu_pct,steal_pct,load1 (1-minute load average
                 when the round started),spin_stall_pct,sleep_cpu_us (the library's timer:
                 WaitStatus::timer_spin_stall_share and timer_sleep_cpu_ns at the run's end)
Every statistic comes from the library (pacer::Stats::summarize, pacer::percentiles).
Experiments 2-4 run idle; 5 (tuning) runs idle, contention and loaded; 6 (tradeoff, not in the
default set) runs idle, contention and partial at 60, 144 and 240 Hz. vsync is not measured:
it needs a display (a Host); auto without a Host acts as timer. Progress lines go to
stderr; the report goes to stdout.)";

// "a,b,c".
std::string join(const std::vector<std::string>& names) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ",") + n;
    return list;
}

// Every number on the command line goes through cli/checks.h.
using pacer_cli::not_zero;
using pacer_cli::number_in;
using pacer_cli::clipped;
using pacer_cli::whole_in;

// A CLI11 validator that accepts a name from `names` or its 1-based index
// and rewrites the value to the name.
CLI::Validator one_of(std::vector<std::string> names, const std::string& what) {
    const std::string list = join(names);
    return CLI::Validator(
        [names, what, list](std::string& value) -> std::string {
            for (std::size_t i = 0; i < names.size(); ++i) {
                if (value == names[i] || value == std::to_string(i + 1)) {
                    value = names[i];
                    return {};
                }
            }
            return "unknown " + what + " '" + clipped(value) + "' (one of " + list + ")";
        },
        "{" + list + "}");
}

CLI::Validator strategy_check() {
    return CLI::Validator(
        [](std::string& value) -> std::string {
            pacer::Strategy strategy{};
            if (!pacer::parse_strategy(value, &strategy))
                return "unknown strategy '" + clipped(value) +
                       "' (one of sleep,spin,precise_sleep,robust_sleep,timer,auto)";
            if (strategy == pacer::Strategy::Vsync || strategy == pacer::Strategy::DisplayLock)
                return value + " needs a display (a Host) and the bench has none";
            return {};
        },
        "STRATEGY");
}

// "--hz: 1000 given twice", or "" when no value repeats (a list asks for
// each run once; a repeat would run it and print its rows twice).
template <typename T>
std::string repeated(const char* flag, const std::vector<T>& values) {
    for (std::size_t i = 0; i < values.size(); ++i)
        for (std::size_t k = 0; k < i; ++k)
            if (values[k] == values[i]) {
                std::ostringstream text;
                text << flag << ": " << values[i] << " given twice";
                return text.str();
            }
    return {};
}

// "12.3 %", or "unknown" for a negative value (where /proc/stat is missing).
std::string percent_or_unknown(double pct) {
    return pct < 0 ? std::string("unknown") : bench::fixed(pct, 1) + " %";
}

// One line on stderr, without CLI11's multi-line hints.
int fail(const std::string& message) {
    std::string line = message;
    for (char& c : line)
        if (c == '\n') c = ' ';
    std::cerr << "pacer-bench: " << line << '\n';
    return 2;
}

// The command line as given, before the defaults that depend on it.
struct Args {
    bench::Options options;
    std::vector<std::string> strategy_names;
    std::string csv_path, csv_dir;
    int tuning_rounds = 0;
    int64_t timer_slack_ns = 0;
    int64_t sched_slice_ns = 0;
    double run_s = 0;
    double settle_s = -1;
    std::vector<std::string> given;   // the flags whose defaults depend on being given
    bool was_given(const char* flag) const { return std::find(given.begin(), given.end(), flag) != given.end(); }
};

// Where the results go, all opened before anything is measured.
struct Outputs {
    bench::CsvSet csv;
    bench::CsvFile dir_accuracy;   // --csv-dir's copy when --csv is also given
};

// Reads the command line. -1 to go on, else the exit code (help, or a bad flag).
// The OS's and the library's wait settings the bench may set.
void add_tuning_flags(CLI::App& app, Args& args) {
    app.add_option("--timer-slack-ns", args.timer_slack_ns,
                   "set the bench thread's timer slack through pacer::ThreadTiming (Linux; "
                   "default: leave the OS's, usually 50000; at most 100 ms, past which every "
                   "sleep may overshoot by that much)")
        ->check(whole_in(int64_t{1}, int64_t{100'000'000}));
    app.add_option("--sched-slice-ns", args.sched_slice_ns,
                   "ask for this EEVDF scheduler slice for the bench thread through "
                   "pacer::ThreadTiming (Linux >= 6.12; default: leave)")
        ->check(whole_in(int64_t{100'000}, int64_t{100'000'000}));
    app.add_option("--wait-slack-ns", args.options.wait_timer_slack_ns,
                   "Config::tuning.wait.timer_slack_ns: the timer slack each timer wait runs with "
                   "(Linux; default: the library's, 1 ns; -1: leave the thread's)")
        ->check(whole_in(int64_t{-1}, int64_t{100'000'000}))
        ->check(not_zero());
    app.add_option("--wait-slice-ns", args.options.wait_sched_slice_ns,
                   "Config::tuning.wait.sched_slice_ns: the EEVDF slice each timer wait runs with "
                   "(Linux >= 6.12; default: the library's, 100000; -1: leave the thread's)")
        ->check(whole_in(int64_t{-1}, int64_t{100'000'000}))
        ->check(not_zero());
    app.add_option("--timer-quantile", args.options.timer_quantile,
                   "Config::tuning.timer.margin_quantile for timer and auto (default: the library's)")
        ->check(number_in(0.0, 1.0))
        ->check(not_zero());
    app.add_option("--timer-min-margin-ns", args.options.timer_min_margin_ns,
                   "Config::tuning.timer.min_margin_ns for timer and auto (default: the library's)")
        ->check(whole_in(int64_t{1}, int64_t{1'000'000'000}));
    app.add_option("--timer-max-margin-ns", args.options.timer_max_margin_ns,
                   "Config::tuning.timer.max_margin_ns for timer and auto (default: the library's)")
        ->check(whole_in(int64_t{1}, int64_t{1'000'000'000}));
}

int parse(int argc, char** argv, Args& args) {
    CLI::App app{"pacer-bench: frame-pacing strategies measured side by side on this machine."};
    app.footer(kCsvHelp);
    app.add_flag("--quick", args.options.quick,
                 "short run (under 2 minutes): fewer frames and repetitions");
    app.add_option("--experiments", args.options.experiments,
                   "experiments to run, by name or number (default: accuracy,sleep,cpu,heatmap,"
                   "tuning; tradeoff, the precise-sleep verdict run, only when named)")
        ->delimiter(',')
        ->transform(one_of({"accuracy", "sleep", "cpu", "heatmap", "tuning", "tradeoff"}, "experiment"));
    app.add_option("--conditions", args.options.conditions,
                   "accuracy conditions (default: all): idle; contention (busy threads); "
                   "work (CPU work per frame); loaded (busy threads, and a quarter of the "
                   "period of CPU work per frame); partial (one busy thread fewer than "
                   "--threads, at least one). tuning runs all but work; tradeoff runs idle, "
                   "contention and partial, and loaded when named")
        ->delimiter(',')
        ->transform(one_of({"idle", "contention", "work", "loaded", "partial"}, "condition"));
    app.add_option("--hz", args.options.hz,
                   "target rates in Hz (default: accuracy 60,144,240,1000; tuning 60,144)")
        ->delimiter(',')
        ->check(number_in(0.01, 10000, " Hz"));
    app.add_option("--strategies", args.strategy_names,
                   "strategies (default: sleep,spin,precise_sleep,robust_sleep,timer,auto)")
        ->delimiter(',')
        ->check(strategy_check());
    app.add_option("--frames", args.options.frames,
                   "measured frames per accuracy run, and per tuning variant over all its "
                   "rounds (default: 600; quick: 200)")
        ->check(whole_in(10, 10'000'000));
    app.add_option("--warmup-s", args.options.warmup_s,
                   "unmeasured warm-up before each accuracy run, seconds (default: 0.25; "
                   "quick: 0.05)")
        ->check(number_in(0.0, 60.0));
    app.add_option("--threads", args.options.threads,
                   "busy background threads for 'contention' (default: one per logical CPU)")
        ->check(whole_in(1, 1024));
    app.add_option("--work-ms", args.options.work_ms, "CPU work per frame for 'work' (default: 4)")
        ->check(number_in(0.0, 1000.0));
    add_tuning_flags(app, args);
    app.add_option("--rounds", args.tuning_rounds,
                   "tuning and tradeoff: interleaved rounds, each running every variant "
                   "(default: tuning 5, tradeoff 3; quick: 2 and 3)")
        ->check(whole_in(1, 100));
    app.add_option("--run-s", args.run_s,
                   "tradeoff: measured seconds per run, after 0.25 s of warm-up (default: 2; "
                   "quick: 0.2)")
        ->check(number_in(0.05, 600.0));
    app.add_option("--settle-s", args.settle_s,
                   "tradeoff: before the first cell, wait up to this long for other programs to "
                   "use under 2 % of a core over a second; 0 starts at once (default: 10; quick: 0)")
        ->check(number_in(0.0, 600.0));
    app.add_flag("--candidates", args.options.tradeoff_candidates,
                 "tradeoff: also run the candidate margin estimators the default was chosen from");
    app.add_option("--variants", args.options.tradeoff_variants,
                   "tradeoff: the variants to run, by CSV name, timer among them (default: all; "
                   "names: " + join(bench::tradeoff_variant_keys(true)) + ")")
        ->delimiter(',');
    app.add_option("--preempt", args.options.preempt_probability,
                   "heatmap: probability of an extra simulated tick per sleep (default: 0.05, "
                   "as in the 2020 article)")
        ->check(number_in(0.0, 0.99));
    app.add_option("--seed", args.options.seed, "heatmap: random seed, [0, 2^63 - 1] (default: 1)")
        ->check(whole_in(0, INT64_MAX));
    // An empty path would be taken for "not given"; say so instead.
    const CLI::Validator non_empty(
        [](std::string& value) -> std::string { return value.empty() ? "empty path" : ""; }, "PATH");
    app.add_option("--csv", args.csv_path,
                   "write experiment 1's CSV to FILE (a regular file or new; replaced only "
                   "when the run succeeds)")
        ->check(non_empty);
    app.add_option("--csv-dir", args.csv_dir, "write all experiments' CSVs into DIR (created if missing)")
        ->check(non_empty);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        return fail(e.what());
    }
    for (const char* flag : {"--conditions", "--frames", "--warmup-s", "--threads", "--work-ms", "--preempt"})
        if (app.count(flag) > 0) args.given.push_back(flag);
    for (const std::string& problem :
         {repeated("--experiments", args.options.experiments), repeated("--conditions", args.options.conditions),
          repeated("--hz", args.options.hz), repeated("--strategies", args.strategy_names),
          repeated("--variants", args.options.tradeoff_variants)})
        if (!problem.empty()) return fail(problem);
    return -1;
}

// The flag that set the library field a validate() line names first.
std::string flag_of_field(const std::string& problem) {
    static const std::pair<const char*, const char*> kFlags[] = {
        {"target_hz", "--hz"},
        {"stats.history_frames", "--frames"},
        {"tuning.timer.margin_quantile", "--timer-quantile"},
        {"tuning.timer.min_margin_ns", "--timer-min-margin-ns"},
        {"tuning.timer.max_margin_ns", "--timer-max-margin-ns"},
        {"tuning.timer.margin_ns", "--timer-min-margin-ns/--timer-max-margin-ns"},
        {"tuning.wait.timer_slack_ns", "--wait-slack-ns"},
        {"tuning.wait.sched_slice_ns", "--wait-slice-ns"},
    };
    const std::string field = problem.substr(0, problem.find(':'));
    for (const auto& [name, flag] : kFlags)
        if (field == name) return flag;
    return "the flags";
}

// Fills in the defaults that depend on --quick and on what was given, and
// checks what the flags' own checks cannot. "" or one line naming the flag.
std::string resolve(Args& args) {
    const bool quick = args.options.quick;
    if (args.options.experiments.empty())
        args.options.experiments = {"accuracy", "sleep", "cpu", "heatmap", "tuning"};
    if (args.options.conditions.empty()) args.options.conditions = {"idle", "contention", "work", "loaded"};
    for (const std::string& condition : args.options.conditions)
        if (condition != "work") args.options.tuning_conditions.push_back(condition);
    args.options.tuning_hz = args.options.hz.empty() ? std::vector<double>{60, 144} : args.options.hz;
    args.options.tradeoff_hz = args.options.hz;   // empty: the cells' own rates
    if (args.options.hz.empty()) args.options.hz = {60, 144, 240, 1000};
    args.options.tuning_rounds = args.tuning_rounds > 0 ? args.tuning_rounds : quick ? 2 : 5;
    args.options.tradeoff_rounds = args.tuning_rounds > 0 ? args.tuning_rounds : 3;
    args.options.tradeoff_run_s = args.run_s > 0 ? args.run_s : quick ? 0.2 : 2.0;
    args.options.tradeoff_warmup_s = quick ? 0.05 : 0.25;
    args.options.tradeoff_settle_s = args.settle_s >= 0 ? args.settle_s : quick ? 0 : 10;
    if (args.was_given("--conditions"))
        for (const std::string& condition : args.options.conditions)
            if (condition == "idle" || condition == "contention" || condition == "partial" ||
                condition == "loaded")
                args.options.tradeoff_conditions.push_back(condition);
    if (args.strategy_names.empty())
        args.strategy_names = {"sleep", "spin", "precise_sleep", "robust_sleep", "timer", "auto"};
    for (const std::string& name : args.strategy_names) {
        pacer::Strategy strategy{};
        pacer::parse_strategy(name, &strategy);   // checked by strategy_check()
        args.options.strategies.push_back(strategy);
    }
    // 200: p99 is not the max (nearest rank 198 of 199 intervals).
    if (!args.was_given("--frames")) args.options.frames = quick ? 200 : 600;
    if (!args.was_given("--warmup-s")) args.options.warmup_s = quick ? 0.05 : 0.25;
    if (!args.was_given("--threads"))
        args.options.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    if (!args.was_given("--work-ms")) args.options.work_ms = 4;
    if (!args.was_given("--preempt")) args.options.preempt_probability = 0.05;
    args.options.sleep_budget_s = quick ? 0.3 : 2.0;
    args.options.cpu_seconds = quick ? 0.08 : 0.5;
    args.options.heatmap_reps = quick ? 2 : 10;

    // The library checks its own config; report its line under our flag names.
    for (double hz : args.options.hz) {
        pacer::Config probe = bench::base_config(args.options, pacer::Strategy::Timer);
        probe.target_hz = hz;
        probe.stats.history_frames = args.options.frames;
        const std::string problem = pacer::validate(probe);
        if (!problem.empty()) return flag_of_field(problem) + ": " + problem;
    }

    return {};
}

// Opens every output, so a bad path fails before anything is measured.
std::string open_outputs(const Args& args, Outputs& out) {
    auto has = [&](const char* name) {
        return std::find(args.options.experiments.begin(), args.options.experiments.end(), name) !=
               args.options.experiments.end();
    };
    if (has("tuning") && args.options.tuning_conditions.empty())
        return "--conditions: tuning runs idle, contention and loaded, and none is selected";
    if (has("tradeoff") && args.was_given("--conditions") && args.options.tradeoff_conditions.empty())
        return "--conditions: tradeoff runs idle, contention, partial and loaded, and none is selected";
    if (has("tradeoff") && !args.options.tradeoff_hz.empty() &&
        std::none_of(args.options.tradeoff_hz.begin(), args.options.tradeoff_hz.end(),
                     [](double hz) { return hz == 60 || hz == 144 || hz == 240; }))
        return "--hz: tradeoff's cells are at 60, 144 and 240 Hz, and none is selected";
    if (!args.options.tradeoff_variants.empty()) {
        if (!has("tradeoff")) return "--variants: picks tradeoff's variants, and tradeoff is not selected";
        const std::vector<std::string> known = bench::tradeoff_variant_keys(args.options.tradeoff_candidates);
        for (const std::string& key : args.options.tradeoff_variants)
            if (std::find(known.begin(), known.end(), key) == known.end())
                return "--variants: no variant '" + clipped(key) + "' (one of " + join(known) +
                       (args.options.tradeoff_candidates ? "" : "; the cand_* ones need --candidates") + ")";
        if (std::find(known.begin(), known.end(), "timer") != known.end() &&
            std::find(args.options.tradeoff_variants.begin(), args.options.tradeoff_variants.end(), "timer") ==
                args.options.tradeoff_variants.end())
            return "--variants: timer is missing (every verdict is about it)";
    }
    if (!args.csv_path.empty()) {
        if (!has("accuracy")) return "--csv: holds experiment 1 (accuracy), which is not selected";
        const std::string problem = out.csv.accuracy.open(args.csv_path, bench::kAccuracyColumns);
        if (!problem.empty()) return "--csv: " + problem;
    }
    if (!args.csv_dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(args.csv_dir, ec);
        if (ec) return "--csv-dir: " + args.csv_dir + ": " + ec.message();
        const std::filesystem::path dir(args.csv_dir);
        struct Wanted { const char* experiment; bench::CsvFile* file; const char* columns; };
        const Wanted wanted[] = {
            {"accuracy", args.csv_path.empty() ? &out.csv.accuracy : &out.dir_accuracy, bench::kAccuracyColumns},
            {"sleep", &out.csv.sleep, bench::kSleepColumns},
            {"cpu", &out.csv.cpu, bench::kCpuColumns},
            {"heatmap", &out.csv.heatmap, bench::kHeatmapColumns},
            {"tuning", &out.csv.tuning, bench::kTuningColumns},
            {"tradeoff", &out.csv.tradeoff, bench::kTradeoffColumns},
        };
        for (const Wanted& w : wanted) {
            if (!has(w.experiment)) continue;
            const std::string path = (dir / (std::string(w.experiment) + ".csv")).string();
            const std::string problem = w.file->open(path, w.columns);
            if (!problem.empty()) return "--csv-dir: " + problem;
        }
    }

    return {};
}

// The report's header: the machine, the waiting thread's timing, the run.
void print_header(const Args& args, const pacer::ThreadTiming::Report& timing_report) {
    pacer::OsSleeper sleeper;
    std::cout << "# pacer-bench\n\n"
              << "- date: " << bench::utc_now() << "\n"
              << "- machine: " << bench::machine_line() << "\n"
              << "- OS sleeper: " << sleeper.describe()
              << (sleeper.has_high_res_timer() ? " (high-resolution timer)" : " (no high-resolution timer)")
              << ", stated scheduler period "
              << bench::fixed(static_cast<double>(sleeper.scheduler_period_ns()) / 1e6, 3)
              << " ms\n"
              << "- timer slack of the waiting thread: "
              << (timing_report.timer_slack_supported
                      ? std::to_string(timing_report.timer_slack_ns) + " ns" +
                            (args.timer_slack_ns > 0 ? " (set by --timer-slack-ns)" : " (OS default)")
                      : std::string("not supported here"))
              << "\n"
              << "- scheduler slice of the waiting thread: "
              << (timing_report.sched_supported
                      ? std::to_string(timing_report.sched_slice_ns) + " ns" +
                            (args.sched_slice_ns > 0 ? " (set by --sched-slice-ns)" : " (OS default)")
                      : std::string("not supported here"))
              << (timing_report.refused.empty() ? std::string() : "; refused: " + timing_report.refused)
              << "\n"
              << "- run: " << (args.options.quick ? "quick" : "full") << "; strategies:";
    for (pacer::Strategy s : args.options.strategies) std::cout << ' ' << pacer::strategy_name(s);
    auto or_default = [](double value, const std::string& text) {
        return value > 0 ? text : std::string("default");
    };
    std::cout << "; timer margin quantile "
              << or_default(args.options.timer_quantile, bench::fixed(args.options.timer_quantile, 4))
              << ", min margin "
              << or_default(static_cast<double>(args.options.timer_min_margin_ns),
                            std::to_string(args.options.timer_min_margin_ns) + " ns")
              << ", max margin "
              << or_default(static_cast<double>(args.options.timer_max_margin_ns),
                            std::to_string(args.options.timer_max_margin_ns) + " ns")
              << "\n"
              << "- load average at start: " << bench::load_average() << "\n"
              << "- CPU steal (the host running something else while this machine's CPUs were "
                 "ready; % of one core, summed over CPUs): "
              << percent_or_unknown(bench::steal_since_boot_pct())
              << " since boot; over the bench: see the end\n"
              << "- vsync, display_lock: not measured, there is no display here (they need a Host that "
                 "swaps, and display_lock one that reports shown frames); auto has no Host, so it acts as timer\n";
    std::cout.flush();

}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (const int code = parse(argc, argv, args); code >= 0) return code;
    if (const std::string problem = resolve(args); !problem.empty()) return fail(problem);
    Outputs out;
    if (const std::string problem = open_outputs(args, out); !problem.empty()) return fail(problem);

    // Timer slack is per thread: the request covers this (the waiting) thread.
    pacer::ThreadTiming::Request timing_request{};
    timing_request.timer_slack_ns = args.timer_slack_ns;
    timing_request.sched_slice_ns = args.sched_slice_ns;
    pacer::ThreadTiming timing(timing_request);
    print_header(args, timing.report());

    const auto start = std::chrono::steady_clock::now();
    const bench::CpuTicks ticks_start = bench::read_cpu_ticks();
    // The experiments' tables are held back and printed after the summary
    // (progress goes to stderr meanwhile).
    std::ostringstream details;
    std::streambuf* const stdout_buffer = std::cout.rdbuf(details.rdbuf());
    struct RestoreStdout {
        std::streambuf* buffer;
        ~RestoreStdout() { std::cout.rdbuf(buffer); }
    } restore{stdout_buffer};
    std::vector<bench::AccuracyResult> accuracy;
    try {
        for (const std::string& experiment : args.options.experiments) {
            if (experiment == "accuracy") {
                bench::run_accuracy(args.options, out.csv.accuracy, &accuracy);
                // --csv and --csv-dir both given: the same rows go to both files.
                if (out.dir_accuracy.is_open()) out.dir_accuracy.copy_rows(out.csv.accuracy);
            } else if (experiment == "sleep") {
                bench::run_sleep(args.options, out.csv.sleep);
            } else if (experiment == "cpu") {
                bench::run_cpu(args.options, out.csv.cpu);
            } else if (experiment == "heatmap") {
                bench::run_heatmap(args.options, out.csv.heatmap);
            } else if (experiment == "tuning") {
                bench::run_tuning(args.options, out.csv.tuning);
            } else if (experiment == "tradeoff") {
                bench::run_tradeoff(args.options, out.csv.tradeoff);
            }
        }
    } catch (const std::exception& e) {
        std::cout.rdbuf(stdout_buffer);
        std::cout << details.str();
        return fail(std::string("error while measuring: ") + e.what());
    }
    std::cout.rdbuf(stdout_buffer);
    if (!accuracy.empty()) bench::print_accuracy_summary(accuracy, std::cout);
    std::cout << details.str();
    const double elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double steal_pct = bench::steal_pct(ticks_start, bench::read_cpu_ticks());
    std::cout << "\nMeasured in " << bench::fixed(elapsed_s, 1)
              << " s; load average at the end: " << bench::load_average()
              << "; CPU steal over the bench: " << percent_or_unknown(steal_pct)
              << " of one core (summed over CPUs).\n";

    for (bench::CsvFile* file : {&out.csv.accuracy, &out.dir_accuracy, &out.csv.sleep, &out.csv.cpu, &out.csv.heatmap,
                                 &out.csv.tuning, &out.csv.tradeoff}) {
        if (const std::string problem = file->finish(); !problem.empty()) return fail(problem);
    }
    return 0;
}
