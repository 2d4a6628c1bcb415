// Probing a variant's tables (docs/probing.md), templated on the variant for
// engines and tools that use draughts/ positions directly; dtb.hpp and dtb.h
// wrap it for everyone else.
//
// A position is answered by its table unless its side to move has a capture:
// such positions are stored as fillers (docs/format.md), so the captures are
// searched and the positions they lead to probed, in smaller materials. A side
// to move without pieces has lost. Positions with Black to move are flipped.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "draughts/movegen.hpp"
#include "draughts/notation.hpp"
#include "probe/errors.hpp"
#include "probe/index.hpp"
#include "probe/left_out.hpp"
#include "probe/rule_count.hpp"
#include "probe/table_set.hpp"
#include "probe/value.hpp"

namespace dtb {

// The value of p for its side to move given its legal moves and each move's
// value for the mover, `mover_value(move, child)`: the quickest win, else a
// draw, else the slowest loss; a loss in 0 without moves.
template <int N, class F>
Value best_of_moves(const draughts::Position<N>& p, const draughts::MoveList<N>& moves, F&& mover_value) {
    Value best = Value::loss(0);
    for (const draughts::Move<N>& m : moves) {
        draughts::Position<N> child = p;
        draughts::make_move(child, m);
        const Value v = mover_value(m, child);
        if (preferred(v, best)) best = v;
    }
    return best;
}

// The same given the value of the position after each move (for the side to
// move there): one ply more, for the other side.
template <int N, class F>
Value best_over_moves(const draughts::Position<N>& p, const draughts::MoveList<N>& moves, F&& value_after) {
    return best_of_moves(p, moves, [&](const draughts::Move<N>&, const draughts::Position<N>& child) {
        return before_move(value_after(child));
    });
}

// Win, draw or loss of p for its side to move given its legal moves and the
// result after each move (for the side to move there): a win as soon as one
// is found, else a draw, else a loss (also without moves).
template <int N, class F>
Wdl best_wdl_over_moves(const draughts::Position<N>& p, const draughts::MoveList<N>& moves, F&& wdl_after) {
    Wdl best = Wdl::loss;
    for (const draughts::Move<N>& m : moves) {
        draughts::Position<N> child = p;
        draughts::make_move(child, m);
        best = std::max(best, before_move(wdl_after(child)));
        if (best == Wdl::win) break;
    }
    return best;
}

template <class V>
class Prober {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Move = draughts::Move<N>;

    struct BestMove {
        Move move;
        Value value;  // of the position before the move
    };

    explicit Prober(const std::filesystem::path& dir, std::size_t cache_bytes = default_cache_bytes)
        : tables_(std::string(V::name), dir, check_file, cache_bytes) {
        // A file named after a material too large for the board has no index:
        // its probes report the file (locate) instead of failing the whole directory.
        for (const Material& m : tables_.materials()) {
            try {
                indexes_.emplace_back(std::in_place, Index<N>(m), Index<N>(m.mirrored()));
            } catch (const IndexError&) {
                indexes_.emplace_back();
            }
        }
    }

    const TableSet& tables() const noexcept { return tables_; }

    // Win, draw or loss for the side to move. Throws PositionError, TableError.
    Wdl wdl(const Position& p) const {
        check(p);
        return wdl_of(p);
    }

    // Win, draw or loss with the distance in plies. Throws PositionError, TableError.
    Value value(const Position& p) const {
        check(p);
        return value_of(p);
    }

    // The move that keeps the value: the quickest win, a draw, the slowest
    // loss; the first in move generation order among equals. None if the side
    // to move has no legal move.
    //
    // p's value is found first (one read where its side to move is stored),
    // then the moves are taken in generation order until one keeps it, each
    // valued only as far as that takes (keeps()); the moves after it are
    // read in their .wld only. On tables that agree that is the move valuing
    // every move gives; where a move's result is better than p's, or no move
    // keeps p's value, the tables disagree and every move is valued
    // (valued_best_move(), which best_line() checks against the distance).
    std::optional<BestMove> best_move(const Position& p) const {
        check(p);
        draughts::MoveList<N> moves;
        draughts::generate_moves<V>(p, moves);
        if (moves.empty()) return std::nullopt;
        const Value here = value_of(p);
        for (int k = 0; k < moves.size(); ++k) {
            Position child = p;
            draughts::make_move(child, moves[k]);
            const Wdl result = before_move(wdl_of(child));
            if (result > here.wdl) break;
            if (result < here.wdl || !keeps(child, here)) continue;
            if (!better_result_after(p, moves, k + 1, here.wdl)) return BestMove{moves[k], here};
            break;
        }
        return valued_best_move(p, moves);
    }

    // The moves of perfect play to the end of a won or lost game (as many as
    // the distance); for a draw, one move that keeps it. Every step is checked
    // against the distance: tables that disagree with each other throw
    // TableError (corrupted).
    std::vector<Move> best_line(Position p) const {
        const Value start = value(p);
        std::vector<Move> line;
        for (Value expected = start;;) {
            check(p);
            draughts::MoveList<N> moves;
            draughts::generate_moves<V>(p, moves);
            const auto best = valued_best_move(p, moves);
            if (!best) {
                if (expected != Value::loss(0)) inconsistent(p, expected, Value::loss(0));
                break;
            }
            if (best->value != expected) inconsistent(p, expected, best->value);
            line.push_back(best->move);
            if (expected.wdl == Wdl::draw) break;
            draughts::make_move(p, best->move);
            expected = expected.wdl == Wdl::win ? Value::loss(expected.plies - 1) : Value::win(expected.plies - 1);
        }
        return line;
    }

    // The value of p from its moves, whatever its table stores: the best
    // result over the children (each read in its .wld, or searched where it
    // has a capture), then the distance over the children that keep it, as
    // a table stores it. `dtb verify --full` checks the stored values
    // against it. Throws PositionError, TableError.
    Value from_moves(const Position& p) const {
        check(p);
        draughts::MoveList<N> moves;
        draughts::generate_moves<V>(p, moves);
        const Wdl wdl = best_wdl_over_moves(p, moves, [&](const Position& child) { return wdl_of(child); });
        return distance_over(p, moves, wdl);
    }

    // Where a position without a capture is stored: the table number and the
    // position g in it (docs/format.md, "Positions"), that of its .dtw and
    // .rul. Throws TableError (missing) if the table is not there.
    struct Location {
        int slot;
        std::uint64_t g;
    };
    Location locate(const Position& p) const {
        const Position q = white_to_move(p);
        const TableSet::Found found = found_for(q);
        return {found.slot, g_of(found, q)};
    }

    // The result p's .wld stores (p without a capture, its side to move
    // with pieces): read at p's place in the .wld, which may list the
    // positions in another order than the table (TableHeader::paired()), or
    // in a .dtw of version 1 where there is no .wld. Throws TableError.
    Wdl stored_wdl(const Position& p) const {
        const Position q = white_to_move(p);
        const TableSet::Found found = found_for(q);
        return stored_wdl_of(p, q, found, std::nullopt);
    }

    // Throws PositionError if no table can hold p.
    static void check(const Position& p) {
        if (!legal_placement(p))
            throw PositionError("position " + draughts::to_fen(p) +
                                " is not a legal placement: pieces overlap, or a man stands on its own promotion row");
        if (p.pieces(opposite(p.side_to_move)) == 0)
            throw PositionError("position " + draughts::to_fen(p) +
                                ": the side not to move has no pieces, so the game ended before it");
    }

private:
    // The table of q (White to move), as locate() reports it.
    TableSet::Found found_for(const Position& q) const {
        const Material m = material_of(q);
        const TableSet::Found found = tables_.find(m);
        if (found.slot < 0) {
            const Material canonical = m.canonical();
            // A material beyond the index has no table to build: say so
            // rather than suggest a build that refuses it.
            const bool buildable = placement_count(canonical, N) <= max_index_size;
            throw TableError(TableErrorKind::missing, tables_.path_of(canonical, TableKind::wld),
                             "no table of " + canonical.name() + " in " + tables_.directory().string() +
                                 (buildable ? " (build it with " + tables_.build_command(canonical) + ")"
                                            : ": a material of " + std::to_string(canonical.pieces()) +
                                                  " pieces has 2^64 or more placements on this board, beyond the "
                                                  "64-bit index of any table dtb builds"));
        }
        if (!indexes_[found.slot])
            throw TableError(TableErrorKind::foreign, tables_.path_of(tables_.materials()[found.slot], TableKind::wld),
                             "material " + m.name() + " has too many placements for a 64-bit index on this board");
        return found;
    }

    // Position g of q's table (docs/format.md, "Positions").
    std::uint64_t g_of(TableSet::Found found, const Position& q) const {
        const auto& [own, mirror] = *indexes_[found.slot];
        return found.mirrored ? own.size() + mirror.rank(q) : own.rank(q);
    }

    // stored_wdl() of p, q = white_to_move(p), its table position g given
    // where the caller has it. In placement order, a position of M' (q
    // mirrored) is M with Black to move: p itself where Black is to move in
    // it, else q ranked as turned round. A compact .wld (version 4) leaves
    // out the positions a one-ply search answers (probe/left_out.hpp): p is
    // searched if it is one, its moves leading to stored or capture
    // positions only.
    Wdl stored_wdl_of(const Position& p, const Position& q, TableSet::Found found,
                      std::optional<std::uint64_t> g) const {
        const TableHeader* wld = tables_.has(found.slot, TableKind::wld) ? &tables_.file(found.slot, TableKind::wld).header() : nullptr;
        if (wld && wld->compact() && other_side_captures<V>(p)) {
            draughts::MoveList<N> moves;
            draughts::generate_moves<V>(p, moves);
            if (no_threatened_child<V>(p, moves))
                return best_wdl_over_moves(p, moves, [&](const Position& child) { return wdl_of(child); });
        }
        if (wld && wld->paired()) {
            const auto& own = indexes_[found.slot]->first;
            if (!found.mirrored) return tables_.stored_wdl(found.slot, 2 * own.rank(q));
            const bool black = p.side_to_move == draughts::Color::black;
            return tables_.stored_wdl(found.slot, 2 * (black ? own.rank(p) : own.rank_turned(q)) + 1);
        }
        return tables_.stored_wdl(found.slot, g ? *g : g_of(found, q));
    }

    // The best move by the value of every move (none without moves).
    std::optional<BestMove> valued_best_move(const Position& p, const draughts::MoveList<N>& moves) const {
        std::optional<BestMove> best;
        for (const Move& m : moves) {
            Position child = p;
            draughts::make_move(child, m);
            const Value v = before_move(value_of(child));
            if (!best || preferred(v, best->value)) best = BestMove{m, v};
        }
        return best;
    }

    // Whether the position after moves[from] or a later move of p has a
    // result (its .wld's) better for the mover than `wdl`.
    bool better_result_after(const Position& p, const draughts::MoveList<N>& moves, int from, Wdl wdl) const {
        if (wdl == Wdl::win) return false;
        for (int k = from; k < moves.size(); ++k) {
            Position child = p;
            draughts::make_move(child, moves[k]);
            if (before_move(wdl_of(child)) > wdl) return true;
        }
        return false;
    }

    // Whether `child`'s value, for the side that moved into it, is `target`,
    // its result already known to be target's and target the value of the
    // position before the move (so no child of a win in d loses sooner than
    // in d - 1 plies, and no child of a loss in d wins later). Asked as a
    // bound, which a search stops at as soon as it settles: a win in d keeps
    // where the child loses within d - 1 plies, a loss in d where the child
    // does not win within d - 2.
    bool keeps(const Position& child, Value target) const {
        if (target.wdl == Wdl::draw) return true;
        if (target.wdl == Wdl::win) return loses_within(child, target.plies - 1);
        return !wins_within(child, target.plies - 2);
    }

    // Whether p's side to move wins, or loses, within `plies` plies: read
    // where a table stores p's value, else searched over p's moves no
    // deeper than the bound (a win needs one move whose child loses within
    // one ply less, a loss that every move's child wins within one less).
    bool wins_within(const Position& p, int plies) const {
        if (plies < 1 || p.pieces(p.side_to_move) == 0) return false;
        if (!draughts::has_capture<V>(p)) {
            const Read read = read_of(p);
            if (read.wdl != Wdl::win) return false;
            if (read.value) return read.value->plies <= plies;
        }
        draughts::MoveList<N> moves;
        draughts::generate_moves<V>(p, moves);
        for (const Move& m : moves) {
            Position child = p;
            draughts::make_move(child, m);
            if (loses_within(child, plies - 1)) return true;
        }
        return false;
    }

    bool loses_within(const Position& p, int plies) const {
        if (plies < 0) return false;
        if (p.pieces(p.side_to_move) == 0) return true;
        // Within 0 or 1 ply only a position without a move is lost: its
        // moves tell, with no read.
        if (plies >= 2 && !draughts::has_capture<V>(p)) {
            const Read read = read_of(p);
            if (read.wdl != Wdl::loss) return false;
            if (read.value) return read.value->plies <= plies;
        }
        draughts::MoveList<N> moves;
        draughts::generate_moves<V>(p, moves);
        if (plies < 2) return moves.empty();
        for (const Move& m : moves) {
            Position child = p;
            draughts::make_move(child, m);
            if (!wins_within(child, plies - 1)) return false;
        }
        return true;
    }

    [[noreturn]] void inconsistent(const Position& p, Value expected, Value found) const {
        throw TableError(TableErrorKind::corrupted, tables_.directory(),
                         "the tables disagree at " + draughts::to_fen(p) + ": expected " + to_string(expected) +
                             ", the best move gives " + to_string(found));
    }

    Wdl wdl_of(const Position& p) const {
        if (p.pieces(p.side_to_move) == 0) return Wdl::loss;
        if (draughts::has_capture<V>(p)) {
            draughts::MoveList<N> moves;
            draughts::generate_moves<V>(p, moves);
            return best_wdl_over_moves(p, moves, [&](const Position& child) { return wdl_of(child); });
        }
        return stored_wdl(p);
    }

    Value value_of(const Position& p) const {
        if (p.pieces(p.side_to_move) == 0) return Value::loss(0);
        if (draughts::has_capture<V>(p)) {
            draughts::MoveList<N> moves;
            draughts::generate_moves<V>(p, moves);
            return best_over_moves(p, moves, [&](const Position& child) { return value_of(child); });
        }
        const Read read = read_of(p);
        return read.value ? *read.value : searched(p, read.wdl);
    }

    // What the tables hold of p (no capture, its side to move with pieces):
    // its result, and its value where a .dtw stores it or it is a draw.
    // Version 2 (docs/format.md): draws are the .wld's, and the side to
    // move not stored is found from its moves into the side stored.
    struct Read {
        Wdl wdl;
        std::optional<Value> value;
    };
    Read read_of(const Position& p) const {
        const Position q = white_to_move(p);
        const TableSet::Found found = found_for(q);
        const Location at{found.slot, g_of(found, q)};
        const TableHeader& h = tables_.file(at.slot, TableKind::dtw).header();
        if (!h.draws_left_out()) {
            const Value v = value_of_dtw_code(tables_.stored_dtw_code(at.slot, at.g));
            return {v.wdl, v};
        }
        const Wdl wdl = stored_wdl_of(p, q, found, at.g);
        if (wdl == Wdl::draw) return {wdl, Value::draw()};
        if (!h.stores(at.g)) return {wdl, std::nullopt};
        const Value v = value_of_dtw_code(tables_.stored_dtw_code(at.slot, at.g));
        if (v.wdl != wdl)
            throw TableError(TableErrorKind::corrupted, tables_.path_of(tables_.materials()[at.slot], TableKind::dtw),
                             "position " + std::to_string(at.g) + " holds " + to_string(v) + " where the .wld holds a " +
                                 (wdl == Wdl::win ? "win" : "loss"));
        return {wdl, v};
    }

    // The value of p, without a capture and won or lost (`wdl`, its .wld's),
    // from the moves that keep that result: the quickest win over the
    // children lost, or the slowest loss. Their distances are read in the
    // side to move that is stored (a capture or a promotion leads to
    // another table, read as any position is).
    Value searched(const Position& p, Wdl wdl) const {
        draughts::MoveList<N> moves;
        draughts::generate_moves<V>(p, moves);
        return distance_over(p, moves, wdl);
    }

    Value distance_over(const Position& p, const draughts::MoveList<N>& moves, Wdl wdl) const {
        if (wdl == Wdl::draw) return Value::draw();
        std::optional<Value> best;
        if (moves.empty()) best = Value::loss(0);
        for (const Move& m : moves) {
            Position child = p;
            draughts::make_move(child, m);
            if (before_move(wdl_of(child)) != wdl) continue;
            const Value v = before_move(value_of(child));
            if (!best || preferred(v, *best)) best = v;
        }
        if (!best || best->wdl != wdl)
            throw TableError(TableErrorKind::corrupted, tables_.directory(),
                             "the tables disagree at " + draughts::to_fen(p) + ": its .wld holds a " +
                                 (wdl == Wdl::win ? "win" : "loss") + " that no move keeps");
        return *best;
    }

    // A file whose index size disagrees with the material's is refused; so is
    // a .rul built under other rules than the variant's for its material.
    static void check_file(const Material& m, const TableFile& file) {
        const TableHeader& h = file.header();
        std::uint64_t expected = 0;
        try {
            expected = Index<N>(m).size();
        } catch (const IndexError&) {
            // no file can match: the table is refused as foreign
        }
        if (h.positions_per_side != expected)
            throw TableError(TableErrorKind::foreign, file.path(),
                             "holds " + std::to_string(h.positions_per_side) + " positions per side, the index of " +
                                 m.name() + " has " + std::to_string(expected));
        if (h.kind != TableKind::rul) return;
        RuleRecord wanted;
        try {
            wanted = rule_record<typename V::draw_rules>(governing_count<typename V::draw_rules>(m), h.rules.literal_road);
        } catch (const RulesRefused& e) {
            throw TableError(TableErrorKind::foreign, file.path(), std::string("no rule table can be right: ") + e.what());
        }
        if (h.rules != wanted)
            throw TableError(TableErrorKind::foreign, file.path(),
                             "built under other draw rules (profile " + h.rules.profile + ", limit " +
                                 std::to_string(h.rules.limit) + ", road limit " + std::to_string(h.rules.road_limit) +
                                 ") than dtb's " + wanted.profile + " rules for " + m.name() + " (limit " +
                                 std::to_string(wanted.limit) + ", road limit " + std::to_string(wanted.road_limit) +
                                 "): remove it and build it again with " +
                                 build_command(V::name, file.path().parent_path().parent_path(),
                                               "--material " + m.name() + " --rules"));
    }

    TableSet tables_;
    std::vector<std::optional<std::pair<Index<N>, Index<N>>>> indexes_;  // per table: the material and its mirror
};

}  // namespace dtb
