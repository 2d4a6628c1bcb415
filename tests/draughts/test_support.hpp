// Helpers for the game-layer tests: legal moves of a FEN as a sorted list of move texts.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "draughts/notation.hpp"

namespace draughts::test {

template <class V>
std::vector<std::string> legal_move_texts(const std::string& fen) {
    const auto p = parse_fen<V::board_size>(fen);
    MoveList<V::board_size> moves;
    generate_moves<V>(p, moves);
    std::vector<std::string> texts;
    for (const auto& m : moves) texts.push_back(move_to_text<V>(p, m));
    std::sort(texts.begin(), texts.end());
    return texts;
}

inline std::vector<std::string> sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
}

// The position after playing `move` (in move text) from `fen`, as a FEN.
template <class V>
std::string after(const std::string& fen, const std::string& move) {
    auto p = parse_fen<V::board_size>(fen);
    make_move(p, parse_move<V>(p, move));
    return to_fen(p);
}

}  // namespace draughts::test
