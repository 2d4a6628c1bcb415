// A position: the pieces of both colours, which of them are kings, and the
// side to move. Plain bitboards, cheap to copy.
#pragma once

#include "draughts/geometry.hpp"

namespace draughts {

template <int N>
struct Position {
    using geometry = Geometry<N>;
    using Bitboard = typename geometry::Bitboard;

    Bitboard white = 0;
    Bitboard black = 0;
    Bitboard kings = 0;
    Color side_to_move = Color::white;

    constexpr Bitboard pieces(Color c) const noexcept { return c == Color::white ? white : black; }
    constexpr Bitboard men(Color c) const noexcept { return pieces(c) & ~kings; }
    constexpr Bitboard kings_of(Color c) const noexcept { return pieces(c) & kings; }
    constexpr Bitboard occupied() const noexcept { return white | black; }
    constexpr Bitboard empty() const noexcept { return geometry::board & ~occupied(); }

    friend constexpr bool operator==(const Position&, const Position&) = default;

    // The position seen from the other side: the board turned by 180 degrees
    // and the colours swapped, the other side to move. Values are unchanged
    // by it (docs/design.md, "Materials, index, symmetry"); flipping twice gives the position back.
    constexpr Position flipped() const noexcept {
        return Position{geometry::rotate(black), geometry::rotate(white), geometry::rotate(kings),
                        opposite(side_to_move)};
    }

    // The start position of a game with `rows` rows of men each and the given first mover.
    static constexpr Position start(int rows, Color first_to_move) noexcept {
        Position p;
        for (int r = 0; r < rows; ++r) p.black |= geometry::row_mask(r);
        for (int r = N - rows; r < N; ++r) p.white |= geometry::row_mask(r);
        p.side_to_move = first_to_move;
        return p;
    }
};

// The start position of a variant.
template <class V>
constexpr Position<V::board_size> start_position() noexcept {
    return Position<V::board_size>::start(V::start_rows, V::first_to_move);
}

}  // namespace draughts
