// A move: where the piece starts and stops, what it captures and whether it
// is crowned. Two capture sequences with the same start, end and captured set
// give the same position, and are the same move.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>

#include "draughts/position.hpp"

namespace draughts {

template <int N>
struct Move {
    using Bitboard = typename Geometry<N>::Bitboard;

    // No default member initializers: a MoveList of them must cost nothing to create.
    Bitboard captured;    // captured pieces (empty for a quiet move)
    std::uint8_t from;    // bit index of the start square
    std::uint8_t to;      // bit index of the end square (may equal from)
    bool promotes;        // a man is crowned by this move

    constexpr bool is_capture() const noexcept { return captured != 0; }
    friend constexpr bool operator==(const Move&, const Move&) = default;
};

// The largest number of moves a position can have: 4 king moves per empty square
// bound the quiet moves (288 on 12x12); capture lists are checked against it.
inline constexpr int max_moves = 1024;

class TooManyMoves : public std::length_error {
public:
    TooManyMoves() : std::length_error("position has more legal moves than the move list holds (1024)") {}
};

[[noreturn, gnu::cold, gnu::noinline]] inline void throw_too_many_moves() { throw TooManyMoves(); }

template <int N>
class MoveList {
public:
    using value_type = Move<N>;

    void push_back(const Move<N>& m) {
        if (size_ == max_moves) [[unlikely]]
            throw_too_many_moves();
        moves_[size_++] = m;
    }
    void clear() noexcept { size_ = 0; }
    int size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    Move<N>& operator[](int i) noexcept { return moves_[i]; }
    const Move<N>& operator[](int i) const noexcept { return moves_[i]; }
    const Move<N>* begin() const noexcept { return moves_.data(); }
    const Move<N>* end() const noexcept { return moves_.data() + size_; }
    Move<N>* begin() noexcept { return moves_.data(); }
    Move<N>* end() noexcept { return moves_.data() + size_; }

private:
    int size_ = 0;
    std::array<Move<N>, max_moves> moves_;
};

template <int N>
constexpr void make_move(Position<N>& p, const Move<N>& m) noexcept {
    using Bitboard = typename Geometry<N>::Bitboard;
    const Bitboard from = bit<Bitboard>(m.from), to = bit<Bitboard>(m.to);
    const Bitboard travel = from ^ to;  // zero when a capture ends where it began
    if (p.side_to_move == Color::white) {
        p.white ^= travel;
        p.black &= ~m.captured;
    } else {
        p.black ^= travel;
        p.white &= ~m.captured;
    }
    if (p.kings & from)
        p.kings ^= travel;
    else if (m.promotes)
        p.kings |= to;
    p.kings &= ~m.captured;
    p.side_to_move = opposite(p.side_to_move);
}

}  // namespace draughts
