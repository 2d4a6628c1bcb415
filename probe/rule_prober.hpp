// Probing under the move-count draw rules (docs/rules.md, docs/probing.md):
// the .rul tables beside the plain ones, read through the same table set and
// block cache. A probe takes the counts of the game in progress and answers
// the value at those counts, its five-class label against the plain value,
// the rule distance, the plies left on the governing count and its article.
//
// A position whose side to move has a capture is not stored (as in the
// plain tables): its rule distance is the best over its captures, as the
// rule solver computes it (rule_through()). Nor, in a .rul of version 2, is
// the side to move not stored: its moves are searched the same way.
#pragma once

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "probe/prober.hpp"
#include "probe/rule_count.hpp"
#include "probe/rule_value.hpp"

namespace dtb {

template <class V>
class RuleProber {
public:
    static constexpr int N = V::board_size;
    using Draw = typename V::draw_rules;
    using Position = draughts::Position<N>;
    using Move = draughts::Move<N>;

    // Reads the .rul tables of `plain`'s directory; `plain` must outlive it.
    explicit RuleProber(const Prober<V>& plain) : plain_(plain) {}

    // The rule distance of p for its side to move, its count starting now;
    // `after_road`: Russian three kings against one, the distance once the
    // lone king has stood alone on the main road. Throws RulesRefused,
    // TableError.
    Value distance(const Position& p, bool after_road = false) const {
        if (p.pieces(p.side_to_move) == 0) return Value::loss(0);
        const GoverningCount count = governing_count<Draw>(material_of(p));
        if (draughts::has_capture<V>(p)) return searched(p, after_road);
        const auto at = plain_.locate(p);
        const TableSet& tables = plain_.tables();
        const TableHeader& h = tables.file(at.slot, TableKind::rul).header();
        const bool second = after_road && count.has_road();
        // Version 2 (docs/format.md): the .wld's draws are draws under the
        // rules too, and the side to move not stored is found from its moves
        // into the side stored, as a capture position is.
        if (h.draws_left_out()) {
            if (plain_.stored_wdl(p) == Wdl::draw) return Value::draw();
            if (!h.stores(at.g)) return searched(p, after_road);
        }
        const std::uint32_t code =
            tables.stored_rule_code(at.slot, at.g + (second ? h.positions() / 2 : 0));
        const Value v = value_of_rule_code(code);
        if (v.plies > (second ? count.road_limit : count.limit))
            throw TableError(TableErrorKind::corrupted, tables.path_of(tables.materials()[at.slot], TableKind::rul),
                             "position " + std::to_string(at.g) + " holds rule code " + std::to_string(code) +
                                 ", past the count's limit");
        return v;
    }

    // The rule distance of p from its moves, the position after each probed
    // (the count kept or started afresh): how a capture position is answered,
    // and what `dtb verify --full` checks every stored distance against.
    Value searched(const Position& p, bool after_road = false) const {
        const GoverningCount count = governing_count<Draw>(material_of(p));
        after_road = after_road && count.has_road();  // as distance() reads it: no road, no second count
        draughts::MoveList<N> moves;
        draughts::generate_moves<V>(p, moves);
        return best_of_moves(p, moves, [&](const Move& m, const Position& child) {
            return through(count, child, man_or_capture(p, m), after_road);
        });
    }

    // Whether m, from p, is a man move or a capture (which start the
    // kings-only count again).
    static bool man_or_capture(const Position& p, const Move& m) noexcept {
        return m.is_capture() || (p.kings & draughts::bit<typename Position::Bitboard>(m.from)) == 0;
    }

    // Whether m's .rul was built with the main road read literally.
    bool literal_road(const Material& m) const {
        const TableSet& tables = plain_.tables();
        const TableSet::Found found = tables.find(m);
        if (found.slot < 0) return false;  // the probe that follows names the missing table
        return tables.file(found.slot, TableKind::rul).header().rules.literal_road != 0;
    }

    // The value of p at the counts of the game (a count not given starts
    // now). Throws PositionError, CountError (naming the count), RulesRefused,
    // TableError.
    RuleValue value(const Position& p, const RuleCounts& counts = {}) const {
        Prober<V>::check(p);
        const Governed g = govern(p, counts);
        const Standing s = standing(p, g);
        RuleValue r;
        r.dtw = plain_.value(p);
        r.distance = s.distance;
        r.plies_left = g.left;
        r.wdl = s.wdl;
        r.rule_class = dtb::rule_class(s.plain, r.wdl);
        r.article = g.count.article;
        if (g.after_road) r.road_article = g.count.road_article;
        return r;
    }

    // The counts after move m from p, whose counts are `counts`: K starts
    // again after a man move or a capture; E runs on inside the same
    // lone-king ending and starts when one arises; T runs on with E.
    RuleCounts counts_after(const Position& p, const Move& m, const RuleCounts& counts) const {
        Position child = p;
        draughts::make_move(child, m);
        return counts_after(govern(p, counts), p, m, child, counts);
    }

    struct BestMove {
        Move move;
        RuleCounts counts;  // after the move
        RuleValue after;    // of the position after it, for its side to move
    };

    // The move that keeps the value under the rules: a win inside the count
    // (the one that resolves the count soonest), else a draw (the one
    // whose plain value is best for the mover: a cursed win keeps its plain
    // win), else the loss that lasts longest. None when the side to move has
    // no legal move or the count has already drawn the game.
    //
    // Each move is compared by its result under the rules and its rule
    // distance; a plain distance is read only to part two draws of the same
    // plain result, and the full value only of the move chosen.
    std::optional<BestMove> best_move(const Position& p, const RuleCounts& counts = {}) const {
        Prober<V>::check(p);
        const Governed g = govern(p, counts);
        const Standing here = standing(p, g);
        if (g.left == 0) return std::nullopt;
        draughts::MoveList<N> moves;
        draughts::generate_moves<V>(p, moves);
        // A move as the mover sees it: its result under the rules, the plies
        // to resolve this position's count through it (no limit: it is
        // inside it), its plain result and, once needed, its plain value.
        struct Candidate {
            int k = -1;
            Position child;
            RuleCounts counts;
            Wdl wdl = Wdl::win, plain_wdl = Wdl::win;
            Value distance = Value::win(1);
            std::optional<Value> plain;
        };
        const auto plain_of = [&](Candidate& c) {
            if (!c.plain) c.plain = c.plain_wdl == Wdl::draw ? Value::draw() : before_move(plain_.value(c.child));
            return *c.plain;
        };
        std::optional<Candidate> best;
        for (int k = 0; k < moves.size(); ++k) {
            Candidate c;
            c.k = k;
            c.child = p;
            draughts::make_move(c.child, moves[k]);
            c.counts = counts_after(g, p, moves[k], c.child, counts);
            if (c.child.pieces(c.child.side_to_move) == 0) {
                c.plain = Value::win(1);
            } else {
                const Standing s = standing(c.child, govern(c.child, c.counts));
                const GoverningCount next = governing_count<Draw>(material_of(c.child));
                c.wdl = before_move(s.wdl);
                c.plain_wdl = before_move(s.plain);
                c.distance = rule_through(s.distance, g.count.continues_into(next, man_or_capture(p, moves[k])),
                                          std::numeric_limits<int>::max());
            }
            bool better = !best || c.wdl > best->wdl;
            if (best && c.wdl == best->wdl) {
                if (c.wdl != Wdl::draw)
                    better = preferred(c.distance, best->distance);
                else if (c.plain_wdl != best->plain_wdl)
                    better = c.plain_wdl > best->plain_wdl;
                else
                    better = c.plain_wdl != Wdl::draw && preferred(plain_of(c), plain_of(*best));
            }
            if (better) best = std::move(c);
        }
        if (!best) return std::nullopt;
        BestMove chosen{moves[best->k], best->counts, {}};
        chosen.after = best->child.pieces(best->child.side_to_move) == 0
                           ? RuleValue{Wdl::loss, RuleClass::loss, Value::loss(0), 0, {}, {}, Value::loss(0)}
                           : value(best->child, best->counts);
        if (before_move(chosen.after.wdl) != here.wdl)
            throw TableError(TableErrorKind::corrupted, plain_.tables().directory(),
                             "the rule tables disagree at " + draughts::to_fen(p) + ": " +
                                 std::string(to_string(dtb::rule_class(here.plain, here.wdl))) +
                                 " with no move that keeps it");
        return chosen;
    }

private:
    struct Governed {
        GoverningCount count;
        bool after_road = false;
        int road = 0;  // T, when after_road
        int left = 0;  // plies left on the governing count
    };

    // p's rule distance and result under the rules at the counts `g`
    // governs, with its plain result (its .wld's: no plain distance, which
    // is a search where the .dtw does not store p's side to move). The
    // rules only ever turn a win or a loss into a draw: tables that say
    // otherwise are corrupted.
    struct Standing {
        Value distance;
        Wdl wdl = Wdl::draw;    // under the rules
        Wdl plain = Wdl::draw;  // without them
    };
    Standing standing(const Position& p, const Governed& g) const {
        Standing s;
        s.plain = plain_.wdl(p);
        s.distance = distance(p, g.after_road);
        s.wdl = s.distance.wdl != Wdl::draw && s.distance.plies <= g.left ? s.distance.wdl : Wdl::draw;
        if (s.distance.wdl != Wdl::draw && s.distance.wdl != s.plain)
            throw TableError(TableErrorKind::corrupted, plain_.tables().directory(),
                             "the tables disagree at " + draughts::to_fen(p) + ": plain " + to_string(plain_.value(p)) +
                                 ", under the rules " + to_string(s.distance));
        return s;
    }

    // counts_after() with p's counts already checked (govern()) and the
    // position after move m made.
    RuleCounts counts_after(const Governed& g, const Position& p, const Move& m, const Position& child,
                            const RuleCounts& counts) const {
        const bool resets = man_or_capture(p, m);
        RuleCounts next;
        next.kings_only = resets ? 0 : counts.kings_only.value_or(0) + 1;
        if (child.pieces(child.side_to_move) == 0) return next;
        const GoverningCount c = governing_count<Draw>(material_of(child));
        if (c.kind != CountKind::lone_king) return next;
        if (!g.count.continues_into(c, resets)) {
            next.ending = 0;
            return next;
        }
        next.ending = counts.ending.value_or(0) + 1;
        if (g.after_road && c.has_road()) next.road = g.road + 1;
        return next;
    }

    // The governing count of p and what is left of it at `c`, the counts
    // checked against the rules.
    Governed govern(const Position& p, const RuleCounts& c) const {
        for (const auto& [name, v] : {std::pair{'K', c.kings_only}, {'E', c.ending}, {'T', c.road}})
            if (v && *v < 0)
                throw CountError(name, std::string(1, name) + "=" + std::to_string(*v) +
                                           ": a count is a number of plies, 0 or more");
        if (c.road && Draw::main_road.empty())
            throw CountError('T', std::string(V::name) +
                                      " has no main-road count (T counts plies on the main road, Russian 7.2.7): "
                                      "leave T out");
        const Material m = material_of(p);
        Governed g{governing_count<Draw>(m)};
        const auto past = [](char name, int v, std::string_view article, int limit) {
            return CountError(name, std::string(1, name) + "=" + std::to_string(v) + " is past the limit of " +
                                        std::string(article) + ": " + std::to_string(limit) +
                                        " plies, when the game is drawn");
        };
        if (c.kings_only && *c.kings_only > Draw::kings_only.limit)
            throw past('K', *c.kings_only, Draw::kings_only.article, Draw::kings_only.limit);
        if (g.count.kind == CountKind::kings_only) {
            if (c.ending)
                throw CountError('E', m.name() + " is not a lone-king ending, so E (plies since one arose) does "
                                                 "not count: leave it out");
            if (c.road)
                throw CountError('T', m.name() + " has no main-road count (T counts only with one king against "
                                                 "three pieces, Russian 7.2.7): leave it out");
            g.left = Draw::kings_only.limit - c.kings_only.value_or(0);
            return g;
        }
        const int e = c.ending.value_or(0);
        if (e > g.count.limit) throw past('E', e, g.count.article, g.count.limit);
        if (c.kings_only && *c.kings_only > e)
            throw CountError('K', "K=" + std::to_string(*c.kings_only) + " is larger than E=" + std::to_string(e) +
                                      (c.ending ? "" : " (E not given: the ending taken as just arisen)") +
                                      ": the lone-king ending arose by a capture or a promotion, which started K "
                                      "again too; give E, the plies since " + m.name() + "'s ending arose");
        g.left = g.count.limit - e;
        if (!g.count.has_road()) {
            if (c.road)
                throw CountError('T', m.name() + " has no main-road count (T counts only with one king against "
                                                 "three pieces, Russian 7.2.7): leave it out");
            return g;
        }
        std::optional<int> t = c.road;
        if (!t && lone_king_on_road(p, literal_road(m))) t = 0;  // the road count starts now
        if (!t) return g;
        if (*t > g.count.road_limit) throw past('T', *t, g.count.road_article, g.count.road_limit);
        if (*t > e)
            throw CountError('T', "T=" + std::to_string(*t) + " is larger than E=" + std::to_string(e) +
                                      ": the lone king stood on the main road in this ending, so after it arose");
        g.after_road = true;
        g.road = *t;
        g.left = std::min(g.left, g.count.road_limit - *t);
        return g;
    }

    // The rule distance, for the mover, of a move from a position governed
    // by `count` into `child`.
    Value through(const GoverningCount& count, const Position& child, bool resets, bool after_road) const {
        if (child.pieces(child.side_to_move) == 0) return Value::win(1);
        const GoverningCount next = governing_count<Draw>(material_of(child));
        const bool keeps = count.continues_into(next, resets);
        return rule_through(distance(child, after_road && keeps && next.has_road()), keeps,
                            after_road ? count.road_limit : count.limit);
    }

    const Prober<V>& plain_;
};

}  // namespace dtb
