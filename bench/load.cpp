#include "load.h"

#include <algorithm>

#include <pacer/pacer.h>

#include <fstream>
#include <sstream>
#include <string>

namespace bench {
namespace {

// Where every burning loop publishes its result. A value that escapes to an
// atomic is observable, so the loops that compute it must really run.
std::atomic<uint64_t> g_sink{0};

// One xorshift64 step: cheap, serially dependent integer work.
inline uint64_t churn(uint64_t x) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

}  // namespace

Contention::Contention(int threads) {
    threads_.reserve(static_cast<std::size_t>(threads));
    for (int i = 0; i < threads; ++i) {
        threads_.emplace_back([this, i] {
            uint64_t x = 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(i + 1);
            while (!stop_.load(std::memory_order_relaxed)) {
                for (int k = 0; k < 4096; ++k) x = churn(x);
            }
            g_sink.fetch_add(x, std::memory_order_relaxed);
        });
    }
}

Contention::~Contention() {
    stop_.store(true, std::memory_order_relaxed);
    for (std::thread& t : threads_) t.join();
}

void burn_cpu_for(pacer::Clock& clock, int64_t duration_ns) {
    const int64_t end_ns = clock.now_ns() + duration_ns;
    uint64_t x = static_cast<uint64_t>(end_ns) | 1;
    // Read the clock every 256 steps (well under a microsecond of work) so the
    // overshoot is negligible next to the requested milliseconds.
    while (clock.now_ns() < end_ns) {
        for (int k = 0; k < 256; ++k) x = churn(x);
    }
    g_sink.fetch_add(x, std::memory_order_relaxed);
}

CpuTicks read_cpu_ticks() {
    CpuTicks ticks;
    // /proc/stat "cpu  user nice system idle iowait irq softirq steal ...":
    // busy is everything but idle and iowait (steal included: another guest ran).
    std::ifstream stat("/proc/stat");
    std::string label;
    uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (!(stat >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) ||
        label != "cpu") {
        return ticks;
    }
    // /proc/self/stat: utime and stime are the 12th and 13th fields after the
    // ") " that closes the command name (which may itself hold spaces).
    std::ifstream self_file("/proc/self/stat");
    std::string line;
    std::getline(self_file, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos) return ticks;
    std::istringstream fields(line.substr(close + 1));
    std::string field;
    uint64_t utime = 0, stime = 0;
    for (int i = 0; i < 13 && fields >> field; ++i) {
        if (i == 11) utime = std::stoull(field);
        if (i == 12) stime = std::stoull(field);
    }
    if (!fields) return ticks;
    ticks.machine_busy = user + nice + system + irq + softirq + steal;
    ticks.machine_total = ticks.machine_busy + idle + iowait;
    ticks.self = utime + stime;
    ticks.valid = true;
    return ticks;
}

double other_cpu_pct(const CpuTicks& before, const CpuTicks& after) {
    if (!before.valid || !after.valid || after.machine_total <= before.machine_total) return -1;
    const double busy = static_cast<double>(after.machine_busy - before.machine_busy);
    const double self = static_cast<double>(after.self - before.self);
    const double total = static_cast<double>(after.machine_total - before.machine_total);
    const double cores = std::max(1u, std::thread::hardware_concurrency());
    return std::max(0.0, 100.0 * (busy - self) / total * cores);
}

}  // namespace bench
