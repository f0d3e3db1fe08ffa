// experiments.h: the experiments of pacer-bench. Each runs every chosen
// strategy in the same process, one after the other, prints its markdown
// tables to stdout, and adds rows to its CSV when one is open. Progress goes
// to stderr so stdout stays a clean report.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <pacer/pacer.h>

#include "report.h"

namespace bench {

struct Options {
    bool quick = false;
    std::vector<std::string> experiments;   // accuracy, sleep, cpu, heatmap, tuning, tradeoff
    std::vector<std::string> conditions;    // idle, contention, partial, work, loaded
    std::vector<double> hz;
    std::vector<pacer::Strategy> strategies;
    int frames = 0;                  // measured frames per accuracy run
    double warmup_s = 0;             // unmeasured frames before each accuracy run
    int threads = 0;                 // busy threads in "contention"
    double work_ms = 0;              // in-frame work in "work"
    double timer_quantile = 0;       // Config::tuning.timer.margin_quantile (0: library default)
    int64_t timer_min_margin_ns = 0; // Config::tuning.timer.min_margin_ns (0: library default)
    int64_t timer_max_margin_ns = 0; // Config::tuning.timer.max_margin_ns (0: library default)
    int64_t wait_timer_slack_ns = 0; // Config::tuning.wait.timer_slack_ns (0: library default, -1: leave)
    int64_t wait_sched_slice_ns = 0; // Config::tuning.wait.sched_slice_ns (0: library default, -1: leave)
    double preempt_probability = 0;  // heatmap: SimulatedSchedulerConfig::preempt_probability
    uint64_t seed = 1;               // heatmap: simulated scheduler and wake phases
    double sleep_budget_s = 0;       // sleep: time per requested duration (bounds repetitions)
    double cpu_seconds = 0;          // cpu: time per requested interval
    int heatmap_reps = 0;            // heatmap: waits per cell
    std::vector<std::string> tuning_conditions;   // tuning: idle and/or contention
    std::vector<double> tuning_hz;                // tuning: rates
    int tuning_rounds = 0;                        // tuning: interleaved rounds
    std::vector<std::string> tradeoff_conditions; // tradeoff: idle, contention, partial (empty: all)
    std::vector<double> tradeoff_hz;              // tradeoff: rates (empty: its cells' own)
    int tradeoff_rounds = 0;                      // tradeoff: interleaved rounds
    double tradeoff_run_s = 0;                    // tradeoff: measured seconds per run
    double tradeoff_warmup_s = 0;                 // tradeoff: unmeasured seconds before each run
    double tradeoff_settle_s = 0;                 // tradeoff: at most this long for a quiet machine first
    bool tradeoff_candidates = false;             // tradeoff: add the candidate estimators
    std::vector<std::string> tradeoff_variants;   // tradeoff: the variants run (empty: all); timer among them
};

// The Config every experiment starts from: the strategy, and the --timer-*
// and --wait-* flags (zeros keep the library's defaults), with the starting
// margin kept inside a narrowed [min, max].
pacer::Config base_config(const Options& options, pacer::Strategy strategy);

// The CSVs; each one is written only when opened.
struct CsvSet {
    CsvFile accuracy, sleep, cpu, heatmap, tuning, tradeoff;
};

// CSV headers (the columns are documented in main.cpp's --help footer).
extern const char* const kAccuracyColumns;
extern const char* const kSleepColumns;
extern const char* const kCpuColumns;
extern const char* const kHeatmapColumns;
extern const char* const kTuningColumns;

// What the summary table shows of one accuracy run.
struct AccuracyResult {
    std::string condition;
    double hz;
    pacer::Strategy strategy;
    double off_pct;       // intervals off by more than 0.5 ms
    double cpu_pct;       // the waiting thread's CPU, % of a core (-1 unknown)
    double wake_p99_us;   // wake lateness
};

// Experiment 1: a real Pacer per (condition, hz, strategy). Ends with a table
// checking the library issue's performance goals for timer and auto. Appends
// each run's figures to *results.
void run_accuracy(const Options& options, CsvFile& csv, std::vector<AccuracyResult>* results);
// The summary of experiment 1, at most 120 characters wide: a row per
// strategy and rate, a column per condition ("off % / CPU %").
void print_accuracy_summary(const std::vector<AccuracyResult>& results, std::ostream& out);
// Experiment 2: requested versus actual sleep, 1 us to 1 s in decades.
void run_sleep(const Options& options, CsvFile& csv);
// Experiment 3: CPU use versus requested interval, 1 to 25 ms.
void run_cpu(const Options& options, CsvFile& csv);
// Experiment 4: relative error on simulated scheduler periods.
void run_heatmap(const Options& options, CsvFile& csv);
// Experiment 5: the timer's wait settings and margin quantile compared in
// interleaved rounds, idle and under contention.
void run_tuning(const Options& options, CsvFile& csv);

}  // namespace bench
