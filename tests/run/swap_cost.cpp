// swap_cost.cpp: what pacer-run's preload adds to a present that it passes
// through (strategy=off), against the same present without it. The present
// itself is a no-op (noop_swap.cpp, an LD_PRELOAD after pacer-run's), so
// the difference is the hook's own path: the session's lookup, its locks.
//
//   LD_PRELOAD=libpacer_noop_swap.so pacer_swap_cost [CALLS]
//   LD_PRELOAD=libpacer-run.so:libpacer_noop_swap.so PACER_RUN=strategy=off pacer_swap_cost [CALLS]
// Prints "swap call ns: p50 N p99 N max N over CALLS calls".
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    const long calls = argc > 1 ? std::atol(argv[1]) : 200000;
    using Swap = void (*)(void*, unsigned long);
    const auto swap = reinterpret_cast<Swap>(dlsym(RTLD_DEFAULT, "glXSwapBuffers"));
    if (swap == nullptr || calls < 100) {
        std::fprintf(stderr, "swap_cost: no glXSwapBuffers (preload libpacer_noop_swap.so), or CALLS < 100\n");
        return 2;
    }
    std::vector<long long> ns(static_cast<std::size_t>(calls));
    for (long i = 0; i < calls; ++i) {
        const auto start = std::chrono::steady_clock::now();
        swap(nullptr, 1);
        ns[static_cast<std::size_t>(i)] =
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
    }
    std::sort(ns.begin(), ns.end());
    std::printf("swap call ns: p50 %lld p99 %lld max %lld over %ld calls\n", ns[ns.size() / 2],
                ns[ns.size() * 99 / 100], ns.back(), calls);
    return 0;
}
