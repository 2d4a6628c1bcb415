// Perft: the number of move sequences of a given length from a position,
// with the last ply counted rather than played ("bulk counting").
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "draughts/movegen.hpp"

namespace draughts {

template <class V>
std::uint64_t perft(const Position<V::board_size>& p, int depth) {
    if (depth <= 0) return 1;
    if (depth == 1) return static_cast<std::uint64_t>(count_moves<V>(p));
    MoveList<V::board_size> moves;
    generate_moves<V>(p, moves);
    std::uint64_t leaves = 0;
    for (const auto& m : moves) {
        auto next = p;
        make_move(next, m);
        leaves += perft<V>(next, depth - 1);
    }
    return leaves;
}

// Each root move with the leaf count below it.
template <class V>
std::vector<std::pair<Move<V::board_size>, std::uint64_t>> perft_divide(const Position<V::board_size>& p,
                                                                         int depth) {
    std::vector<std::pair<Move<V::board_size>, std::uint64_t>> result;
    if (depth <= 0) return result;
    MoveList<V::board_size> moves;
    generate_moves<V>(p, moves);
    for (const auto& m : moves) {
        auto next = p;
        make_move(next, m);
        result.emplace_back(m, perft<V>(next, depth - 1));
    }
    return result;
}

}  // namespace draughts
