// The combinatorial number system: k distinct squares chosen among n, ranked
// 0..C(n,k)-1 without gaps. Squares are given as "compressed" positions
// 0..n-1 (the place of a square among the squares available to the group);
// index.hpp maps board squares to compressed positions and back.
//
// A set c_1 < c_2 < ... < c_k has rank C(c_1,1) + C(c_2,2) + ... + C(c_k,k).
// Unranking finds, from the top, the largest c with C(c,k) <= r: a table keyed
// by the leading bits of r gives c or a value at most two below it, checked
// without a branch; the last two or three pieces come from tables of every
// pair and triple in rank order (docs/design.md, "Index").
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <utility>

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
    // Without a branch: below 32 the exponent is taken as 5, and r >> 0 = r;
    // from 32 on, r >> (e - 5) is 32 + the mantissa.
    const int shift = std::bit_width(r | exact_keys) - 1 - mantissa_bits;
    return (shift << mantissa_bits) + static_cast<int>(r >> shift);
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
    // The most steps from start[k][key] to the answer for any r of that key.
    int max_steps = 0;
    constexpr SearchTable() {
        for (int k = 2; k <= max_table_k; ++k) {
            int c = k - 1;  // C(k-1, k) = 0 <= every r
            for (int key = 0; key < key_count; ++key) {
                const std::uint64_t floor = key_floor(key);
                while (c < max_n && binomials.value[k][c + 1] <= floor) ++c;
                start[k][key] = static_cast<std::uint8_t>(c);
            }
            // Every r of a key is below the next key's floor, so its answer
            // is at most the next key's start.
            for (int key = 0; key + 1 < key_count; ++key)
                if (start[k][key + 1] - start[k][key] > max_steps) max_steps = start[k][key + 1] - start[k][key];
        }
    }
};
// Defined in combination.cpp, computed by the compiler there only (it takes
// a few seconds of compile time, once).
extern const SearchTable search_table;

// The largest c with C(c, k) <= r, and C(c, k), for 2 <= k and r < C(max_n, k).
struct Step {
    int c;
    std::uint64_t binomial;
};

inline Step largest_below(std::uint64_t r, int k) noexcept {
    const auto& row = binomials.value[k];
    if (k <= max_table_k) [[likely]] {
        // The three candidates are read at once and chosen without branches,
        // so each piece costs two dependent loads. start + 2 <= max_n + 1:
        // the answer is below max_n and start is not above it.
        const int start = search_table.start[k][key_of(r)];
        const std::uint64_t at0 = row[start], at1 = row[start + 1], at2 = row[start + 2];
        const bool one = at1 <= r, two = at2 <= r;
        return {start + one + two, two ? at2 : one ? at1 : at0};
    }
    int lo = k - 1, hi = max_n;  // row[lo] <= r < row[hi + 1]
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (row[mid] <= r) lo = mid; else hi = mid - 1;
    }
    return {lo, row[lo]};
}

// Rank of the pieces `group` among the squares `available` (group must be a
// subset of available): each piece's compressed position is the number of
// available squares below it.
template <class B>
inline std::uint64_t rank(B group, B available) noexcept {
    std::uint64_t r = 0;
    for (int i = 1; group; ++i) {
        const B low = draughts::pop_lowest(group);
        r += binomials.value[i][draughts::popcount(available & (low - 1))];
    }
    return r;
}

// The place of the lowest piece of `group` as rank_reversed() counts it:
// the available squares above it (group ^ (group - 1) is it and all below).
template <class B>
[[gnu::always_inline]] inline int place_above_lowest(B group, B available) noexcept {
    return draughts::popcount(available & ~(group ^ (group - 1)));
}

// rank_reversed() of a group of K pieces, unrolled: a group's size is a
// constant of its material, and the loop's counter and branches were
// nearly half of its instructions (callgrind, Brazilian KKMvKM).
template <int K, class B>
[[gnu::always_inline]] inline std::uint64_t rank_reversed_of(B group, B available) noexcept {
    std::uint64_t r = 0;
    [&]<int... J>(std::integer_sequence<int, J...>) {
        ((r += binomials.value[K - J][place_above_lowest(group, available)], group &= group - 1), ...);
    }(std::make_integer_sequence<int, K>{});
    return r;
}

// rank(rotated(group), rotated(available)) for a map of the squares that
// reverses their order (the board turned by 180 degrees), without turning
// anything: each piece's compressed position counts the available squares
// above it, and the highest piece is the first of the group. The pieces are
// taken from the lowest up (the last of the group first), so that no
// variable shift or search for the highest bit is needed.
template <class B>
inline std::uint64_t rank_reversed(B group, B available) noexcept {
    switch (draughts::popcount(group)) {
        case 0: return 0;
        case 1: return rank_reversed_of<1>(group, available);
        case 2: return rank_reversed_of<2>(group, available);
        case 3: return rank_reversed_of<3>(group, available);
        case 4: return rank_reversed_of<4>(group, available);
        default: break;
    }
    std::uint64_t r = 0;
    for (int i = draughts::popcount(group); group; --i) {
        r += binomials.value[i][place_above_lowest(group, available)];
        group &= group - 1;
    }
    return r;
}

// The squares strictly above each bit: the mask whose popcount places a
// piece in rank_reversed().
template <class B>
inline constexpr std::array<B, 128> squares_above = [] {
    std::array<B, 128> table{};
    for (int b = 0; b + 1 < static_cast<int>(8 * sizeof(B)); ++b) table[b] = ~((B{1} << (b + 1)) - 1);
    return table;
}();

// rank_reversed() of a group with one of its pieces moved, for many moves
// of the same group among the same available squares (the mover's king
// moves, run backwards, in the solver's queue). On two-word boards the
// pieces that stay are placed once: they keep their places, and the moved
// piece goes in among them, so with the pieces that stay at places
// s_1 < ... < s_(k-1), m of them below the moved piece's place c, the rank is
//     C(s_1,1) + ... + C(s_m,m) + C(c,m+1) + C(s_(m+1),m+2) + ... + C(s_(k-1),k):
// the sums before and after m are set up once for each piece that moves
// (lift), and a move costs one popcount and k - 1 comparisons. On one-word
// boards rank_reversed() itself is cheaper than that set-up, shared by the
// few moves of a short king or a small board (measured: docs/results.md,
// "Solver speed (issue 14, second step)"), so it is what is called.
template <class B>
inline constexpr bool place_once = sizeof(B) > 8;

// The pieces of a group from the lowest up, each with its place as
// rank_reversed() counts it (the available squares above it): places in
// decreasing order, piece j the (k - j)-th of the group.
template <class B>
struct PlacedGroup {
    int k = 0;
    std::array<std::uint8_t, max_n> square, place;
    PlacedGroup(B group, B available) noexcept {
        for (; group; ++k) {
            square[k] = static_cast<std::uint8_t>(draughts::lowest_bit(group));
            place[k] = static_cast<std::uint8_t>(place_above_lowest(group, available));
            group &= group - 1;
        }
    }
};

template <class B>
class MovedRanks {
public:
    MovedRanks(B group, B available) noexcept
        : group_(group), available_(available), pieces_(place_once<B> ? group : B{0}, available) {}

    // rank_reversed(group without `from` and with `to`, available); `to`
    // must be available and not in the group.
    std::uint64_t rank(int from, int to) noexcept {
        if constexpr (!place_once<B>) {
            return rank_reversed(group_ ^ draughts::bit<B>(from) ^ draughts::bit<B>(to), available_);
        } else {
            if (from != lifted_) lift(from);
            const int c = draughts::popcount(available_ & squares_above<B>[to]);
            int m = 0;
            for (int j = 0; j + 1 < pieces_.k; ++j) m += staying_[j] < c;
            return before_[m] + binomials.value[m + 1][c] + after_[m];
        }
    }

private:
    void lift(int from) noexcept {
        lifted_ = from;
        int n = 0;
        for (int j = pieces_.k - 1; j >= 0; --j)  // increasing places
            if (pieces_.square[j] != from) staying_[n++] = pieces_.place[j];
        before_[0] = 0;
        for (int m = 0; m < n; ++m) before_[m + 1] = before_[m] + binomials.value[m + 1][staying_[m]];
        after_[n] = 0;
        for (int m = n - 1; m >= 0; --m) after_[m] = after_[m + 1] + binomials.value[m + 2][staying_[m]];
    }

    B group_, available_;
    PlacedGroup<B> pieces_;  // empty on one-word boards
    int lifted_ = -1;
    std::array<std::uint8_t, max_n> staying_;
    std::array<std::uint64_t, max_n> before_, after_;
};

// rank_reversed() of a group that stays while a piece of another group
// moves from `from` (not available to this group) to `to` (available): the
// available squares change by those two, so on two-word boards each piece
// is placed once, and its place moves by one where `from` is above it and
// back by one where `to` is (one-word boards: as MovedRanks).
template <class B>
class RankBesideMove {
public:
    RankBesideMove(B group, B available) noexcept
        : group_(group), available_(available), pieces_(place_once<B> ? group : B{0}, available) {}

    std::uint64_t rank(int from, int to) const noexcept {
        if constexpr (!place_once<B>) {
            return rank_reversed(group_, available_ ^ draughts::bit<B>(from) ^ draughts::bit<B>(to));
        } else {
            std::uint64_t r = 0;
            for (int j = 0; j < pieces_.k; ++j) {
                const int s = pieces_.square[j];
                r += binomials.value[pieces_.k - j][pieces_.place[j] + (from > s) - (to > s)];
            }
            return r;
        }
    }

private:
    B group_, available_;
    PlacedGroup<B> pieces_;  // empty on one-word boards
};

// The last two or three pieces of a group come from tables that list every
// set in rank order: the colex rank of a set does not depend on n, so one
// table serves every board. Three bytes per set, in a 32-bit word:
// 2,556 pairs (10 KB) and 59,640 triples (233 KB, of which 10x10 boards use
// the first 19,600).
struct TailTables {
    std::array<std::uint32_t, 2556> pairs{};
    std::array<std::uint32_t, 59640> triples{};
    constexpr TailTables() {
        std::size_t r = 0;
        for (std::uint32_t b = 1; b < max_n; ++b)
            for (std::uint32_t a = 0; a < b; ++a) pairs[r++] = a | b << 8;
        r = 0;
        for (std::uint32_t c = 2; c < max_n; ++c)
            for (std::uint32_t b = 1; b < c; ++b)
                for (std::uint32_t a = 0; a < b; ++a) triples[r++] = a | b << 8 | c << 16;
    }
};
extern const TailTables tail_tables;  // in combination.cpp

template <class B>
inline B positions_of(std::uint32_t packed) noexcept {
    return draughts::bit<B>(packed & 0xff) | draughts::bit<B>((packed >> 8) & 0xff) |
           draughts::bit<B>(static_cast<int>(packed >> 16));
}

// The k compressed positions of rank r, as a bit set of positions 0..n-1.
template <class B>
inline B unrank_compressed(std::uint64_t r, int k) noexcept {
    switch (k) {
        case 0: return 0;
        case 1: return draughts::bit<B>(static_cast<int>(r));
        case 2: {
            const std::uint32_t p = tail_tables.pairs[r];
            return draughts::bit<B>(p & 0xff) | draughts::bit<B>(static_cast<int>(p >> 8));
        }
        case 3: return positions_of<B>(tail_tables.triples[r]);
        case 4: {  // the most common group after the tables' sizes: one step, no loop
            const Step step = largest_below(r, 4);
            return draughts::bit<B>(step.c) | positions_of<B>(tail_tables.triples[r - step.binomial]);
        }
        default: {
            B positions = 0;
            for (int i = k; i > 3; --i) {
                const Step step = largest_below(r, i);
                r -= step.binomial;
                positions |= draughts::bit<B>(step.c);
            }
            return positions | positions_of<B>(tail_tables.triples[r]);
        }
    }
}

// The next larger set of as many compressed positions as c (not empty),
// which is the next in rank order: a few bit operations, not an unrank.
template <class B>
[[gnu::always_inline]] inline B next_compressed(B c) noexcept {
    const B t = c | (c - 1);
    return (t + 1) | (((~t & (t + 1)) - 1) >> (draughts::lowest_bit(c) + 1));
}

// The number of groups of as many pieces as `group` among the squares
// `available` that come before it in rank (colexicographic) order; `group`
// may stand on squares not available. rank(group, available) when it does not.
template <class B>
inline std::uint64_t rank_below(B group, B available) noexcept {
    std::uint64_t r = 0;
    for (int i = draughts::popcount(group); i > 0; --i) {
        const B top = draughts::bit<B>(draughts::highest_bit(group));
        r += binomials.value[i][draughts::popcount(available & (top - 1))];
        if (!(available & top)) break;  // no group among `available` shares it: those below are all counted
        group ^= top;
    }
    return r;
}

// The k pieces of rank r among the squares `available`.
template <class B>
inline B unrank(std::uint64_t r, int k, B available) noexcept {
    return draughts::deposit_bits(unrank_compressed<B>(r, k), available);
}

}  // namespace dtb::combination
