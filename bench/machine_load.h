// machine_load.h: real CPU load for the bench's conditions, in portable std::thread
// code. Nothing here is simulated: the background threads and the in-frame
// work burn real cycles, so the scheduler treats them like any busy program.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace pacer {
class Clock;
}

namespace bench {

// Busy background threads that each run a CPU-burning loop until destroyed:
// the "full contention" condition. The loop's result is published to an
// atomic sink, so the compiler cannot remove it.
class Contention {
public:
    explicit Contention(int threads);
    ~Contention();
    Contention(const Contention&) = delete;
    Contention& operator=(const Contention&) = delete;
    int threads() const { return static_cast<int>(threads_.size()); }

private:
    std::atomic<bool> stop_{false};
    std::vector<std::thread> threads_;
};

// Burns CPU on the calling thread until clock.now_ns() has advanced by
// duration_ns: the "in-frame work" condition (a frame's simulation and render).
void burn_cpu_for(pacer::Clock& clock, int64_t duration_ns);

// The work of a "loaded" frame: a quarter of the period, which fits beside the
// busy threads at every rate.
inline int64_t loaded_work_ns(double hz) { return static_cast<int64_t>(0.25e9 / hz); }

// CPU time counters of the whole machine and of this process, read where the
// OS exposes them as files (Linux /proc); elsewhere valid stays false. They
// tell how much of the machine *other* programs used during a measurement:
// on a shared machine "idle" is never quite idle, and a reader should know.
//
// Steal is time a virtual machine's CPUs were ready to run but the host ran
// something else (another guest, its own work). Inside a VM it delays every
// wake, even a spinning thread's, and no waiting strategy can win it back.
struct CpuTicks {
    bool valid = false;
    uint64_t machine_busy = 0, machine_total = 0, self = 0;   // in the OS's clock ticks
    uint64_t machine_steal = 0;   // summed over CPUs, in the OS's clock ticks
    int64_t wall_ns = 0;          // steady clock at the reading
    double ticks_per_s = 0;       // the OS's clock tick rate (USER_HZ)
};
CpuTicks read_cpu_ticks();
// Other processes' CPU use between two readings, in % of one core; -1 unknown.
double other_cpu_pct(const CpuTicks& before, const CpuTicks& after);
// Steal between two readings, in % of one core: steal ticks / (wall seconds *
// ticks per second) * 100. Summed over CPUs, so up to 100 % per CPU; -1 unknown.
double steal_pct(const CpuTicks& before, const CpuTicks& after);
// Steal since boot, in % of one core (from /proc/uptime); -1 unknown.
double steal_since_boot_pct();

// Waits, in windows of one second, until other programs used under quiet_pct
// of one core over a whole window, or max_s has passed. What it found:
struct Settled {
    double waited_s = 0;      // from the call to its return
    double other_pct = -1;    // the last window's other programs' CPU; -1 unknown (no /proc)
    bool quiet = false;       // that window was under quiet_pct
};
Settled settle_machine(double max_s, double quiet_pct);

}  // namespace bench
