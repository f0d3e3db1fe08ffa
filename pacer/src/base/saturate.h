// base/saturate.h: int64 arithmetic that stops at the limits instead of
// overflowing (not installed). Grid times, sums of frame fields and
// differences of caller-given times go through these, so that any value the
// API accepts gives a clamped answer rather than undefined behaviour.
#pragma once

#include <cstdint>
#include <limits>

namespace pacer::detail {

inline constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// Portable checks (MSVC has no __builtin_*_overflow); each tests before it adds.
inline int64_t sat_add(int64_t a, int64_t b) {
    if (b > 0 && a > kInt64Max - b) return kInt64Max;
    if (b < 0 && a < kInt64Min - b) return kInt64Min;
    return a + b;
}

inline int64_t sat_sub(int64_t a, int64_t b) {
    if (b < 0 && a > kInt64Max + b) return kInt64Max;
    if (b > 0 && a < kInt64Min + b) return kInt64Min;
    return a - b;
}

inline int64_t sat_mul(int64_t a, int64_t b) {
    if (a == 0 || b == 0) return 0;
    const bool positive = (a < 0) == (b < 0);
    // |a| * |b| in uint64, each at most 2^63.
    const uint64_t ua = a < 0 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
    const uint64_t ub = b < 0 ? 0 - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
    const uint64_t limit = positive ? static_cast<uint64_t>(kInt64Max) : static_cast<uint64_t>(kInt64Max) + 1;
    if (ua > limit / ub) return positive ? kInt64Max : kInt64Min;
    const uint64_t product = ua * ub;
    if (product > limit) return positive ? kInt64Max : kInt64Min;
    return positive ? static_cast<int64_t>(product) : static_cast<int64_t>(0 - product);
}

// |a - b|, saturated at INT64_MAX.
inline int64_t sat_abs_diff(int64_t a, int64_t b) {
    const uint64_t d = a > b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b)
                             : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
    return d > static_cast<uint64_t>(kInt64Max) ? kInt64Max : static_cast<int64_t>(d);
}

// A double (ns) to int64, NaN to 0, clamped to the int64 range.
inline int64_t sat_from_double(double ns) {
    if (!(ns == ns)) return 0;
    if (ns >= 9.2233720368547748e18) return kInt64Max;
    if (ns <= -9.2233720368547758e18) return kInt64Min;
    return static_cast<int64_t>(ns);
}

}  // namespace pacer::detail
