// load.h: synthetic CPU load for the demo, real work the compiler cannot remove.
//
// Two kinds of load, both set live through one LoadConfig:
//   - in-frame work: do_frame_work() burns work_ms (± jitter_ms, plus spike_ms
//     on spike frames) of wall time on the calling thread, busy the whole time,
//     so the engine's frame really takes that long;
//   - background threads: 0 .. 2x the core count, each busy for duty_cycle of
//     every duty_period_ms and asleep for the rest: "other programs".
//
// USAGE
//   pacer_demo::LoadConfig load{};       // every zero field means "the default"
//   load.work_ms = 4;
//   load.background_threads = 2;
//   pacer_demo::LoadGenerator generator(load);   // starts the background threads
//   ... per frame: generator.do_frame_work(frame.index);
//   generator.set_config(other);         // live: threads start or stop here
//
// THREADS
//   A LoadGenerator is used by one thread (the frame loop); it owns its
//   background threads and joins them in set_config and in its destructor.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pacer_demo {

// Zero-initialise and set what you need: a zero field means its default.
struct LoadConfig {
    double work_ms;               // default: 0. In-frame work per frame. Valid: [0, 1000].
    double jitter_ms;             // default: 0. Uniform ± added to work_ms per frame (the
                                  // sum is clamped at 0). Valid: [0, 1000].
    double spike_ms;              // default: 0. Extra in-frame work on spike frames. Valid: [0, 10000].
    int32_t spike_every_frames;   // default: 0 (no spikes). Frames whose index is a positive
                                  // multiple of it get the spike. Valid: [0, 1000000].
    int32_t background_threads;   // default: 0. Valid: [0, max_background_threads()].
    double duty_cycle;            // default: 1 (always busy). Busy share of each duty
                                  // period of a background thread. Valid: (0, 1].
    double duty_period_ms;        // default: 10. Valid: [1, 1000].
    uint64_t seed;                // default: 1. Seeds the jitter; same seed, same jitter.
};

// 2 x std::thread::hardware_concurrency(), at least 2 (when it reports 0).
int32_t max_background_threads();

// Fills in the defaults of every zero field.
LoadConfig resolve(const LoadConfig& config);
// Empty when valid, else one line naming the field, e.g.
// "duty_cycle: 1.5 is out of range (0, 1]". Checks the resolved values.
std::string validate(const LoadConfig& config);

// What one do_frame_work call did.
struct FrameWork {
    int64_t requested_ns;   // work_ms + this frame's jitter (+ spike), clamped at 0
    int64_t done_ns;        // wall time spent burning, steady clock (>= requested_ns)
    bool spike;             // this frame had the spike
};

class LoadGenerator {
public:
    // Starts the background threads. Invalid configs throw std::invalid_argument
    // with validate()'s message.
    explicit LoadGenerator(const LoadConfig& config = {});
    ~LoadGenerator();   // stops and joins every background thread
    LoadGenerator(const LoadGenerator&) = delete;
    LoadGenerator& operator=(const LoadGenerator&) = delete;

    // Burns this frame's in-frame work on the calling thread. The jitter of a
    // frame depends only on the seed and frame_index.
    FrameWork do_frame_work(int64_t frame_index);
    // Cuts the in-frame work short once stopped() says so (a close signal:
    // the run ends within a few microseconds of the work, not after it).
    // It is called in the burn loop: a flag read. Null: never.
    void stop_when(bool (*stopped)()) { stopped_ = stopped; }

    // Applies a new config live: threads beyond the new count are stopped and
    // joined here, missing ones started; duty changes reach running threads
    // within one duty period. Invalid configs throw std::invalid_argument and
    // leave the generator as it was.
    void set_config(const LoadConfig& config);
    const LoadConfig& config() const { return config_; }   // resolved

    int32_t running_background_threads() const;

private:
    struct Worker;
    struct Shared;
    void resize_workers_(int32_t count);

    LoadConfig config_{};
    bool (*stopped_)() = nullptr;
    std::shared_ptr<Shared> shared_;
    std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace pacer_demo
