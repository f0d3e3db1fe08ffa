// pacer.h: frame pacing for game loops. C++17, no window-system dependency.
//
// WHAT IT DOES
//   Presents frames on a steady cadence when vsync is missing, refused or
//   misbehaving. Deadlines lie on an absolute grid (deadline += period), so
//   error never accumulates; each wait is done by a named strategy (OS sleep,
//   spin, sleep+spin estimators, a high-resolution timer with a spin tail).
//
// USAGE
//   pacer::Config config{};           // every zero field means "the default"
//   config.target_hz = 144;
//   pacer::Pacer pacer(config);
//   while (running) {
//       pacer::Frame frame = pacer.wait();    // sleep to the next deadline
//       simulate(frame.dt_ns * 1e-9);         // the steady dt, not the measured interval
//       render();
//       swap_buffers();
//       pacer.mark_present();                 // optional: the swap returned (vsync and
//   }                                         // auto judge the display by it)
//   pacer::Summary s = pacer.stats().summarize();   // mean, sigma, p99, % off ...
//
//   With config.strategy = Strategy::Auto and config.host set, the pacer
//   chooses vsync or timer and says why: pacer.decision().reason. For a
//   simulation with a fixed step, see pacer/fixed_step.h.
//
// TIME
//   Every time is an int64_t count of nanoseconds (suffix _ns) on the clock's
//   monotonic timeline; int64 nanoseconds last 292 years. Rates are double Hz.
//
// THREADS AND GLOBAL STATE
//   A Pacer is an object with no hidden globals: several can live in one
//   process, each used by one thread at a time. What the OS makes global is
//   said where it happens: Windows' timeBeginPeriod changes the timer period
//   of the whole system (see ThreadTiming and OsSleeper); Linux's timer slack
//   is per thread.
//
// TESTING
//   Time comes from a Clock and OS sleeps go through a Sleeper. Inject fakes
//   (Config::clock, Config::sleeper) and the pacer is fully deterministic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pacer {

// ---------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------

// How a wait is done. Names (strategy_name) are the ones used on command lines,
// in scenario files and in traces.
enum class Strategy : int {
    Default = 0,   // resolves to Timer
    // "sleep": the naive OS sleep of the remaining frame time, relative to the
    // frame's start. It overshoots by up to a scheduler period and the error
    // accumulates: the baseline that shows the problem. It is the one strategy
    // that does not follow the absolute grid.
    Sleep,
    // "spin": busy-wait to the deadline with the CPU's pause instruction. The
    // most precise when it owns a core; costs a whole core, and under
    // contention it is preempted for a full scheduler slice.
    Spin,
    // "precise_sleep": sleep 1 ms at a time while the remaining time exceeds
    // mean + k*sigma of the observed 1 ms sleeps (Welford, online), then spin.
    // Known failure modes kept on purpose: one unlucky (long) first sample makes
    // it spin forever after; at high rates the estimate never fits and it spins.
    PreciseSleep,
    // "robust_sleep": sleep whole scheduler periods, leaving one period plus a
    // tolerance, then spin. Needs the period (Config::scheduler_period_ns).
    RobustSleep,
    // "timer": an OS high-resolution timer to the deadline minus an adaptive
    // margin, then a short spin tail. Falls back to robust_sleep where no
    // high-resolution timer exists.
    Timer,
    // "vsync": the swap blocks; the pacer sets the swap interval through the
    // Host and does not sleep. Without a Host it behaves as Timer.
    Vsync,
    // "auto": chooses vsync or timer from what the Host reports, proves the
    // choice, and keeps checking it:
    //   - vsync only when the target is refresh / n for a whole n (within
    //     0.5 %) and the host accepts swap interval n; then it PROBES: the
    //     pacer leaves the pacing to the swap and measures 8 present intervals
    //     (mark_present, else the wake intervals; the first one after the
    //     switch is not counted). Their median within 25 % of n / refresh
    //     confirms vsync; anything else means timer. A probe whose swaps do
    //     not block therefore runs about 9 frames unpaced.
    //   - while on vsync: 8 of the last 32 intervals under half the vsync
    //     period (swaps not blocking) or over 1.5 times it (missed refreshes)
    //     switch to timer. Occasional misses stay under that and do not flap.
    //   - after a failed probe or a switch away it probes again after 2 s,
    //     then 4, 8 ... up to 64 s; at once when the refresh rate or the
    //     target changes. A refused swap interval or a target that does not
    //     fit is retried only on such a change.
    //   - the refresh rate is read from the Host at most once a second.
    // Every change is a Decision (Pacer::decision) with a one-line reason.
    Auto,
};

inline constexpr Strategy kAllStrategies[] = {
    Strategy::Sleep, Strategy::Spin,  Strategy::PreciseSleep, Strategy::RobustSleep,
    Strategy::Timer, Strategy::Vsync, Strategy::Auto,
};

const char* strategy_name(Strategy strategy);   // "sleep", "spin", ... "auto"
// Parses a strategy name; returns false (leaving *out alone) for an unknown one.
bool parse_strategy(std::string_view name, Strategy* out);

// What to do when the engine's work ran past the next deadline.
enum class MissPolicy : int {
    Default = 0,   // resolves to Skip
    // Late by a whole period or more: skip to the next grid point after now.
    // No burst of catch-up frames.
    Skip,
    // Keep every grid point: late frames run back to back until caught up.
    CatchUp,
};

const char* miss_policy_name(MissPolicy policy);   // "skip", "catch_up"
bool parse_miss_policy(std::string_view name, MissPolicy* out);

// Where in its frame the engine calls wait(). The pacer's timing is the same
// either way; what changes is which frame the wait's deadline belongs to, and
// so predicted_present_ns.
enum class WaitPoint : int {
    Default = 0,     // resolves to BeforePresent
    // render -> wait -> swap: the swap follows the wake at once, so presents
    // are as steady as the wakes (the steadiest). The frame built after the
    // wait is shown at the NEXT deadline: input is a frame older on screen.
    BeforePresent,
    // wait -> input -> simulate -> render -> swap: input is read just after
    // the wake and shown after one frame's work (the lowest latency), but
    // that work's jitter lands on the presents.
    FrameStart,
};

const char* wait_point_name(WaitPoint point);   // "before_present", "frame_start"
bool parse_wait_point(std::string_view name, WaitPoint* out);

// ---------------------------------------------------------------------------
// Injection points: time, sleeping, the host's display
// ---------------------------------------------------------------------------

// A monotonic clock.
class Clock {
public:
    virtual ~Clock() = default;
    virtual int64_t now_ns() = 0;
    // CPU time consumed by the calling thread, or -1 where unknown.
    virtual int64_t thread_cpu_ns() = 0;
    // Total time the calling thread has waited runnable for a CPU (Linux:
    // /proc/thread-self/schedstat), or -1 where unknown (the default). The
    // timer strategy uses it to tell contention from a late timer.
    virtual int64_t thread_runqueue_wait_ns() { return -1; }
};

// The OS's ways of not running. Strategies only wait through this interface.
class Sleeper {
public:
    virtual ~Sleeper() = default;
    // The system's relative sleep (nanosleep, Sleep): at least duration_ns,
    // rounded up by whatever the scheduler does.
    virtual void sleep_ns(int64_t duration_ns) = 0;
    // Whether sleep_until_ns has a high-resolution timer behind it.
    virtual bool has_high_res_timer() const = 0;
    // Waits on a high-resolution timer until the absolute time deadline_ns.
    // Returns false, without waiting, where there is no such timer.
    virtual bool sleep_until_ns(int64_t deadline_ns) = 0;
    // One turn of a spin loop: the CPU's pause instruction.
    virtual void pause() = 0;
    // The scheduler period the OS states (Windows' timer resolution), or 0
    // where it states none (Linux's tickless high-resolution timers).
    virtual int64_t scheduler_period_ns() const = 0;
};

// The OS's monotonic clock (CLOCK_MONOTONIC, QueryPerformanceCounter,
// mach_absolute_time) and thread CPU time. No state of its own; on Linux
// each thread that asks for its run-queue wait keeps its schedstat file open
// until it exits (one descriptor per thread, so a read is one pread: about
// 1 us of CPU here, two per timer wait).
class OsClock final : public Clock {
public:
    int64_t now_ns() override;
    int64_t thread_cpu_ns() override;
    int64_t thread_runqueue_wait_ns() override;   // Linux; -1 elsewhere
};

// The OS's sleeps. Owns per-object OS state (Windows: a high-resolution
// waitable timer, or a timeBeginPeriod held while it lives where that timer is
// refused), so make one per thread that waits.
class OsSleeper final : public Sleeper {
public:
    struct Options {
        int64_t scheduler_period_ns;   // default: the OS's stated period, else 1 ms
        bool refuse_high_res_timer;    // default: false. Test seam: act as if the OS refused it.
        // Where the timer is refused, Windows' timeBeginPeriod is held from
        // construction to destruction with scheduler_period_ns (1 ms when 0),
        // rounded up to whole ms. With the timer nothing system-wide is held.

        // Linux: what the high-resolution timer waits run with; -1 leaves the
        // thread's own. Elsewhere they do nothing.
        int64_t wait_timer_slack_ns;   // default: 1 ns. Linux lets a timer fire up to the
                                       // thread's slack late (50 us unless set) to batch
                                       // wake-ups; 1 ns is the least it takes. Set just
                                       // before each wait and put back as it wakes.
        int64_t wait_sched_slice_ns;   // default: 100 us, the shortest fair-scheduler slice
                                       // (EEVDF, Linux >= 6.12; older kernels ignore it). A
                                       // thread that wakes with a short slice preempts a busy
                                       // neighbour at once instead of waiting for its turn
                                       // (3-4 ms late, measured). Held: set by the first
                                       // timer wait on its thread and put back when the
                                       // sleeper is destroyed on that thread (elsewhere the
                                       // thread may be gone, so it is left). Put back after
                                       // each wake instead, the long slice let a busy
                                       // neighbour take the CPU before the present, and the
                                       // frame's work left a debt that kept the next wake
                                       // from preempting. Not used on a SCHED_FIFO thread.
    };
    OsSleeper();
    explicit OsSleeper(const Options& options);
    ~OsSleeper() override;
    OsSleeper(const OsSleeper&) = delete;
    OsSleeper& operator=(const OsSleeper&) = delete;

    void sleep_ns(int64_t duration_ns) override;
    bool has_high_res_timer() const override;
    bool sleep_until_ns(int64_t deadline_ns) override;
    void pause() override;
    int64_t scheduler_period_ns() const override;
    // A line saying which OS mechanisms are in force, for overlays and logs,
    // e.g. "clock_nanosleep(TIMER_ABSTIME)" or "timeBeginPeriod(1) + Sleep",
    // and, once a timer wait has run, what the wait settings got (e.g.
    // "waits with slack 1 ns, slice 100 us" or "slice refused: EPERM").
    std::string describe() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// A simulated scheduler: a Sleeper that makes any machine behave like one with
// a coarse scheduler tick. Every relative OS sleep wakes at the next tick of a
// period_ns grid at or after the requested time; with probability
// preempt_probability it wakes one more tick later, repeatedly ("another
// process took the CPU"). High-resolution timer waits are not quantised (such
// timers are independent of the tick) but are preempted the same way. It
// really sleeps, through the inner sleeper, so CPU figures stay honest.
struct SimulatedSchedulerConfig {
    int64_t period_ns;            // default: 15.625 ms (Windows' default tick)
    double preempt_probability;   // default: 0. In [0, 1).
    uint64_t seed;                // default: 1
};

class SimulatedScheduler final : public Sleeper {
public:
    // inner does the real waiting; clock tells where on the tick grid "now" is.
    SimulatedScheduler(Sleeper& inner, Clock& clock, const SimulatedSchedulerConfig& config);

    void sleep_ns(int64_t duration_ns) override;
    bool has_high_res_timer() const override;
    bool sleep_until_ns(int64_t deadline_ns) override;
    void pause() override;
    int64_t scheduler_period_ns() const override;   // the simulated period

    const SimulatedSchedulerConfig& config() const { return config_; }
    int64_t preemptions() const { return preemptions_; }   // extra ticks added so far

private:
    int64_t quantise_(int64_t wake_ns);
    Sleeper& inner_;
    Clock& clock_;
    SimulatedSchedulerConfig config_;
    uint64_t rng_state_;
    int64_t preemptions_ = 0;
};

// What the engine's window system can do for vsync and auto. Implemented by
// the host (the demo has one for SDL2 and one for GLFW).
class Host {
public:
    virtual ~Host() = default;
    // Asks for a swap interval: 0 off, n every n-th refresh, -1 adaptive.
    // Returns whether the window system accepted it.
    virtual bool set_swap_interval(int interval) = 0;
    // The display's refresh rate in Hz, or 0 when unknown (Xvfb reads 0).
    // vsync and auto read it at most once a second, so a change (the window
    // moved to another display) is noticed within a second.
    virtual double refresh_rate_hz() = 0;
    // The third input, the time each swap returned, comes through
    // Pacer::mark_present: call it right after the swap.
};

// ---------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------

// Zero-initialise and set what you need: a zero field means its default.
// resolve() fills the defaults in; Pacer and Waiter call it themselves.
struct Config {
    double target_hz;                    // default: 60. Valid: (0, 10000].
    Strategy strategy;                   // default: Strategy::Timer
    MissPolicy miss_policy;              // default: MissPolicy::Skip
    int32_t resync_after_periods;        // default: 8. Late by this many periods or
                                         // more (a stall: debugger, suspend) always
                                         // re-anchors the grid at now.
    int64_t scheduler_period_ns;         // default: the sleeper's stated period, else 1 ms.
                                         // The period robust_sleep rounds to.

    // precise_sleep
    double precise_sigma_k;              // default: 1. estimate = mean + k * sigma.
    int64_t precise_initial_estimate_ns; // default: 5 ms, the first guess of a 1 ms sleep.

    // robust_sleep (and timer's fallback)
    int64_t robust_tolerance_ns;         // default: 20 us, on top of one period.

    // timer: an absolute timer wait to deadline - margin, then a spin. The
    // margin is headroom x a high quantile of the timer's own recent lateness
    // (a wake's run-queue wait is contention, which no margin wins back), cut
    // so that, replayed over the window's wakes, it would have spun at most
    // the budget per frame on average. docs/precision.md has the measurements.
    int64_t timer_margin_ns;             // default: 200 us. Starting margin before the deadline.
    int64_t timer_min_margin_ns;         // default: 10 us
    int64_t timer_max_margin_ns;         // default: 2 ms
    double timer_margin_quantile;        // default: 0.99 of the window's lateness, so a 2 % tail is covered
    double timer_margin_headroom;        // default: 1.1. margin = headroom * quantile + pad
    int64_t timer_margin_pad_ns;         // default: 5 us
    int32_t timer_margin_window;         // default: 512 wakes in the quantile's window
    int64_t timer_max_spin_ns;           // default: 100 us. Spin budget per frame, on average
    double timer_max_spin_pct;           // default: 1 % of the frame period, the budget's cap at high rates
    // Contention (Linux: run-queue wait from the clock). A contended thread
    // that spins is preempted for a neighbour's whole slice, while a woken
    // sleeper gets the CPU back quickly: a contended timer waits to the
    // deadline itself and does not spin.
    int64_t contention_wait_ns;          // default: 500 us of run-queue wait in a frame; calm after 32 frames below
    // What the timer waits run with on Linux (OsSleeper::Options says how
    // long each holds, and why). They go to the OsSleeper that the Pacer or
    // Waiter makes; an injected sleeper keeps its own. -1 leaves the thread's.
    int64_t wait_timer_slack_ns;         // default: 1 ns (Linux's own: 50 us)
    int64_t wait_sched_slice_ns;         // default: 100 us (Linux's own: its base slice, 1.4 ms
                                         // on the 2-CPU VM we measure on)

    // the engine's clock (Frame::dt_ns, Frame::predicted_present_ns)
    int64_t max_dt_ns;                   // default: 100 ms. dt after a stall is clamped to it,
                                         // so a debugger break does not teleport the world.
    WaitPoint wait_point;                // default: WaitPoint::BeforePresent

    // statistics
    int64_t off_tolerance_ns;            // default: 500 us. An interval off by more is "off".
    int32_t history_frames;              // default: 1024 frames kept for percentiles.

    // injection (not owned; must outlive the Pacer)
    Clock* clock;                        // default: an OsClock owned by the pacer
    Sleeper* sleeper;                    // default: an OsSleeper owned by the pacer
    Host* host;                          // default: none (vsync and auto act as timer)
};

// Fills in the defaults of every zero field. Negative or NaN fields are kept
// as they are, for validate() to report. clock, sleeper and host stay as given.
Config resolve(const Config& config);
// Empty when the config is valid, else one line naming the field and why,
// e.g. "target_hz: 0 is out of range (0, 10000]". Checks the values as given,
// so pass it resolve(config): a zero left in a field is reported, not defaulted.
std::string validate(const Config& config);

// ---------------------------------------------------------------------------
// Waiting: one strategy, usable without a Pacer (the bench does)
// ---------------------------------------------------------------------------

struct WaitResult {
    int64_t wake_ns;    // when the wait returned
    int64_t slept_ns;   // time spent inside OS sleeps
    int64_t spun_ns;    // time spent spinning
};

// State each strategy keeps between waits, for overlays and tests.
struct WaiterState {
    Strategy strategy;          // resolved: never Default or Auto
    bool timer_fell_back;       // timer ran as robust_sleep (no high-resolution timer)
    int64_t period_ns;          // the scheduler period in use
    // precise_sleep's estimator of a 1 ms OS sleep
    double estimate_ns, mean_ns, sigma_ns;
    int64_t samples;
    // timer
    int64_t timer_margin_ns;    // the margin the next wait uses, after the spin budget (0 while contended)
    bool contended;             // the thread counts as contended (Config::contention_wait_ns)
    int64_t runqueue_wait_ns;   // run-queue wait over the last frame (-1 unknown)
};

class Waiter {
public:
    explicit Waiter(const Config& config);   // resolved inside; invalid configs throw
    ~Waiter();
    Waiter(const Waiter&) = delete;
    Waiter& operator=(const Waiter&) = delete;

    // Waits until deadline_ns by the current strategy. Returns at once when the
    // deadline has passed. Vsync and Auto wait as Timer here.
    WaitResult wait_until(int64_t deadline_ns);
    void set_strategy(Strategy strategy);   // state of every strategy is kept
    WaiterState state() const;
    Clock& clock();
    Sleeper& sleeper();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------------------
// Frames and statistics
// ---------------------------------------------------------------------------

// One frame, as wait() returns it and the statistics keep it.
struct Frame {
    int64_t index;         // 0, 1, 2 ... since the pacer was made
    int64_t deadline_ns;   // the grid point this wait aimed at
    int64_t wake_ns;       // when the wait returned: this frame's start
    int64_t lateness_ns;   // wake_ns - deadline_ns (negative: early)
    int64_t interval_ns;   // wake_ns - the previous frame's wake_ns (0 on frame 0)
    int64_t period_ns;     // the grid period in force
    int64_t work_ns;       // the engine's time: previous wake to this wait's call
    int64_t slept_ns;      // time in OS sleeps during this wait
    int64_t spun_ns;       // time spinning during this wait
    int64_t wait_cpu_ns;   // thread CPU time used by this wait (-1 unknown)
    int64_t present_ns;    // the previous frame's mark_present time (-1 none)
    int32_t missed;        // grid points skipped because the frame was late
    bool resynced;         // the grid was re-anchored at this frame (stall, first frame)
    Strategy strategy;     // the strategy that waited (resolved)
    // The engine's clock. dt_ns is what to advance the simulation by:
    //   - the grid step (deadline - previous deadline: the period, or the
    //     skipped periods after a miss) for the absolute strategies, so wake
    //     jitter never reaches the animation;
    //   - on vsync, the wake interval snapped to whole refresh periods (to
    //     whole target periods while the refresh is unknown), so present noise
    //     never reaches it;
    //   - the measured interval for sleep (whose frames really are uneven) and
    //     after a resync (a stall);
    //   - the target period on the first frame;
    // always clamped to Config::max_dt_ns.
    int64_t dt_ns;
    // When the frame built after this wait should reach the screen:
    //   - BeforePresent: the next deadline (this wake's swap shows the
    //     previous frame);
    //   - FrameStart: this deadline plus the last measured wake-to-present
    //     time (mark_present; 0 until it is used);
    //   - vsync: the last present (else this wake) plus the vsync period.
    int64_t predicted_present_ns;
    int32_t decision_seq;  // Pacer::decision().seq in force: changes mark decisions in traces
    bool contended;        // the timer counted the thread as contended on this wait
};

struct Percentiles {
    double mean, sd, p50, p95, p99, max;   // all in microseconds
                                           // (see percentiles() for the definitions)
};

struct HistogramBin {
    double lower_us;   // bin covers [lower_us, lower_us + width)
    int64_t count;
};

// Summary of the frames in the statistics window (the last history_frames).
// Frame 0 (index 0) has no interval and is left out of interval figures; after
// a reset_stats() the first frame kept does have one. Wall time is the newest
// wake minus the oldest wake in the window; the waits it contains are those of
// every frame but the oldest, so spin_pct, cpu_pct and fps count only those:
// fps = (frames - 1) / wall. With one frame (no wall time) they are 0.
struct Summary {
    int64_t frames;              // frames summarised (the first frame has no interval
                                 // and is left out of interval figures)
    double target_period_us;     // the period in force on the newest frame
    Percentiles interval;        // frame intervals
    Percentiles interval_error;  // |interval - period|
    Percentiles lateness;        // wake lateness, clamped at 0 (early counts as on time)
    double off_pct;              // % of intervals off by more than off_tolerance_ns
    int64_t missed;              // grid points skipped in the window
    double spin_pct;             // spin time / wall time, % of one core
    double cpu_pct;              // waiting thread's CPU time / wall time (-1 unknown)
    double fps;                  // frames per second over the window
};

// A ring of the last `capacity` frames plus running totals. add() is O(1);
// summaries and percentiles are computed on demand.
class Stats {
public:
    explicit Stats(int32_t capacity = 1024, int64_t off_tolerance_ns = 500'000);
    void add(const Frame& frame);
    void reset();
    Summary summarize() const;
    // Interval histogram over the window: bins of bin_us from lower_us.
    // Intervals outside [lower_us, lower_us + bins * bin_us) are not counted.
    // Throws std::invalid_argument unless bins >= 1 and bin_us > 0.
    std::vector<HistogramBin> interval_histogram(double lower_us, double bin_us, int bins) const;

    std::size_t size() const;                 // frames in the window
    const Frame& at(std::size_t i) const;     // 0 = oldest in the window
    int64_t total_frames() const { return total_frames_; }   // since reset
    int64_t total_missed() const { return total_missed_; }   // since reset
    int32_t capacity() const { return static_cast<int32_t>(ring_.size()); }
    int64_t off_tolerance_ns() const { return off_tolerance_ns_; }

private:
    std::vector<Frame> ring_;
    std::size_t head_ = 0, count_ = 0;
    int64_t off_tolerance_ns_;
    int64_t total_frames_ = 0, total_missed_ = 0;
};

// Percentiles of a sample (any order), in the sample's unit. Nearest-rank on
// the sorted sample x[1..n]: pP = x[ceil(P * n / 100)], computed in integers so
// that p95 of 20 values is exactly x[19]; max = x[n]. sd is the population
// standard deviation, sqrt(sum((x - mean)^2) / n): it describes the window as
// it is, not an estimate of a wider population. An empty sample gives all zeros.
Percentiles percentiles(std::vector<double> sample);

// ---------------------------------------------------------------------------
// The pacer
// ---------------------------------------------------------------------------

// Why the pacer paces the way it does. A new Decision (seq + 1) is made
// whenever the strategy in force, the swap interval or the reason changes.
struct Decision {
    int32_t seq;            // 1 for the first decision, + 1 at each change
    int64_t at_ns;          // clock time it was made
    Strategy requested;     // what the config asks for (Auto stays Auto)
    Strategy in_force;      // what paces now: Vsync, or the strategy that waits
    int32_t swap_interval;  // the swap interval the host accepted (0: not pacing by vsync)
    bool probing;           // auto: vsync is on trial, presents being measured
    std::string reason;     // one line, e.g. "auto -> timer: vsync requested, swaps
                            // return every 2.1 ms"
};

class Pacer {
public:
    explicit Pacer(const Config& config = {});   // invalid configs throw std::invalid_argument
    ~Pacer();
    Pacer(const Pacer&) = delete;
    Pacer& operator=(const Pacer&) = delete;

    // Waits for the next deadline on the grid and returns the new frame.
    // Call it once per frame: before present for the steadiest presents, or at
    // the top of the frame for the lowest input latency; say which in
    // Config::wait_point (it changes Frame::predicted_present_ns).
    Frame wait();
    // Tells the pacer when the frame's present (swap) returned; now if -1.
    // vsync and auto judge the swap by these times (else by the wakes), and
    // FrameStart predicts presents from them.
    void mark_present(int64_t present_ns = -1);

    // Live changes, applied at the next wait: the grid continues from the last
    // deadline with the new period or strategy, so there is no hitch or burst.
    // Setting the value already in force does nothing (auto does not re-probe).
    void set_target_hz(double hz);          // throws std::invalid_argument when out of range
    void set_strategy(Strategy strategy);
    void set_miss_policy(MissPolicy policy);
    void set_wait_point(WaitPoint point);   // Default means BeforePresent

    const Config& config() const;     // resolved
    const Stats& stats() const;
    void reset_stats();
    WaiterState waiter_state() const;
    Clock& clock();
    // The decision in force and its reason (auto's choice, vsync that does
    // not block, a refused swap interval, the timer's fallback ...).
    const Decision& decision() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------------------
// OS timing controls for the calling thread, restored by the destructor
// ---------------------------------------------------------------------------

class ThreadTiming {
public:
    struct Request {
        int64_t timer_slack_ns;    // Linux prctl(PR_SET_TIMERSLACK), per thread. 0: leave.
        int64_t timer_period_ns;   // Windows timeBeginPeriod, system-wide. 0: leave.
        // (The fields below carry "= 0" so that a braced list of the two
        // above still initialises every field, without a warning.)
        // Linux >= 6.12 (EEVDF): the thread's scheduler slice, sched_setattr's
        // sched_runtime, unprivileged. A shorter slice lets the thread's wakes
        // preempt busy threads sooner. 0: leave. Valid: [100 us, 100 ms].
        int64_t sched_slice_ns = 0;
        // Linux: SCHED_FIFO at this priority, 1 to 99 (needs CAP_SYS_NICE or
        // RLIMIT_RTPRIO: EPERM is reported, not thrown). 0: leave. Measured
        // here with two busy threads on two cores: 0 % of 60 Hz frames off by
        // over 0.5 ms at priority 10, against 86 to 99 % without.
        int32_t fifo_priority = 0;
        // Linux: the thread's nice value, -20 (most favoured) to 19; below the
        // current one needs CAP_SYS_NICE or RLIMIT_NICE. 0: leave.
        int32_t nice = 0;
    };
    struct Report {
        bool timer_slack_supported;
        int64_t timer_slack_ns;    // in force after the request (-1 unknown)
        bool timer_period_supported;
        int64_t timer_period_ns;   // in force after the request (-1 unknown)
        // Read back with sched_getattr after the request (Linux; else unsupported, -1).
        bool sched_supported;
        int64_t sched_slice_ns;    // the slice in force (-1 unknown)
        int32_t fifo_priority;     // SCHED_FIFO priority in force; 0 not FIFO (-1 unknown)
        int32_t nice;              // nice value in force (meaningful when not FIFO)
        // One "; "-separated note per control that was asked for and not
        // granted, e.g. "fifo_priority 10: refused: EPERM". Empty: all granted.
        std::string refused;
    };
    // Applies the request on the calling thread and reads the settings back.
    // A control the OS lacks is reported unsupported (Linux has no timer
    // period; Windows and macOS have no timer slack, slice, FIFO or nice).
    // Throws std::invalid_argument for a request out of range (negative,
    // slice outside [100 us, 100 ms], priority outside [0, 99], nice outside
    // [-20, 19]). The destructor restores every setting it changed, the
    // scheduling ones as one sched_setattr of what was read before. Destroy
    // it on the same thread: what it restores is that thread's. A default
    // slice comes back as an explicit slice of the same length; a nice value
    // raised without privilege cannot be lowered back and stays.
    explicit ThreadTiming(const Request& request);
    ~ThreadTiming();
    ThreadTiming(const ThreadTiming&) = delete;
    ThreadTiming& operator=(const ThreadTiming&) = delete;
    const Report& report() const { return report_; }

private:
    struct SchedSaved {
        bool valid = false;   // the settings were read and something was changed
        bool fifo = false, reset_on_fork = false;
        int32_t policy = 0, priority = 0, nice = 0;   // policy: the OS's own value
        int64_t slice_ns = 0;
    };
    void apply_sched(const Request& request);
    Request request_;
    Report report_{};
    int64_t previous_slack_ns_ = -1;
    SchedSaved previous_sched_;
};

}  // namespace pacer
