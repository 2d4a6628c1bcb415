// Setting up the positions of a block pair (docs/design.md, "Solver"): a
// position with a capture is settled at once with the best over its
// captures; any other gets a counter of its king moves and its best exit
// (man moves and promotions), and enters the queue if that settles it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "builder/values/capture_values.hpp"
#include "builder/values/solved_values.hpp"
#include "builder/solver/pair_space.hpp"
#include "builder/solver/pair_state.hpp"
#include "draughts/movegen.hpp"
#include "probe/value.hpp"

namespace dtb {

// Where the values outside a pair come from when one process solves the
// material: other materials from `successors`, this one from `own` (its
// values, the levels above solved). Positions are set up in groups
// (PairSpace::for_each_position), whose captures are found and prefetched
// together (CaptureValues).
template <class V>
struct DirectSource {
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Bitboard = typename Position::Bitboard;
    using ManExit = typename PairSpace<V>::ManExit;

    DirectSource(const Successors<V>& successors, const SolvedValues& own) : own(own), captures(successors) {}
    const SolvedValues& own;
    CaptureValues<V> captures;

    void prepare(std::span<const Position> group) { captures.prepare(group); }
    std::optional<Value> capture_value(const typename PairSpace<V>::Layout&, std::uint64_t, const Position&) {
        return captures.next();
    }
    Value promotion(const Position& child) { return captures.child_value(child); }
    Value man_move(const ManExit& e, Bitboard white_kings, Bitboard black_kings) const {
        return value_of_dtw_code(own.code(e.child(white_kings, black_kings)));
    }
};

// The best exit of position q (in half h of its pair) for its side to move
// over its men's moves (PairSpace::ManExit), a loss in 0 if it has none:
// `promotion(child)` gives a promotion's value for the mover from the
// position after it, `man_move(exit, white_kings, black_kings)` any other's
// and that of a promotion whose children a team fetched (ManExit).
template <class V, class Promotion, class ManMove>
Value best_man_exit(const typename PairSpace<V>::Layout& layout, int h, const draughts::Position<V::board_size>& q,
                    Promotion&& promotion, ManMove&& man_move) {
    using Position = draughts::Position<V::board_size>;
    Value exit = Value::loss(0);  // no exit: as good as a loss in 0 when counting the slowest loss
    const auto white_kings = q.kings_of(draughts::Color::white), black_kings = q.kings_of(draughts::Color::black);
    for (int i = 0; i < layout.man_exit_count[h]; ++i) {
        const auto& e = layout.man_exits[h][i];
        if (e.target & q.kings) continue;
        Value v;
        if (e.promotes && !e.index) {  // else fetched by a team, read as a man move's
            Position child = q;
            draughts::make_move(child, draughts::Move<V::board_size>{0, e.from, e.to, true});
            v = promotion(child);
        } else {
            v = man_move(e, white_kings, black_kings);
        }
        if (preferred(v, exit)) exit = v;
    }
    return exit;
}

// Sets up position q, local position `local`, state `at`, its code at `s`
// of `store`: settles it at once if it has a capture (marked through
// `marks`, whose values are `store`) or no king move, else records its
// counter and best exit.
template <class V, bool Shared, class Push, class Source>
void initialise(SolvedValues& store, CaptureMarks& marks, const typename PairSpace<V>::Layout& layout, std::uint64_t local,
                std::uint64_t s, std::uint32_t at, const draughts::Position<V::board_size>& q,
                const PairStates<Shared>& states, Push& push, Source& source) {
    using namespace pair_state;
    using Position = draughts::Position<V::board_size>;
    using Bitboard = typename Position::Bitboard;
    using ManExit = typename PairSpace<V>::ManExit;
    std::uint16_t& code = store.code(s);
    auto settle = [&](Value v) {
        code = static_cast<std::uint16_t>(dtw_code(v));
        if (v.wdl == Wdl::draw) {
            states.store(at, done);  // a draw tells its predecessors nothing
        } else {
            states.store(at, settled);
            push(v.plies, at);
        }
    };
    if (const std::optional<Value> v = source.capture_value(layout, local, q)) {
        marks.mark(s);
        return settle(*v);
    }
    const int king_moves = draughts::count_king_moves<V>(q, draughts::Color::white);
    const Value exit = best_man_exit<V>(
        layout, layout.half_of(local), q, [&](const Position& child) { return before_move(source.promotion(child)); },
        [&](const ManExit& e, Bitboard white_kings, Bitboard black_kings) {
            return before_move(source.man_move(e, white_kings, black_kings));
        });
    // With no move at all, exit is still a loss in 0: the value.
    if (king_moves == 0) return settle(exit);
    if (king_moves >= cannot_lose)
        throw std::runtime_error(store.material.name() + ": a position with " + std::to_string(king_moves) +
                                 " king moves; the solver counts at most 252");
    code = static_cast<std::uint16_t>(dtw_code(exit));
    if (exit.wdl == Wdl::loss) {
        states.store(at, static_cast<std::uint8_t>(king_moves));
    } else {
        states.store(at, cannot_lose);
        if (exit.wdl == Wdl::win) push(exit.plies, at);  // a win at most this long
    }
}

}  // namespace dtb
