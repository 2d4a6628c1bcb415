// A brute-force player of the move-count draw rules, written apart from the
// rule solver (builder/solver/rule_solver.hpp) so that its values are an
// independent check. It keeps every count the rule text defines, each on
// its own, and plays the game over (position, counts) by memoised negamax:
// the graph is acyclic, because a ply that resets no count raises one that
// ends the game at its limit. It knows nothing of governing counts, rule
// distances, levels or queues; only the move generator is shared.
//
// The counts, straight from docs/rules.md:
//   k  plies since the last man move or capture (every material);
//   e  plies since the current lone-king ending arose (-1: none);
//   t  Russian 7.2.7: plies since the lone king first stood alone on the
//      main road in the ending of three pieces with a king against it
//      (-1: not yet, or not that ending);
//   p  Russian 7.2.6: plies since the last capture or promotion while both
//      sides have kings (-1: not both).
// The game is drawn when a count is at its limit and the side to move has a
// legal move; with none, it has lost.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "draughts/movegen.hpp"

namespace dtb::test {

template <class V>
class RuleBruteForce {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Draw = typename V::draw_rules;

    struct Counts {
        int k = 0, e = -1, t = -1, p = -1;
    };

    explicit RuleBruteForce(bool literal_road = false) : literal_road_(literal_road) {}

    // +1 the side to move wins, 0 a draw, -1 it loses.
    int value(const Position& pos, const Counts& c) {
        const Key key{pos.white, pos.black, pos.kings, static_cast<int>(pos.side_to_move), c.k, c.e, c.t, c.p};
        if (const auto it = memo_.find(key); it != memo_.end()) return it->second;
        const int v = solve(pos, c);
        memo_.emplace(key, static_cast<std::int8_t>(v));
        return v;
    }

    // The lone-king ending of a position: 0 none, else 1 + its rule's place in Draw::lone_king.
    static int ending(const Position& pos) {
        for (const draughts::Color lone : {draughts::Color::white, draughts::Color::black}) {
            const auto mine = lone == draughts::Color::white ? pos.white : pos.black;
            const auto theirs = lone == draughts::Color::white ? pos.black : pos.white;
            if (draughts::popcount(mine) != 1 || !(mine & pos.kings)) continue;
            const int pieces = draughts::popcount(theirs), kings = draughts::popcount(theirs & pos.kings);
            for (std::size_t i = 0; i < Draw::lone_king.size(); ++i) {
                const auto& r = Draw::lone_king[i];
                if (pieces >= r.strong_min && pieces <= r.strong_max && kings >= r.strong_kings)
                    return static_cast<int>(i) + 1;
            }
        }
        return 0;
    }

    // Whether the ending of 7.2.7 holds: one king against three pieces with a king.
    static bool road_ending(const Position& pos) {
        for (const auto& road : Draw::main_road)
            for (const draughts::Color lone : {draughts::Color::white, draughts::Color::black}) {
                const auto mine = lone == draughts::Color::white ? pos.white : pos.black;
                const auto theirs = lone == draughts::Color::white ? pos.black : pos.white;
                if (draughts::popcount(mine) == 1 && (mine & pos.kings) &&
                    draughts::popcount(theirs) == road.strong_pieces && (theirs & pos.kings))
                    return true;
            }
        return false;
    }

    // Whether the lone king stands alone on the main road (on it, whatever else does, if literal).
    bool on_road(const Position& pos) const {
        constexpr auto road = draughts::Geometry<N>::main_road;
        for (const auto mine : {pos.white, pos.black})
            if (draughts::popcount(mine) == 1 && (mine & pos.kings) && (mine & road))
                return literal_road_ || (pos.occupied() & road) == mine;
        return false;
    }

    // The limit of 7.2.6 for this position, 0 where it does not apply.
    static int balance_limit(const Position& pos) {
        for (const auto& b : Draw::balance) {
            const int pieces = draughts::popcount(pos.occupied());
            if (!(pos.white & pos.kings) || !(pos.black & pos.kings)) return 0;
            if (pieces >= 4 && pieces <= 5) return b.limit_4_5;
            if (pieces >= 6 && pieces <= 7) return b.limit_6_7;
        }
        return 0;
    }

    // The counts that apply when a position is met with every count at c (those
    // that do not apply at none).
    Counts counts_at(const Position& pos, int c) const {
        Counts n;
        n.k = c;
        n.e = ending(pos) ? c : -1;
        n.t = road_ending(pos) && on_road(pos) ? 0 : -1;
        n.p = balance_limit(pos) ? c : -1;
        return n;
    }

    std::size_t states() const noexcept { return memo_.size(); }

private:
    int solve(const Position& pos, const Counts& c) {
        draughts::MoveList<N> moves;
        draughts::generate_moves<V>(pos, moves);
        if (moves.size() == 0) return -1;
        const int end = ending(pos);
        if (c.k >= Draw::kings_only.limit) return 0;
        if (end && c.e >= Draw::lone_king[end - 1].limit) return 0;
        if (road_ending(pos) && c.t >= 0 && c.t >= Draw::main_road[0].limit) return 0;
        if (const int limit = balance_limit(pos); limit && c.p >= limit) return 0;
        int best = -1;
        for (const auto& m : moves) {
            Position child = pos;
            draughts::make_move(child, m);
            if (child.pieces(child.side_to_move) == 0) return 1;
            const bool man_moved = !(pos.kings & draughts::bit<typename Position::Bitboard>(m.from));
            const bool capture = m.is_capture();
            Counts n;
            n.k = man_moved || capture ? 0 : c.k + 1;
            const int child_end = ending(child);
            n.e = child_end == 0 ? -1 : child_end == end ? c.e + 1 : 0;
            if (road_ending(child)) {
                if (road_ending(pos) && c.t >= 0 && child_end == end)
                    n.t = c.t + 1;
                else
                    n.t = on_road(child) ? 0 : -1;
            }
            if (balance_limit(child)) n.p = capture || m.promotes || !balance_limit(pos) ? 0 : c.p + 1;
            best = std::max(best, -value(child, n));
            if (best == 1) break;
        }
        return best;
    }

    struct Key {
        typename Position::Bitboard white, black, kings;
        int side, k, e, t, p;
        bool operator==(const Key&) const = default;
    };
    struct Hash {
        std::size_t operator()(const Key& k) const noexcept {
            std::uint64_t h = static_cast<std::uint64_t>(k.white) * 0x9E3779B97F4A7C15ULL ^
                              static_cast<std::uint64_t>(k.black) * 0xC2B2AE3D27D4EB4FULL ^
                              static_cast<std::uint64_t>(k.kings) * 0x165667B19E3779F9ULL;
            h ^= static_cast<std::uint64_t>(k.side | k.k << 1 | (k.e + 1) << 9 | (k.t + 1) << 17) << 20 ^
                 static_cast<std::uint64_t>(k.p + 1) * 0x27D4EB2F165667C5ULL;
            return static_cast<std::size_t>(h ^ h >> 29);
        }
    };
    bool literal_road_;
    std::unordered_map<Key, std::int8_t, Hash> memo_;
};

}  // namespace dtb::test
