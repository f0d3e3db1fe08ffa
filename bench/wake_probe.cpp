// pacer-wake-probe: why a sleeping wait loses frames beside busy threads.
//
// Each variant waits for the deadlines of an absolute grid with the same
// three steps: sleeps of `step` while more than a step is left before
// `deadline - gap`, one sleep to `deadline - gap`, and a spin to the deadline.
// step 0 is one sleep; gap 0 is no spin. Every sleep is timed against the
// thread's schedstat (/proc/thread-self/schedstat), so a late frame says
// whether the time went to the timer, to the run queue after the timer fired
// (the woken thread waited for a CPU), or to a preemption during the spin.
// library_timer is the library's timer strategy itself (pacer::Waiter), with
// no breakdown. Variants run interleaved, in rounds, beside one busy thread
// per CPU; the figures are pooled over the rounds (docs/under-load.md has what
// they showed). The schedstat reads (two a sleep) are in the CPU figures;
// --bare leaves them out (and the breakdown with them): the CPU is then the
// thread's CLOCK_THREAD_CPUTIME_ID over the run and nothing else, the bare
// measurement that pacer-bench's trade-off figures are checked against.
#include "machine_load.h"
#include "os.h"
#include "peers.h"
#include "plain_waits.h"
#include "waiter.h"

#include <CLI/CLI.hpp>
#include "cli/checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fcntl.h>
#include <iostream>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

// One line of /proc/thread-self/schedstat: on-CPU time, run-queue wait, and
// the number of times the thread was put on a CPU.
struct Schedstat {
    int64_t on_cpu_ns = 0, runqueue_ns = 0, slices = 0;
};

// Off (--bare): no reads at all, so the CPU figures are the waits' alone.
class SchedstatReader {
public:
    explicit SchedstatReader(bool on) : fd_(on ? open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC) : -1) {}
    ~SchedstatReader() {
        if (fd_ >= 0) close(fd_);
    }
    bool ok() const { return fd_ >= 0; }
    Schedstat read() const {
        if (fd_ < 0) return {};
        char text[128];
        const ssize_t n = pread(fd_, text, sizeof text - 1, 0);
        Schedstat s;
        if (n <= 0) return s;
        text[n] = '\0';
        long long a = 0, b = 0, c = 0;
        if (std::sscanf(text, "%lld %lld %lld", &a, &b, &c) == 3) s = {a, b, c};
        return s;
    }

private:
    int fd_;
};

struct Variant {
    std::string name;
    int64_t step_ns;   // 0: one sleep
    int64_t gap_ns;    // the spin before the deadline; 0: none
    bool sdl3;         // SDL3's SDL_DelayPrecise instead (peers.h: relative sleeps, per-call gap)
    bool fine;         // slack 1 ns and slice 100 us, as the library's timer waits; else the thread's own
    bool library = false;   // the library's timer itself (pacer::Waiter); no breakdown
};

std::vector<Variant> all_variants() {
    constexpr int64_t us = 1000;
    return {
        {"one_sleep", 0, 0, false, false},
        {"one_sleep_fine", 0, 0, false, true},
        {"step_250us", 250 * us, 0, false, false},
        {"step_500us", 500 * us, 0, false, false},
        {"step_1ms", 1000 * us, 0, false, false},
        {"step_2ms", 2000 * us, 0, false, false},
        {"step_250us_fine", 250 * us, 0, false, true},
        {"step_500us_fine", 500 * us, 0, false, true},
        {"step_1ms_fine", 1000 * us, 0, false, true},
        {"step_2ms_fine", 2000 * us, 0, false, true},
        {"gap_100us", 0, 100 * us, false, false},
        {"gap_500us", 0, 500 * us, false, false},
        {"gap_100us_fine", 0, 100 * us, false, true},
        {"step_1ms_gap_100us", 1000 * us, 100 * us, false, false},
        {"step_1ms_gap_500us", 1000 * us, 500 * us, false, false},
        {"step_1ms_gap_100us_fine", 1000 * us, 100 * us, false, true},
        {"sdl3", 0, 0, true, false},
        {"library_timer", 0, 0, false, false, true},
    };
}

// Pooled per-frame figures of one variant.
struct Pool {
    std::vector<double> late_us;   // wake - deadline, early as 0
    int off = 0, intervals = 0;    // intervals more than 0.5 ms off the period
    int64_t sleeps = 0, slices = 0;
    int late_frames = 0;           // wakes over 0.5 ms late
    double late_timer_us = 0, late_queue_us = 0, late_spin_us = 0;   // where a late frame's lateness went
    int64_t cpu_ns = 0, wall_ns = 0;
};

class Runner {
public:
    Runner(const Variant& v, const SchedstatReader& stat, double hz) : v_(v), stat_(stat) {
        if (!v.library) return;
        pacer::Config config;   // the library's defaults: slack 1 ns, slice 100 us during its waits
        config.strategy = pacer::Strategy::Timer;
        config.target_hz = hz;
        waiter_ = std::make_unique<pacer::Waiter>(config);
    }

    // Waits until deadline_ns; fills the frame's breakdown.
    void wait(int64_t deadline_ns) {
        sleeps = 0;
        last_sleep_queue_ns = timer_late_ns = spin_queue_ns = 0;
        if (waiter_) {
            waiter_->wait_until(deadline_ns);
            return;
        }
        if (v_.sdl3) {
            bench::peers::sdl3_sleeps(deadline_ns, pacer::os::now_ns, [this](int64_t ns) { sleep_for(ns); });
        } else {
            const int64_t target = deadline_ns - v_.gap_ns;
            if (v_.step_ns > 0)
                while (target - pacer::os::now_ns() > v_.step_ns) sleep_until(pacer::os::now_ns() + v_.step_ns);
            if (target > pacer::os::now_ns()) sleep_until(target);
        }
        const Schedstat before = stat_.read();
        while (pacer::os::now_ns() < deadline_ns) pacer::os::cpu_pause();
        spin_queue_ns = stat_.read().runqueue_ns - before.runqueue_ns;
    }

    // The last frame's breakdown.
    int sleeps = 0;
    int64_t last_sleep_queue_ns = 0;   // run-queue wait inside the last sleep (after its timer fired)
    int64_t timer_late_ns = 0;         // the last sleep's wake past its target, less that wait
    int64_t spin_queue_ns = 0;         // run-queue wait inside the spin

private:
    // The thread's own sleeps, each timed against schedstat.
    void sleep_until(int64_t target_ns) {
        const Schedstat before = stat_.read();
        bench::plain_sleep_until_ns(target_ns);
        note(before, pacer::os::now_ns() - target_ns);
    }
    void sleep_for(int64_t ns) {
        const Schedstat before = stat_.read();
        const int64_t start = pacer::os::now_ns();
        pacer::os::sleep_ns(ns);
        note(before, pacer::os::now_ns() - start - ns);
    }
    void note(const Schedstat& before, int64_t late_ns) {
        ++sleeps;
        last_sleep_queue_ns = stat_.read().runqueue_ns - before.runqueue_ns;
        timer_late_ns = std::max<int64_t>(0, late_ns - last_sleep_queue_ns);
    }
    const Variant& v_;
    const SchedstatReader& stat_;
    std::unique_ptr<pacer::Waiter> waiter_;
};

// Slack and slice as a Pacer's timer waits hold them, for the run; put back after.
class FineSettings {
public:
    explicit FineSettings(bool on) : on_(on) {
        if (!on_) return;
        pacer::os::timer_slack_get(&slack_);
        pacer::os::timer_slack_set(1);
        pacer::os::sched_get(0, &sched_);
        pacer::os::SchedSettings fine = sched_;
        fine.slice_ns = 100'000;
        pacer::os::sched_set(0, fine);
    }
    ~FineSettings() {
        if (!on_) return;
        pacer::os::timer_slack_set(slack_);
        pacer::os::sched_set(0, sched_);
    }

private:
    bool on_;
    int64_t slack_ = 50'000;
    pacer::os::SchedSettings sched_{};
};

void run(const Variant& v, const SchedstatReader& stat, double hz, double seconds, Pool& pool) {
    const FineSettings settings(v.fine);
    Runner runner(v, stat, hz);
    const double period_ns = 1e9 / hz;
    const int64_t origin = pacer::os::now_ns();
    const int64_t warm_end = origin + 250'000'000;
    const int64_t end = warm_end + static_cast<int64_t>(seconds * 1e9);
    int64_t k = 0, previous = -1;
    auto deadline = [&] { return origin + std::llround(static_cast<double>(k) * period_ns); };
    int64_t cpu0 = -1, wall0 = 0;
    while (true) {
        ++k;
        while (deadline() <= pacer::os::now_ns()) ++k;   // skip what is past, as a Pacer does
        const int64_t d = deadline();
        if (d >= end) break;
        const Schedstat s0 = stat.read();
        runner.wait(d);
        const int64_t wake = pacer::os::now_ns();
        if (d < warm_end) continue;
        if (cpu0 < 0) {
            cpu0 = pacer::os::thread_cpu_ns();
            wall0 = wake;
            previous = wake;
            continue;
        }
        const double late = static_cast<double>(std::max<int64_t>(0, wake - d));
        pool.late_us.push_back(late / 1e3);
        pool.off += std::fabs(static_cast<double>(wake - previous) - period_ns) > 500'000;
        ++pool.intervals;
        previous = wake;
        pool.sleeps += runner.sleeps;
        pool.slices += stat.read().slices - s0.slices;
        if (late > 500'000) {
            ++pool.late_frames;
            pool.late_timer_us += static_cast<double>(runner.timer_late_ns) / 1e3;
            pool.late_queue_us += static_cast<double>(runner.last_sleep_queue_ns) / 1e3;
            pool.late_spin_us += static_cast<double>(runner.spin_queue_ns) / 1e3;
        }
    }
    pool.cpu_ns += pacer::os::thread_cpu_ns() - cpu0;
    pool.wall_ns += pacer::os::now_ns() - wall0;
}

double quantile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1];
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"pacer-wake-probe: where a sleeping wait's late frames go beside busy threads (Linux)."};
    double hz = 144, seconds = 10;
    int rounds = 3, threads = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    std::vector<std::string> only;
    bool bare = false;
    app.add_option("--hz", hz, "grid rate")->check(pacer_cli::number_in(1.0, 2000.0, " Hz"))->capture_default_str();
    app.add_option("--run-s", seconds, "measured seconds per variant per round")
        ->check(pacer_cli::number_in(0.1, 600.0))
        ->capture_default_str();
    app.add_option("--rounds", rounds, "interleaved rounds")->check(pacer_cli::whole_in(1, 100))->capture_default_str();
    app.add_option("--threads", threads, "busy threads (default: one per CPU)")->check(pacer_cli::whole_in(0, 1024));
    app.add_option("--only", only, "variants to run, by name (default: all)")->delimiter(',');
    app.add_flag("--bare", bare, "no schedstat reads: CPU figures of the waits alone, no breakdown");
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {   // one line and 2, as pacer-bench
        std::cerr << "pacer-wake-probe: " << e.what() << " (see --help)\n";
        return 2;
    }

    std::vector<Variant> variants = all_variants();
    if (!only.empty()) {
        std::vector<Variant> picked;
        for (const std::string& name : only) {
            const auto it = std::find_if(variants.begin(), variants.end(), [&](const Variant& v) { return v.name == name; });
            if (it == variants.end()) {
                std::cerr << "pacer-wake-probe: --only: no variant '" << name.substr(0, 40) << "'\n";
                return 2;
            }
            picked.push_back(*it);
        }
        variants = picked;
    }
    const SchedstatReader stat(!bare);
    if (!bare && !stat.ok()) {
        std::cerr << "pacer-wake-probe: /proc/thread-self/schedstat cannot be read here\n";
        return 1;
    }
    std::vector<Pool> pools(variants.size());
    {
        const bench::Contention load(threads);
        for (int r = 0; r < rounds; ++r)
            for (std::size_t i = 0; i < variants.size(); ++i) {
                const std::size_t v = (i + static_cast<std::size_t>(r)) % variants.size();
                std::cerr << "round " << r + 1 << "/" << rounds << ": " << variants[v].name << "\n";
                run(variants[v], stat, hz, seconds, pools[v]);
            }
    }
    std::printf("%g Hz, %d busy threads on %ld CPUs, %d rounds of %g s a variant, pooled. off: an interval\n"
                "over 0.5 ms from the period. late: a wake over 0.5 ms after its deadline, and where its\n"
                "lateness went (mean): the timer firing late, the run queue after it fired, a preemption in the spin.\n\n",
                hz, threads, sysconf(_SC_NPROCESSORS_ONLN), rounds, seconds);
    std::printf("| variant | frames | off | off %% | late | late: timer / queue / spin µs | wake p99 µs | sleeps a frame | "
                "on-CPU slices a frame | CPU %% |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (std::size_t v = 0; v < variants.size(); ++v) {
        const Pool& p = pools[v];
        const double frames = static_cast<double>(std::max<std::size_t>(1, p.late_us.size()));
        const double late = std::max(1, p.late_frames);
        char breakdown[64] = "–", sleeps[32] = "–", slices[32] = "–";
        if (!bare) std::snprintf(slices, sizeof slices, "%.2f", static_cast<double>(p.slices) / frames);
        if (!variants[v].library && !bare) {
            std::snprintf(breakdown, sizeof breakdown, "%.0f / %.0f / %.0f", p.late_timer_us / late,
                          p.late_queue_us / late, p.late_spin_us / late);
            std::snprintf(sleeps, sizeof sleeps, "%.2f", static_cast<double>(p.sleeps) / frames);
        }
        std::printf("| %s | %zu | %d | %.2f | %d | %s | %.0f | %s | %s | %.2f |\n", variants[v].name.c_str(),
                    p.late_us.size(), p.off, 100.0 * p.off / std::max(1, p.intervals), p.late_frames, breakdown,
                    quantile(p.late_us, 0.99), sleeps, slices,
                    p.wall_ns > 0 ? 100.0 * static_cast<double>(p.cpu_ns) / static_cast<double>(p.wall_ns) : -1.0);
    }
    return 0;
}
