// The positions a compact .wld leaves out (docs/format.md, "Versions";
// docs/probing.md, "Compact search tables"): those a one-ply search answers
// within the table's material. Its writer (builder/output/table_writer.cpp,
// through left_out_of() in wld_reader.hpp) and the prober (prober.hpp) both
// decide by this one rule.
//
// A position is threatened when its side to move has no capture and the
// other side has one (the capture it would make if it were to move: about
// one position in seven of American checkers up to 6 pieces, one in two of
// the flying kings' variants). It is left out when it is threatened and
// none of its moves leads to a threatened position: its value is then the
// best over its children, each stored or a capture position, so the search
// that answers it is one ply deep within its material (a capture leads to
// a smaller one). A threatened position with a threatened child is stored.
#pragma once

#include "draughts/movegen.hpp"

namespace dtb {

// Whether the side not to move in p has a capture.
template <class V>
bool other_side_captures(draughts::Position<V::board_size> p) {
    p.side_to_move = draughts::opposite(p.side_to_move);
    return draughts::has_capture<V>(p);
}

template <class V>
bool threatened(const draughts::Position<V::board_size>& p) {
    return !draughts::has_capture<V>(p) && other_side_captures<V>(p);
}

// Whether no move of p (`moves`, its legal moves) leads to a threatened position.
template <class V>
bool no_threatened_child(const draughts::Position<V::board_size>& p, const draughts::MoveList<V::board_size>& moves) {
    for (const auto& m : moves) {
        draughts::Position<V::board_size> child = p;
        draughts::make_move(child, m);
        if (threatened<V>(child)) return false;
    }
    return true;
}

template <class V>
bool left_out(const draughts::Position<V::board_size>& p) {
    if (!threatened<V>(p)) return false;
    draughts::MoveList<V::board_size> moves;
    draughts::generate_moves<V>(p, moves);
    return no_threatened_child<V>(p, moves);
}

}  // namespace dtb
