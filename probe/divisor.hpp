// Division of 64-bit numbers by a divisor fixed at run time, without a
// hardware divide and without branches: one high multiply, a subtraction and
// two shifts (the round-up method of Granlund and Montgomery, "Division by
// invariant integers using multiplication", 1994, with its 65-bit multiplier
// split as in Hacker's Delight 10-8), exact for every n and d < 2^64. The
// index unranks with it.
//
// Not libdivide: its branch-free form refuses the divisor 1, which every
// index uses (a group with no piece has one placement), and its other form
// branches on the divisor, which mispredicts when the divisors of the men
// splits alternate from one call to the next (docs/design.md, "Index").
#pragma once

#include <bit>
#include <cstdint>

#include "draughts/bitboard.hpp"

namespace dtb {

class Divisor {
public:
    constexpr Divisor() noexcept : Divisor(1) {}
    // d >= 1.
    constexpr explicit Divisor(std::uint64_t d) noexcept : d_(d) {
        if (d > 1) {
            // l = ceil(log2 d); magic = floor(2^64 (2^l - d) / d) + 1, the low
            // 64 bits of the 65-bit multiplier ceil(2^(64+l) / d).
            const int l = 64 - std::countl_zero(d - 1);
            const draughts::u128 two_l = draughts::u128{1} << l;
            magic_ = static_cast<std::uint64_t>(((two_l - d) << 64) / d) + 1;
            shift_ = l - 1;
        }
    }

    constexpr std::uint64_t divide(std::uint64_t n) const noexcept {
        const auto t = static_cast<std::uint64_t>((static_cast<draughts::u128>(magic_) * n) >> 64);
        const std::uint64_t q = (t + ((n - t) >> 1)) >> shift_;
        return d_ == 1 ? n : q;
    }

private:
    std::uint64_t d_;
    std::uint64_t magic_ = 0;
    int shift_ = 0;
};

constexpr std::uint64_t operator/(std::uint64_t n, const Divisor& d) noexcept { return d.divide(n); }

}  // namespace dtb
