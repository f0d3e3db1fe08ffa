// load.cpp: the synthetic CPU load. Busy loops mix an LCG into a member the
// optimiser must keep (an atomic), and check a steady clock every few hundred
// steps, so the work is real CPU time of the requested wall length.
#include "run/load.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace pacer_demo {

namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr double kDefaultDutyCycle = 1.0;
constexpr double kDefaultDutyPeriodMs = 10.0;
constexpr uint64_t kDefaultSeed = 1;

constexpr double kMaxWorkMs = 1000.0;
constexpr double kMaxJitterMs = 1000.0;
constexpr double kMaxSpikeMs = 10000.0;
constexpr int32_t kMaxSpikeEvery = 1000000;
constexpr double kMinDutyPeriodMs = 1.0;
constexpr double kMaxDutyPeriodMs = 1000.0;

// Folded into one atomic so no loop result is dead code.
std::atomic<uint64_t> g_sink{0};

int64_t ms_to_ns(double ms) { return static_cast<int64_t>(std::llround(ms * 1e6)); }

// splitmix64: a well-mixed hash, so frame i's jitter depends only on (seed, i).
uint64_t mix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Burns CPU until the steady clock passes `until`, or *stop turns true, or
// stopped() says so.
void burn_until(SteadyClock::time_point until, const std::atomic<bool>* stop, bool (*stopped)() = nullptr) {
    uint64_t x = g_sink.load(std::memory_order_relaxed) | 1;
    while (SteadyClock::now() < until) {
        if (stop != nullptr && stop->load(std::memory_order_relaxed)) break;
        if (stopped != nullptr && stopped()) break;
        for (int i = 0; i < 256; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
    }
    g_sink.fetch_xor(x, std::memory_order_relaxed);
}

std::string out_of_range(const char* field, double value, const char* range) {
    char buffer[160];
    std::snprintf(buffer, sizeof buffer, "%s: %g is out of range %s", field, value, range);
    return buffer;
}

}  // namespace

int32_t max_background_threads() {
    unsigned cores = std::thread::hardware_concurrency();
    return 2 * static_cast<int32_t>(std::max(cores, 1u));
}

LoadConfig resolve(const LoadConfig& config) {
    LoadConfig out = config;
    if (out.duty_cycle == 0) out.duty_cycle = kDefaultDutyCycle;
    if (out.duty_period_ms == 0) out.duty_period_ms = kDefaultDutyPeriodMs;
    if (out.seed == 0) out.seed = kDefaultSeed;
    return out;
}

std::string validate(const LoadConfig& unresolved) {
    const LoadConfig c = resolve(unresolved);
    // Written as !(in range) so NaN fails too.
    if (!(c.work_ms >= 0 && c.work_ms <= kMaxWorkMs)) return out_of_range("work_ms", c.work_ms, "[0, 1000]");
    if (!(c.jitter_ms >= 0 && c.jitter_ms <= kMaxJitterMs))
        return out_of_range("jitter_ms", c.jitter_ms, "[0, 1000]");
    if (!(c.spike_ms >= 0 && c.spike_ms <= kMaxSpikeMs))
        return out_of_range("spike_ms", c.spike_ms, "[0, 10000]");
    if (c.spike_every_frames < 0 || c.spike_every_frames > kMaxSpikeEvery)
        return out_of_range("spike_every_frames", c.spike_every_frames, "[0, 1000000]");
    const int32_t max_threads = max_background_threads();
    if (c.background_threads < 0 || c.background_threads > max_threads) {
        char range[64];
        std::snprintf(range, sizeof range, "[0, %d] (2x the cores)", static_cast<int>(max_threads));
        return out_of_range("background_threads", c.background_threads, range);
    }
    if (!(c.duty_cycle > 0 && c.duty_cycle <= 1)) return out_of_range("duty_cycle", c.duty_cycle, "(0, 1]");
    if (!(c.duty_period_ms >= kMinDutyPeriodMs && c.duty_period_ms <= kMaxDutyPeriodMs))
        return out_of_range("duty_period_ms", c.duty_period_ms, "[1, 1000]");
    return {};
}

// What the background threads read; changed live by set_config.
struct LoadGenerator::Shared {
    std::atomic<int64_t> busy_ns{0};
    std::atomic<int64_t> idle_ns{0};
};

// One background thread with its own stop flag, so shrinking the pool stops
// exactly the threads removed. The busy loop polls the flag and the condition
// variable cuts the idle part short, so a join returns within microseconds.
struct LoadGenerator::Worker {
    std::mutex mutex;
    std::condition_variable wake;
    std::atomic<bool> stop{false};
    std::thread thread;

    void request_stop() {
        {
            // Under the mutex so the flag cannot change between the idle
            // wait's predicate check and its sleep (no lost wake-up).
            std::lock_guard<std::mutex> lock(mutex);
            stop.store(true, std::memory_order_relaxed);
        }
        wake.notify_all();
    }

    void run(const std::shared_ptr<Shared>& shared) {
        while (!stop.load(std::memory_order_relaxed)) {
            const int64_t busy_ns = shared->busy_ns.load(std::memory_order_relaxed);
            const int64_t idle_ns = shared->idle_ns.load(std::memory_order_relaxed);
            burn_until(SteadyClock::now() + std::chrono::nanoseconds(busy_ns), &stop);
            if (idle_ns > 0) {
                std::unique_lock<std::mutex> lock(mutex);
                wake.wait_for(lock, std::chrono::nanoseconds(idle_ns),
                              [this] { return stop.load(std::memory_order_relaxed); });
            }
        }
    }
};

LoadGenerator::LoadGenerator(const LoadConfig& config) : shared_(std::make_shared<Shared>()) {
    set_config(config);
}

LoadGenerator::~LoadGenerator() { resize_workers_(0); }

void LoadGenerator::set_config(const LoadConfig& config) {
    const std::string error = validate(config);
    if (!error.empty()) throw std::invalid_argument(error);
    config_ = resolve(config);
    const int64_t period_ns = ms_to_ns(config_.duty_period_ms);
    const int64_t busy_ns = static_cast<int64_t>(std::llround(static_cast<double>(period_ns) * config_.duty_cycle));
    shared_->busy_ns.store(busy_ns, std::memory_order_relaxed);
    shared_->idle_ns.store(period_ns - busy_ns, std::memory_order_relaxed);
    resize_workers_(config_.background_threads);
}

void LoadGenerator::resize_workers_(int32_t count) {
    const std::size_t target = static_cast<std::size_t>(std::max(count, 0));
    // Ask every surplus thread to stop first, then join them: they wind down
    // together instead of one after another.
    for (std::size_t i = target; i < workers_.size(); ++i) workers_[i]->request_stop();
    for (std::size_t i = target; i < workers_.size(); ++i) workers_[i]->thread.join();
    if (workers_.size() > target) workers_.resize(target);
    while (workers_.size() < target) {
        auto worker = std::make_unique<Worker>();
        Worker* raw = worker.get();
        raw->thread = std::thread([raw, shared = shared_] { raw->run(shared); });
        workers_.push_back(std::move(worker));
    }
}

int32_t LoadGenerator::running_background_threads() const { return static_cast<int32_t>(workers_.size()); }

FrameWork LoadGenerator::do_frame_work(int64_t frame_index) {
    FrameWork work{};
    double ms = config_.work_ms;
    if (config_.jitter_ms > 0) {
        // Uniform in [-1, 1) from the top 53 bits of the hash.
        const uint64_t h = mix(config_.seed ^ mix(static_cast<uint64_t>(frame_index)));
        const double unit = static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
        ms += unit * config_.jitter_ms;
    }
    if (config_.spike_every_frames > 0 && frame_index > 0 && frame_index % config_.spike_every_frames == 0) {
        work.spike = true;
        ms += config_.spike_ms;
    }
    work.requested_ns = std::max<int64_t>(ms_to_ns(ms), 0);
    const SteadyClock::time_point start = SteadyClock::now();
    if (work.requested_ns > 0) burn_until(start + std::chrono::nanoseconds(work.requested_ns), nullptr, stopped_);
    work.done_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(SteadyClock::now() - start).count();
    return work;
}

}  // namespace pacer_demo
