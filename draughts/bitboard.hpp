// Bitboards: one bit per dark square in the padded layout of geometry.hpp.
// 8x8 and 10x10 fit a 64-bit word; 12x12 needs 77 bits and uses a 128-bit one.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

namespace draughts {

__extension__ typedef unsigned __int128 u128;  // __extension__: a GCC and Clang type, silenced for -Wpedantic

template <class B>
constexpr int popcount(B b) noexcept {
    if constexpr (std::is_same_v<B, u128>)
        return std::popcount(static_cast<std::uint64_t>(b)) +
               std::popcount(static_cast<std::uint64_t>(b >> 64));
    else
        return std::popcount(b);
}

// Index of the lowest set bit; b must not be zero.
template <class B>
constexpr int lowest_bit(B b) noexcept {
    if constexpr (std::is_same_v<B, u128>) {
        const auto lo = static_cast<std::uint64_t>(b);
        return lo ? std::countr_zero(lo) : 64 + std::countr_zero(static_cast<std::uint64_t>(b >> 64));
    } else {
        return std::countr_zero(b);
    }
}

// Index of the highest set bit; b must not be zero.
template <class B>
constexpr int highest_bit(B b) noexcept {
    if constexpr (std::is_same_v<B, u128>) {
        const auto hi = static_cast<std::uint64_t>(b >> 64);
        return hi ? 127 - std::countl_zero(hi) : 63 - std::countl_zero(static_cast<std::uint64_t>(b));
    } else {
        return 63 - std::countl_zero(b);
    }
}

template <class B>
constexpr B bit(int index) noexcept { return B{1} << index; }

// Removes and returns the lowest set bit as a one-bit board.
template <class B>
constexpr B pop_lowest(B& b) noexcept {
    const B low = b & (~b + 1);
    b ^= low;
    return low;
}

// Shift by a signed amount known at compile time: positive towards higher bits.
template <int Amount, class B>
constexpr B shift(B b) noexcept {
    if constexpr (Amount >= 0)
        return b << Amount;
    else
        return b >> -Amount;
}

constexpr std::uint64_t reverse_bits(std::uint64_t x) noexcept {
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
    return __builtin_bswap64(x);
}

constexpr u128 reverse_bits(u128 x) noexcept {
    return (u128{reverse_bits(static_cast<std::uint64_t>(x))} << 64) |
           reverse_bits(static_cast<std::uint64_t>(x >> 64));
}

// Scatters the low bits of `bits` into the set bits of `mask`, lowest first
// (the BMI2 instruction PDEP): bit i of the result's i-th mask bit is bit i of
// `bits`. Without BMI2, a loop over the mask.
constexpr std::uint64_t deposit_bits(std::uint64_t bits, std::uint64_t mask) noexcept {
#ifdef __BMI2__
    if (!std::is_constant_evaluated()) return __builtin_ia32_pdep_di(bits, mask);
#endif
    std::uint64_t result = 0;
    for (std::uint64_t m = mask; m; m &= m - 1, bits >>= 1)
        if (bits & 1) result |= m & (~m + 1);
    return result;
}

constexpr u128 deposit_bits(u128 bits, u128 mask) noexcept {
    const auto mask_lo = static_cast<std::uint64_t>(mask);
    const std::uint64_t lo = deposit_bits(static_cast<std::uint64_t>(bits), mask_lo);
    const std::uint64_t hi = deposit_bits(static_cast<std::uint64_t>(bits >> std::popcount(mask_lo)),
                                          static_cast<std::uint64_t>(mask >> 64));
    return (u128{hi} << 64) | lo;
}

// Calls f(square_index) for every set bit, lowest first.
template <class B, class F>
constexpr void for_each_bit(B b, F&& f) {
    while (b) {
        f(lowest_bit(b));
        b &= b - 1;
    }
}

}  // namespace draughts
