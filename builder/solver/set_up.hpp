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

#include "builder/solved_values.hpp"
#include "builder/solver/pair_space.hpp"
#include "builder/solver/pair_state.hpp"
#include "draughts/movegen.hpp"
#include "probe/value.hpp"

namespace dtb {

// Where the values outside a pair come from when one process solves the
// material: other materials from `successors`, this one from `own` (its
// values, the levels above solved).
//
// Positions are set up in groups (for_each_position): prepare() finds
// the captures of a whole group and the codes they lead to, prefetching
// each, before capture_value() reads any (in the tables of smaller
// materials, most are cache misses, and those of a group now overlap).
template <class V>
struct DirectSource {
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Bitboard = typename Position::Bitboard;
    using Move = draughts::Move<N>;
    using ManExit = typename PairSpace<V>::ManExit;

    DirectSource(const Successors<V>& successors, const SolvedValues& own)
        : successors(successors), own(own), codes(successors) {}
    const Successors<V>& successors;
    const SolvedValues& own;
    typename Successors<V>::TurnedCodes codes;  // the children of captures and promotions (Black to move)
    struct Child {
        const std::uint16_t* code;  // null: `value` read through the prober
        Value value;
    };
    std::vector<Child> children;                                // a group's, position by position
    std::vector<std::pair<std::uint32_t, std::uint32_t>> captures;  // per position of the group: its children
    std::size_t next = 0;                                       // the position capture_value() answers next
    draughts::CaptureBuffer<N> found;

    static constexpr std::uint32_t no_capture = ~std::uint32_t{0};

    void prepare(std::span<const Position> group) {
        children.clear();
        captures.clear();
        next = 0;
        for (const Position& q : group) {
            // With flying kings the search is the test: its first steps are
            // what has_capture() does, and most positions have a capture.
            // Short kings' test is a few shifts, cheaper than starting a search.
            found.clear();
            if (V::flying_kings || draughts::has_capture<V>(q)) draughts::search_captures<V>(q, found);
            if (found.size == 0) {
                captures.emplace_back(no_capture, no_capture);
                continue;
            }
            const auto first = static_cast<std::uint32_t>(children.size());
            for (const Move& m : found) {
                Position child = q;
                draughts::make_move(child, m);
                if (const std::uint16_t* code = codes.find(child)) {
                    __builtin_prefetch(code);
                    children.push_back({code, Value::draw()});
                } else {
                    children.push_back({nullptr, successors.value(child)});
                }
            }
            captures.emplace_back(first, static_cast<std::uint32_t>(children.size()));
        }
    }
    // The value of the group's next position if it has a capture.
    std::optional<Value> capture_value(const typename PairSpace<V>::Layout&, std::uint64_t, const Position&) {
        const auto [first, last] = captures[next++];
        if (first == no_capture) return std::nullopt;
        Value best = Value::loss(0);  // as best_over_moves()
        for (std::uint32_t i = first; i < last; ++i) {
            const Child& c = children[i];
            const Value v = before_move(c.code ? value_of_dtw_code(*c.code) : c.value);
            if (preferred(v, best)) best = v;
        }
        return best;
    }
    Value promotion(const Position& child) {
        if (const std::uint16_t* code = codes.find(child)) return value_of_dtw_code(*code);
        return successors.value(child);
    }
    Value man_move(const ManExit& e, Bitboard white_kings, Bitboard black_kings) const {
        return value_of_dtw_code(own.code(e.child(white_kings, black_kings)));
    }
};

// Sets up position q, local position `local`, state `at`: settles it at
// once if it has a capture or no king move, else records its counter and
// best exit.
template <class V, bool Shared, class Push, class Source>
void initialise(SolvedValues& store, const typename PairSpace<V>::Layout& layout, std::uint64_t local,
                std::uint32_t at, const draughts::Position<V::board_size>& q, const PairStates<Shared>& states,
                Push& push, Source& source) {
    using namespace pair_state;
    using Position = draughts::Position<V::board_size>;
    using Move = draughts::Move<V::board_size>;
    using Bitboard = typename Position::Bitboard;
    using ManExit = typename PairSpace<V>::ManExit;
    const std::uint64_t s = layout.storage(local);
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
        store.mark_capture(s);
        return settle(*v);
    }
    const int h = layout.half_of(local);
    const int king_moves = draughts::count_king_moves<V>(q, draughts::Color::white);
    Value exit = Value::loss(0);  // no exit: as good as a loss in 0 when counting the slowest loss
    const Bitboard white_kings = q.kings_of(draughts::Color::white), black_kings = q.kings_of(draughts::Color::black);
    for (int i = 0; i < layout.man_exit_count[h]; ++i) {
        const ManExit& e = layout.man_exits[h][i];
        if (e.target & q.kings) continue;
        Value v;
        if (e.promotes) {
            Position child = q;
            draughts::make_move(child, Move{0, e.from, e.to, true});
            v = before_move(source.promotion(child));
        } else {
            v = before_move(source.man_move(e, white_kings, black_kings));
        }
        if (preferred(v, exit)) exit = v;
    }
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
