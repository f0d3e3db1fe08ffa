// base/median.h: the median of the first n values of a fixed array, in
// place (its order is lost). The upper of the two middle values where n is
// even: the statistics here judge whole reports, never a mean of two.
// 0 where n is not positive.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>

namespace pacer::detail {

template <typename T, std::size_t N>
T median_of(std::array<T, N>& values, int n) {
    if (n <= 0) return T{};
    std::nth_element(values.begin(), values.begin() + n / 2, values.begin() + n);
    return values[static_cast<std::size_t>(n / 2)];
}

}  // namespace pacer::detail
