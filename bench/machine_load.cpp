#include "machine_load.h"

#include <pacer/platform.h>

#include <algorithm>
#include <chrono>

#include <pacer/pacer.h>

#include <fstream>
#include <sstream>
#include <string>

#if defined(__linux__)
#include <unistd.h>   // sysconf(_SC_CLK_TCK): the unit of /proc/stat
#endif

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

// The tick rate /proc/stat counts in (USER_HZ, 100 on every common Linux);
// 0 where there is no such file.
double clock_ticks_per_s() {
#if defined(__linux__)
    const long hz = sysconf(_SC_CLK_TCK);
    return hz > 0 ? static_cast<double>(hz) : 0.0;
#else
    return 0.0;
#endif
}

int64_t steady_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
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
    ticks.wall_ns = steady_now_ns();
    ticks.ticks_per_s = clock_ticks_per_s();
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
    ticks.machine_steal = steal;
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

double steal_pct(const CpuTicks& before, const CpuTicks& after) {
    if (!before.valid || !after.valid || after.ticks_per_s <= 0 || after.wall_ns <= before.wall_ns ||
        after.machine_steal < before.machine_steal) {
        return -1;
    }
    const double steal = static_cast<double>(after.machine_steal - before.machine_steal);
    const double wall_s = static_cast<double>(after.wall_ns - before.wall_ns) * 1e-9;
    return 100.0 * steal / (wall_s * after.ticks_per_s);
}

double steal_since_boot_pct() {
    const CpuTicks now = read_cpu_ticks();
    std::ifstream uptime_file("/proc/uptime");
    double uptime_s = 0;
    if (!now.valid || now.ticks_per_s <= 0 || !(uptime_file >> uptime_s) || uptime_s <= 0) return -1;
    return 100.0 * static_cast<double>(now.machine_steal) / (uptime_s * now.ticks_per_s);
}

Settled settle_machine(double max_s, double quiet_pct) {
    Settled settled;
    const int64_t start_ns = steady_now_ns();
    const auto elapsed_s = [&] { return static_cast<double>(steady_now_ns() - start_ns) * 1e-9; };
    while (elapsed_s() + 1.0 <= max_s) {
        const CpuTicks before = read_cpu_ticks();
        if (!before.valid) break;
        std::this_thread::sleep_for(std::chrono::seconds(1));
        settled.other_pct = other_cpu_pct(before, read_cpu_ticks());
        settled.quiet = settled.other_pct >= 0 && settled.other_pct < quiet_pct;
        if (settled.quiet || settled.other_pct < 0) break;
    }
    settled.waited_s = elapsed_s();
    return settled;
}

}  // namespace bench
