// The combinatorial number system: k distinct squares chosen among n, ranked
// 0..C(n,k)-1 without gaps. Squares are given as "compressed" positions
// 0..n-1 (the place of a square among the squares available to the group);
// index.hpp maps board squares to compressed positions and back.
//
// A set c_1 < c_2 < ... < c_k has rank C(c_1,1) + C(c_2,2) + ... + C(c_k,k).
// Unranking finds, from the top, the largest c with C(c,k) <= r; a table keyed
// by the leading bits of r gives that c or one just below it, so each piece
// costs a lookup and, on average, less than one step (docs/design.md, "Index").
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "draughts/bitboard.hpp"

namespace dtb::combination {

using draughts::u128;

inline constexpr int max_n = 72;             // the squares of a 12x12 board
inline constexpr std::uint64_t saturated = ~std::uint64_t{0};

// Exact binomial coefficient in 128 bits (C(72,36) < 2^70).
constexpr u128 binomial_exact(int n, int k) noexcept {
    if (k < 0 || n < 0 || k > n) return 0;
    if (k > n - k) k = n - k;
    u128 c = 1;
    for (int i = 1; i <= k; ++i) c = c * static_cast<u128>(n - k + i) / static_cast<u128>(i);
    return c;
}

// C(n, k) for 0 <= k <= max_n and 0 <= n <= max_n + 1, stored by k then n so
// that the unranking step reads neighbours. Values of 2^64 and more are kept
// as `saturated`: a group whose count does not fit 64 bits is refused by the
// index before any of its terms is used, and the sentinel at n = max_n + 1
// stops every search.
struct BinomialTable {
    std::array<std::array<std::uint64_t, max_n + 2>, max_n + 1> value{};
    constexpr BinomialTable() {
        // Pascal's rule with saturating sums: cheap enough for the compiler.
        for (int n = 0; n <= max_n; ++n)
            for (int k = 0; k <= max_n; ++k) {
                if (k == 0) { value[k][n] = 1; continue; }
                if (n == 0) { value[k][n] = 0; continue; }
                const std::uint64_t a = value[k - 1][n - 1], b = value[k][n - 1];
                value[k][n] = a > saturated - b ? saturated : a + b;
            }
        for (int k = 0; k <= max_n; ++k) value[k][max_n + 1] = saturated;
    }
};
inline constexpr BinomialTable binomials{};

constexpr std::uint64_t binomial(int n, int k) noexcept { return binomials.value[k][n]; }

// The leading-bits key of r: r itself below 32, else the exponent and the
// next 5 bits (a small floating-point number), so neighbouring keys differ by
// a factor of at most 1 + 1/32.
inline constexpr int mantissa_bits = 5;
inline constexpr int exact_keys = 1 << mantissa_bits;
inline constexpr int key_count = exact_keys + (64 - mantissa_bits) * exact_keys;

constexpr int key_of(std::uint64_t r) noexcept {
    if (r < exact_keys) return static_cast<int>(r);
    const int e = std::bit_width(r) - 1;  // >= mantissa_bits
    const int mantissa = static_cast<int>(r >> (e - mantissa_bits)) & (exact_keys - 1);
    return exact_keys + (e - mantissa_bits) * exact_keys + mantissa;
}

// The smallest r with the given key.
constexpr std::uint64_t key_floor(int key) noexcept {
    if (key < exact_keys) return static_cast<std::uint64_t>(key);
    const int e = (key - exact_keys) / exact_keys + mantissa_bits;
    const std::uint64_t mantissa = static_cast<std::uint64_t>((key - exact_keys) % exact_keys);
    return (exact_keys + mantissa) << (e - mantissa_bits);
}

// For groups of 2..max_table_k pieces: the largest c with C(c,k) <= key_floor.
// Larger groups (only in materials no one builds) use a binary search.
inline constexpr int max_table_k = 16;

struct SearchTable {
    std::array<std::array<std::uint8_t, key_count>, max_table_k + 1> start{};
    constexpr SearchTable() {
        for (int k = 2; k <= max_table_k; ++k) {
            int c = k - 1;  // C(k-1, k) = 0 <= every r
            for (int key = 0; key < key_count; ++key) {
                const std::uint64_t floor = key_floor(key);
                while (c < max_n && binomials.value[k][c + 1] <= floor) ++c;
                start[k][key] = static_cast<std::uint8_t>(c);
            }
        }
    }
};
inline constexpr SearchTable search_table{};

// The largest c with C(c, k) <= r, for k >= 1 and r < C(max_n, k).
inline int largest_below(std::uint64_t r, int k) noexcept {
    if (k == 1) return static_cast<int>(r);
    const auto& row = binomials.value[k];
    int c;
    if (k <= max_table_k) [[likely]] {
        c = search_table.start[k][key_of(r)];
    } else {
        int lo = k - 1, hi = max_n;  // row[lo] <= r < row[hi + 1]
        while (lo < hi) {
            const int mid = (lo + hi + 1) / 2;
            if (row[mid] <= r) lo = mid; else hi = mid - 1;
        }
        return lo;
    }
    while (row[c + 1] <= r) ++c;
    return c;
}

// Rank of the pieces `group` among the squares `available` (group must be a
// subset of available): each piece's compressed position is the number of
// available squares below it.
template <class B>
inline std::uint64_t rank(B group, B available) noexcept {
    std::uint64_t r = 0;
    for (int i = 1; group; ++i) {
        const B low = group & (~group + 1);
        r += binomials.value[i][draughts::popcount(available & (low - 1))];
        group ^= low;
    }
    return r;
}

// The k compressed positions of rank r, as a bit set of positions 0..n-1.
template <class B>
inline B unrank_compressed(std::uint64_t r, int k) noexcept {
    B positions = 0;
    for (int i = k; i >= 1; --i) {
        const int c = largest_below(r, i);
        r -= binomials.value[i][c];
        positions |= draughts::bit<B>(c);
    }
    return positions;
}

// The k pieces of rank r among the squares `available`.
template <class B>
inline B unrank(std::uint64_t r, int k, B available) noexcept {
    return draughts::deposit_bits(unrank_compressed<B>(r, k), available);
}

}  // namespace dtb::combination
