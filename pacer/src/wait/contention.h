// contention.h: whether the timer's thread is contended, from the signs read
// at the start of its waits. The timer stops spinning while it is (a spinner
// is preempted for a neighbour's whole slice) and sleeps in steps. Internal (pacer_internal, pacer_measure).
#pragma once

#include <cstdint>

#include <pacer/units.h>

namespace pacer::detail {

// The timer counts its thread as contended, and stops spinning, once every
// wait over kContentionOnsetNs has shown a sign of contention, and calm again
// after kContentionCalmNs without one (docs/precision.md has why these).
constexpr int64_t kContentionOnsetNs = 40'000'000;
constexpr int64_t kContentionCalmNs = 100'000'000;
// While contended, the timer sleeps in steps of this, not in one sleep to
// the deadline: fewer of its wakes then wait for a CPU (docs/under-load.md).
constexpr int64_t kContendedStepNs = kNsPerMs;

class Contention {
public:
    // Whether this timer wait reads the signs. Under contention every system
    // call before the sleep made more frames late (docs/precision.md), so
    // while contended they are read at one wait in kContendedReadEvery.
    bool read_due() {
        ++waits_unread_;
        return !contended_ || waits_unread_ >= kContendedReadEvery;
    }

    // One reading at the wait aiming at deadline_ns: runnable threads and
    // online CPUs (-1 / 0 unknown), and the thread's run-queue wait so far
    // (-1 unknown). A run-queue wait of wait_sign_ns or more since the last
    // reading is a sign (Tuning::Timer::contention_wait_ns).
    void update(int32_t runnable, int32_t cpus, int64_t runqueue_now_ns, int64_t deadline_ns, int64_t wait_sign_ns);

    bool contended() const { return contended_; }
    // Run-queue wait per frame over the frames the last reading covered (-1 unknown).
    int64_t runqueue_wait_ns() const { return runqueue_wait_ns_; }

private:
    static constexpr int kContendedReadEvery = 4;

    int64_t last_runqueue_ns_ = -1;
    int64_t runqueue_wait_ns_ = -1;
    int waits_unread_ = 0;          // timer waits since the signs were read
    bool contended_ = false;
    int64_t signs_since_ns_ = -1;   // deadline of the first reading in an unbroken run of signs
    int64_t last_sign_ns_ = -1;     // deadline of the last reading with a sign
};

}  // namespace pacer::detail
