// base/recent.h: the last N values of a stream, a ring in arrival order,
// with the medians, quantiles and counts judged over them (the arbiter's
// watch over vsync, display_lock's learned lead). Internal (pacer_internal).
#pragma once

#include "base/median.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace pacer::detail {

template <int N>
class Recent {
public:
    void clear() { count_ = next_ = 0; }
    void push(int64_t value) {
        ring_[static_cast<std::size_t>(next_)] = value;
        next_ = (next_ + 1) % N;
        count_ = std::min(count_ + 1, N);
    }
    int count() const { return count_; }
    bool full() const { return count_ == N; }

    // How many of the values pass `keep`.
    template <typename Keep>
    int count_where(Keep keep) const {
        int n = 0;
        for (int i = 0; i < count_; ++i) n += keep(at(i)) ? 1 : 0;
        return n;
    }
    // How many of the newest `newest` values (at most count()) pass `keep`.
    template <typename Keep>
    int count_where_last(int newest, Keep keep) const {
        int n = 0;
        for (int i = 1; i <= newest; ++i) n += keep(ring_[slot_back(i)]) ? 1 : 0;
        return n;
    }
    int64_t sum() const {
        int64_t total = 0;
        for (int i = 0; i < count_; ++i) total += at(i);
        return total;
    }
    // The median (upper, for an even count) of the values that pass `keep`; 0 for none.
    template <typename Keep>
    int64_t median_where(Keep keep) const {
        std::array<int64_t, N> kept{};
        int n = 0;
        for (int i = 0; i < count_; ++i)
            if (keep(at(i))) kept[static_cast<std::size_t>(n++)] = at(i);
        return median_of(kept, n);
    }
    // The smallest value (quantile(0), without the copy and the selection); 0 for none.
    int64_t min() const {
        if (count_ == 0) return 0;
        return *std::min_element(ring_.begin(), ring_.begin() + count_);
    }
    // Nearest rank: the smallest value with at least q of them at or below
    // it, q in (0, 1]; 0 for none.
    int64_t quantile(double q) const {
        if (count_ == 0) return 0;
        std::array<int64_t, N> sorted = ring_;
        const int rank = std::clamp(static_cast<int>(std::ceil(q * count_)), 1, count_);
        std::nth_element(sorted.begin(), sorted.begin() + (rank - 1), sorted.begin() + count_);
        return sorted[static_cast<std::size_t>(rank - 1)];
    }
    // The back-th newest value (1: the newest), back in [1, count()].
    int64_t newest(int back) const { return ring_[slot_back(back)]; }
    // The median of the newest `newest` values (at most count()).
    int64_t median_of_last(int newest) const {
        std::array<int64_t, N> last{};
        for (int i = 0; i < newest; ++i) last[static_cast<std::size_t>(i)] = ring_[slot_back(i + 1)];
        return median_of(last, newest);
    }

private:
    int64_t at(int i) const { return ring_[static_cast<std::size_t>(i)]; }   // storage order
    std::size_t slot_back(int back) const { return static_cast<std::size_t>((next_ + N - back) % N); }

    std::array<int64_t, N> ring_{};
    int count_ = 0, next_ = 0;
};

}  // namespace pacer::detail
