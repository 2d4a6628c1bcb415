// Board geometry of an N x N draughts board: square numbers, the padded bit
// layout, directions and row masks, all computed at compile time.
//
// Layout (docs/design.md, "Bitboards"): dark square (row r, column x), rows
// counted from the top, gets bit (r * (N + 1) + x - 1) / 2. Every pair of rows
// uses N + 1 bits, the last of which is a ghost bit that no square owns, so a
// diagonal step is a shift by N/2 or N/2 + 1 and a step off the left or right
// edge lands on a ghost bit (or outside the board) instead of wrapping around.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>

#include "draughts/bitboard.hpp"

namespace draughts {

enum class Color : std::uint8_t { white = 0, black = 1 };

constexpr Color opposite(Color c) noexcept { return c == Color::white ? Color::black : Color::white; }

template <int N>
struct Geometry {
    static_assert(N % 2 == 0 && N >= 4 && N <= 12, "boards are even-sized, 4x4 to 12x12");

    static constexpr int size = N;
    static constexpr int half = N / 2;              // dark squares per row
    static constexpr int squares = N * N / 2;       // dark squares on the board
    static constexpr int bits = half * (N + 1) - 1;  // highest bit used, plus one
    using Bitboard = std::conditional_t<bits <= 64, std::uint64_t, u128>;

    // Diagonal steps as bit shifts. "Up" is towards row 1 (Black's side),
    // the direction White's men move.
    static constexpr int up_left = -(half + 1);
    static constexpr int up_right = -half;
    static constexpr int down_left = half;
    static constexpr int down_right = half + 1;

    // Square index (PDN number minus one) to bit, and back (-1 for ghosts).
    static constexpr int bit_of_square(int square) noexcept {
        const int row = square / half, i = square % half;
        return (row / 2) * (N + 1) + (row % 2) * half + i;
    }
    static constexpr int row_of_square(int square) noexcept { return square / half; }
    // Column 0..N-1 from the left, of a square.
    static constexpr int column_of_square(int square) noexcept {
        const int row = square / half, i = square % half;
        return 2 * i + (row % 2 == 0 ? 1 : 0);
    }

    static constexpr std::array<std::int8_t, bits> square_of_bit = [] {
        std::array<std::int8_t, bits> table{};
        for (auto& s : table) s = -1;
        for (int s = 0; s < squares; ++s) table[bit_of_square(s)] = static_cast<std::int8_t>(s);
        return table;
    }();

    static constexpr Bitboard row_mask(int row) noexcept {
        Bitboard m = 0;
        for (int i = 0; i < half; ++i) m |= bit<Bitboard>(bit_of_square(row * half + i));
        return m;
    }

    static constexpr Bitboard board = [] {
        Bitboard m = 0;
        for (int r = 0; r < N; ++r) m |= row_mask(r);
        return m;
    }();

    // The long diagonal from White's lower-left corner to the upper right
    // corner (the Russian "main road", FMJD-64 7.2.7). Turning the board
    // round maps it onto itself.
    static constexpr Bitboard main_road = [] {
        Bitboard m = 0;
        for (int s = 0; s < squares; ++s)
            if (row_of_square(s) + column_of_square(s) == N - 1) m |= bit<Bitboard>(bit_of_square(s));
        return m;
    }();

    // The row where a colour's men promote: row 1 for White, row N for Black.
    static constexpr Bitboard promotion_row(Color c) noexcept {
        return c == Color::white ? row_mask(0) : row_mask(N - 1);
    }

    // The squares a slide from bit b along step D passes over, to the edge
    // of the board (b itself not included). A flying king's moves and
    // captures along D are found from its ray and the nearest piece on it
    // (nearest<D>) instead of step by step.
    template <int D>
    static constexpr std::array<Bitboard, bits> rays = [] {
        std::array<Bitboard, bits> table{};
        for (int b = 0; b < bits; ++b) {
            if (!(board & bit<Bitboard>(b))) continue;
            for (Bitboard t = shift<D>(bit<Bitboard>(b)) & board; t; t = shift<D>(t) & board) table[b] |= t;
        }
        return table;
    }();
    template <int D>
    static constexpr Bitboard ray(int b) noexcept { return rays<D>[b]; }

    // The squares on the four rays from bit b: every square a king on b
    // could capture along, at any distance.
    static constexpr std::array<Bitboard, bits> lines = [] {
        std::array<Bitboard, bits> table{};
        for (int b = 0; b < bits; ++b)
            table[b] = rays<up_left>[b] | rays<up_right>[b] | rays<down_left>[b] | rays<down_right>[b];
        return table;
    }();

    // The square of `squares` (not empty, part of one ray along D) nearest
    // the ray's start: steps down the board go to higher bits.
    template <int D>
    static constexpr int nearest(Bitboard squares) noexcept {
        if constexpr (D > 0)
            return lowest_bit(squares);
        else
            return highest_bit(squares);
    }

    // The squares of ray<D>(b) before the first of `occupied` on it: where
    // a flying king on b can slide.
    template <int D>
    static constexpr Bitboard slide(int b, Bitboard occupied) noexcept {
        const Bitboard r = ray<D>(b), blockers = r & occupied;
        if (!blockers) return r;
        const int first = nearest<D>(blockers);
        return r ^ ray<D>(first) ^ bit<Bitboard>(first);
    }

    // Calls f(bit index) for the squares of `squares` (part of one ray
    // along D), nearest the ray's start first.
    template <int D, class F>
    static constexpr void for_each_nearest_first(Bitboard squares, F&& f) {
        if constexpr (D > 0) {
            for_each_bit(squares, f);
        } else {
            while (squares) {
                const int b = highest_bit(squares);
                f(b);
                squares ^= bit<Bitboard>(b);
            }
        }
    }

    // 180-degree rotation maps bit b to bits - 1 - b (ghosts to ghosts).
    static constexpr Bitboard rotate(Bitboard b) noexcept {
        return reverse_bits(b) >> (8 * sizeof(Bitboard) - bits);
    }
};

}  // namespace draughts
