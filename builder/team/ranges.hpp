// Things shared out among the members of a team: the bounds of each
// member's share, the same on every member.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dtb {

// The first of member j's share when `total` things are shared out among
// `members`: total * j / members, rounded down, without overflow.
inline std::uint64_t share_bound(std::uint64_t total, int j, int members) noexcept {
    __extension__ typedef unsigned __int128 wide;  // __extension__: silenced for -Wpedantic
    return static_cast<std::uint64_t>(static_cast<wide>(total) * static_cast<unsigned>(j) / static_cast<unsigned>(members));
}

// Positions [0, total) split into `members` ranges whose boundaries are
// multiples of 2^align_shift: member j holds [bounds[j], bounds[j + 1]).
// Every member computes the same split.
struct Ranges {
    std::vector<std::uint64_t> bounds;

    static Ranges split(std::uint64_t total, int members, int align_shift) {
        Ranges r;
        const std::uint64_t units = (total + (std::uint64_t{1} << align_shift) - 1) >> align_shift;
        for (int j = 0; j <= members; ++j) {
            r.bounds.push_back(std::min(total, share_bound(units, j, members) << align_shift));
        }
        return r;
    }
    // The member whose range holds position g < total.
    int owner(std::uint64_t g) const noexcept {
        return static_cast<int>(std::upper_bound(bounds.begin() + 1, bounds.end() - 1, g) - bounds.begin()) - 1;
    }
    std::uint64_t first(int member) const noexcept { return bounds[member]; }
    std::uint64_t count(int member) const noexcept { return bounds[member + 1] - bounds[member]; }
};

}  // namespace dtb
