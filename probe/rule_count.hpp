// Which move count governs a material under its variant's draw rules
// (draughts/draw_rules.hpp; docs/rules.md, "One number per position"), and
// how rule values are coded in one byte.
//
// In every material the tables cover, one count decides: the kings-only
// count, or the count of a lone-king ending, which always runs at least as
// long as the kings-only count (the ending arose by a capture or a
// promotion, which reset that too) and has the smaller limit. Russian
// three kings against one adds the main road: two distances, before the
// lone king has stood alone on it and after. Russian materials where two
// counts with different resets both decide (7.2.5 with 7.2.6 when both
// sides have kings and a man is on the board; 7.2.7 with men) are refused.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "draughts/draw_rules.hpp"
#include "draughts/position.hpp"
#include "probe/errors.hpp"
#include "probe/material.hpp"
#include "probe/table_format.hpp"
#include "probe/value.hpp"

namespace dtb {

enum class CountKind : std::uint8_t {
    kings_only,  // reset by a man move or a capture
    lone_king,   // reset only when a move leads into the ending from outside it
};

struct GoverningCount {
    CountKind kind;
    int limit;  // plies
    // Materials of one lone-king ending share an id (a move between them
    // keeps the count); 0 for the kings-only count.
    int id;
    // Russian 7.2.7 on top (three kings against one): the count after the
    // lone king first stood alone on the main road, with this limit.
    int road_limit;
    std::string_view article;
    std::string_view road_article;

    bool has_road() const noexcept { return road_limit > 0; }
    // Whether a move from a material governed by this count into one
    // governed by `child` keeps the count going (else it starts again):
    // `resets` is whether the move is a man move or a capture.
    bool continues_into(const GoverningCount& child, bool man_move_or_capture) const noexcept {
        if (child.id != id) return false;
        return kind == CountKind::lone_king || !man_move_or_capture;
    }
};

// The count that governs material m under the draw rules `Draw`. Throws
// RulesRefused, naming the rules, where two counts decide.
template <class Draw>
GoverningCount governing_count(const Material& m) {
    const bool white_lone = m.white_men == 0 && m.white_kings == 1;
    const bool black_lone = m.black_men == 0 && m.black_kings == 1;
    if (white_lone || black_lone) {
        // The strong side: the other one (either, for one king against one).
        const int strong_men = black_lone ? m.white_men : m.black_men;
        const int strong_kings = black_lone ? m.white_kings : m.black_kings;
        const int strong = strong_men + strong_kings;
        const auto* rule = static_cast<const draughts::LoneKingCount*>(nullptr);
        int id = 0;
        for (std::size_t i = 0; i < Draw::lone_king.size(); ++i) {
            const draughts::LoneKingCount& r = Draw::lone_king[i];
            if (strong >= r.strong_min && strong <= r.strong_max && strong_kings >= r.strong_kings) {
                rule = &r;
                id = static_cast<int>(i) + 1;
                break;
            }
        }
        for (const draughts::MainRoadCount& road : Draw::main_road) {
            if (strong != road.strong_pieces || strong_kings < 1) continue;
            if (rule && strong_men == 0)
                return {CountKind::lone_king, rule->limit, id, road.limit, rule->article, road.article};
            throw RulesRefused(m.name() + ": " + std::string(road.article) + " with " +
                               std::string(Draw::kings_only.article) +
                               (Draw::balance.empty() ? std::string() : " and " + std::string(Draw::balance[0].article)) +
                               " gives two counts with different resets; tables under the rules of this material "
                               "are not built");
        }
        if (rule) return {CountKind::lone_king, rule->limit, id, 0, rule->article, {}};
    }
    for (const draughts::BalanceCount& balance : Draw::balance) {
        const bool both_kings = m.white_kings > 0 && m.black_kings > 0;
        if (both_kings && m.pieces() >= 4 && m.pieces() <= 7 && m.men() > 0)
            throw RulesRefused(m.name() + ": " + std::string(Draw::kings_only.article) + " and " +
                               std::string(balance.article) +
                               " both count, with different resets; tables under the rules of this material are "
                               "not built");
    }
    return {CountKind::kings_only, Draw::kings_only.limit, 0, 0, Draw::kings_only.article, {}};
}

// The rules record of the .rul file of a material governed by `g`
// (docs/format.md, "Rule tables"); `literal_road` as the set was built.
template <class Draw>
RuleRecord rule_record(const GoverningCount& g, bool literal_road) {
    return {std::string(Draw::profile), static_cast<int>(g.kind), g.limit, g.road_limit, literal_road ? 1 : 0};
}

// The rule distance, for the side that moves, of a move into a position of
// rule distance v (for its side to move): a move that keeps the count adds
// a ply (past `limit`, a draw); one that starts it afresh resolves the
// count in this ply (a win in 1 if v is a loss, a loss in 1 if a win).
constexpr Value rule_through(Value v, bool keeps, int limit) noexcept {
    if (!keeps) {
        if (v.wdl == Wdl::loss) return Value::win(1);
        if (v.wdl == Wdl::win) return Value::loss(1);
        return Value::draw();
    }
    const Value before = before_move(v);
    return before.plies > limit ? Value::draw() : before;
}

// Whether the lone king of a position stands alone on the main road (the
// reading of lidraughts; `literal`: on the road, whatever else stands there).
template <int N>
bool lone_king_on_road(const draughts::Position<N>& p, bool literal) noexcept {
    using draughts::Color;
    using G = draughts::Geometry<N>;
    for (const Color c : {Color::white, Color::black}) {
        const auto own = c == Color::white ? p.white : p.black;
        if (draughts::popcount(own) != 1 || (own & p.kings) == 0) continue;
        if ((own & G::main_road) == 0) continue;
        if (literal || (p.occupied() & G::main_road) == own) return true;
    }
    return false;
}

// Rule codes, one byte (docs/rules.md): 0 a draw under the rules, 2d + 1 a
// win in d plies of the count, 2d + 2 a loss in d. Unlike DTW, the parity
// of d does not tell a win from a loss: a move that starts a count afresh
// resolves the count of the position it leaves in one ply.
constexpr std::uint8_t rule_code(Value v) noexcept {
    if (v.wdl == Wdl::draw) return 0;
    return static_cast<std::uint8_t>(2 * v.plies + (v.wdl == Wdl::win ? 1 : 2));
}
constexpr Value value_of_rule_code(std::uint32_t code) noexcept {
    if (code == 0) return Value::draw();
    return code % 2 == 1 ? Value::win(static_cast<int>(code - 1) / 2) : Value::loss(static_cast<int>(code - 2) / 2);
}

}  // namespace dtb
