// Wins, draws, losses and the longest win of a table's values: what the
// manifest lists of each table, counted with every thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include "builder/system/work_profile.hpp"
#include "probe/value.hpp"

namespace dtb {

struct ValueCounts {
    std::uint64_t wins = 0, draws = 0, losses = 0;
    int longest = -1;  // plies, -1 if no win

    ValueCounts& operator+=(const ValueCounts& b) noexcept {
        wins += b.wins;
        draws += b.draws;
        losses += b.losses;
        longest = std::max(longest, b.longest);
        return *this;
    }
};

// The counts of values value_of(0) .. value_of(n - 1).
template <class ValueOf>
ValueCounts count_wdl(std::size_t n, ValueOf&& value_of) {
    constexpr std::size_t grain = std::size_t{1} << 16;
    work_profile::Step step(work_profile::Kind::count, (n + grain - 1) / grain);
    return tbb::parallel_reduce(
        tbb::blocked_range<std::size_t>(0, n, grain), ValueCounts{},
        [&](const tbb::blocked_range<std::size_t>& r, ValueCounts c) {
            const auto piece = step.piece((r.size() + grain - 1) / grain);
            for (std::size_t i = r.begin(); i != r.end(); ++i) {
                const Value value = value_of(i);
                if (value.wdl == Wdl::win) {
                    ++c.wins;
                    c.longest = std::max(c.longest, value.plies);
                } else {
                    ++(value.wdl == Wdl::loss ? c.losses : c.draws);
                }
            }
            return c;
        },
        [](ValueCounts a, const ValueCounts& b) { return a += b; });
}

}  // namespace dtb
