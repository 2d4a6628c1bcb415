// The statistics of a material over every legal placement, for each side to
// move: wins, draws, losses, the longest win with an example, and how many
// wins and losses there are at each distance (`dtb stats`, the explorer's
// /api/stats and `dtb report`). Capture positions are counted with the value
// the probe gives them.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include "draughts/notation.hpp"
#include "probe/index.hpp"
#include "probe/prober.hpp"
#include "probe/rule_prober.hpp"

namespace dtb {

// Counts over one side to move: the draws, and the wins and losses at each
// distance, from which the rest follows. The example is the first position
// of the longest win in index order, so the result does not depend on threads.
struct SideStats {
    std::uint64_t draw = 0;
    // Positions won (lost) in exactly i plies: wins_at[i] (losses_at[i]). Each
    // is as long as its longest distance and one, so its last entry is not 0.
    std::vector<std::uint64_t> wins_at, losses_at;
    std::uint64_t example = 0;  // index of the first position at max_win()

    std::uint64_t win() const { return std::accumulate(wins_at.begin(), wins_at.end(), std::uint64_t{0}); }
    std::uint64_t loss() const { return std::accumulate(losses_at.begin(), losses_at.end(), std::uint64_t{0}); }
    int max_win() const { return static_cast<int>(wins_at.size()) - 1; }  // plies; -1 if there is no win
    std::uint64_t count_at_max() const { return wins_at.empty() ? 0 : wins_at.back(); }

    void add(Value v, std::uint64_t index) {
        if (v.wdl == Wdl::draw) {
            ++draw;
            return;
        }
        auto& at = v.wdl == Wdl::win ? wins_at : losses_at;
        const auto plies = static_cast<std::size_t>(v.plies);
        if (plies >= at.size()) {
            at.resize(plies + 1);
            if (v.wdl == Wdl::win) example = index;  // the first at a longer win
        }
        ++at[plies];
    }

    static SideStats join(SideStats a, const SideStats& b) {
        if (b.max_win() > a.max_win()) a.example = b.example;
        else if (b.max_win() == a.max_win() && b.max_win() >= 0) a.example = std::min(a.example, b.example);
        a.draw += b.draw;
        for (auto [into, from] : {std::pair{&a.wins_at, &b.wins_at}, std::pair{&a.losses_at, &b.losses_at}}) {
            if (from->size() > into->size()) into->resize(from->size());
            for (std::size_t i = 0; i < from->size(); ++i) (*into)[i] += (*from)[i];
        }
        return a;
    }
};

// Both sides to move of one material, with the example of each side's
// longest win as a position with that side to move.
template <int N>
struct MaterialStats {
    Material material;
    std::uint64_t positions_per_side = 0;
    SideStats white, black;
    std::optional<draughts::Position<N>> white_example, black_example;
};

// Every placement of `index`'s material with White to move, given to
// `position_of` to make the position counted (the same, or turned round).
template <class V, class PositionOf>
SideStats count_side(const Prober<V>& prober, const Index<V::board_size>& index, PositionOf position_of) {
    return tbb::parallel_reduce(
        tbb::blocked_range<std::uint64_t>(0, index.size(), 4096), SideStats{},
        [&](const tbb::blocked_range<std::uint64_t>& r, SideStats s) {
            for (std::uint64_t i = r.begin(); i != r.end(); ++i) s.add(prober.value(position_of(index.unrank(i))), i);
            return s;
        },
        SideStats::join);
}

// Probes every position of `m`, both sides to move (TBB threads).
template <class V>
MaterialStats<V::board_size> material_stats(const Prober<V>& prober, const Material& m) {
    using Position = draughts::Position<V::board_size>;
    const Index<V::board_size> own(m), mirror(m.mirrored());
    // White to move: M's placements. Black to move: the mirror's placements
    // with White to move, turned round (docs/design.md, "Materials, index, symmetry").
    const auto same = [](const Position& p) { return p; };
    const auto turned = [](const Position& p) { return p.flipped(); };
    MaterialStats<V::board_size> s{m, own.size(), count_side(prober, own, same), count_side(prober, mirror, turned),
                                   std::nullopt, std::nullopt};
    if (s.white.max_win() >= 0) s.white_example = own.unrank(s.white.example);
    if (s.black.max_win() >= 0) s.black_example = mirror.unrank(s.black.example).flipped();
    return s;
}

// One side's object of `dtb stats --json`; with `histogram`, also its wins
// and losses by distance as [plies, positions] pairs, shortest first.
template <int N>
nlohmann::ordered_json side_json(const SideStats& s, const std::optional<draughts::Position<N>>& example,
                                 bool histogram) {
    nlohmann::ordered_json j = {
        {"win", s.win()},
        {"draw", s.draw},
        {"loss", s.loss()},
        {"max_dtw_win", s.max_win() >= 0 ? nlohmann::ordered_json(s.max_win()) : nlohmann::ordered_json()},
        {"count_at_max_win", s.count_at_max()},
        {"example_max_win", example ? nlohmann::ordered_json(draughts::to_fen(*example)) : nlohmann::ordered_json()}};
    if (histogram) {
        const auto pairs = [](const std::vector<std::uint64_t>& at) {
            nlohmann::ordered_json a = nlohmann::ordered_json::array();
            for (std::size_t i = 0; i < at.size(); ++i)
                if (at[i] != 0) a.push_back({i, at[i]});
            return a;
        };
        j["histogram"] = {{"win", pairs(s.wins_at)}, {"loss", pairs(s.losses_at)}};
    }
    return j;
}

// The object of `dtb stats --json` (with `histogram`, that of /api/stats).
template <int N>
nlohmann::ordered_json stats_json(std::string_view variant, const MaterialStats<N>& s, bool histogram) {
    return {{"variant", variant},
            {"material", s.material.name()},
            {"positions_per_side", s.positions_per_side},
            {"white_to_move", side_json<N>(s.white, s.white_example, histogram)},
            {"black_to_move", side_json<N>(s.black, s.black_example, histogram)}};
}

// Under the move-count draw rules (docs/rules.md), one side to move of a
// material with its count from zero: the five classes against the plain
// value and the rule distances (wins and losses by distance, draws, the
// longest rule win with an example).
struct RuleSideStats {
    std::array<std::uint64_t, 5> classes{};  // by RuleClass, loss first
    SideStats distances;
    // The first cursed win and blessed loss in index order, if any (~0 if none).
    std::uint64_t first_cursed = ~std::uint64_t{0}, first_blessed = ~std::uint64_t{0};

    std::uint64_t of(RuleClass c) const { return classes[static_cast<std::size_t>(static_cast<int>(c) + 2)]; }
    // Wins that are still wins when the ending arises with c plies already
    // counted, for c = 0..limit: those whose rule distance is at most limit - c.
    std::vector<std::uint64_t> survival(int limit) const {
        std::vector<std::uint64_t> within(static_cast<std::size_t>(limit) + 1);
        std::uint64_t sum = 0;
        for (int d = 0; d <= limit; ++d) {
            if (static_cast<std::size_t>(d) < distances.wins_at.size()) sum += distances.wins_at[d];
            within[static_cast<std::size_t>(limit - d)] = sum;
        }
        return within;
    }

    static RuleSideStats join(RuleSideStats a, const RuleSideStats& b) {
        for (std::size_t i = 0; i < a.classes.size(); ++i) a.classes[i] += b.classes[i];
        a.first_cursed = std::min(a.first_cursed, b.first_cursed);
        a.first_blessed = std::min(a.first_blessed, b.first_blessed);
        a.distances = SideStats::join(std::move(a.distances), b.distances);
        return a;
    }
};

template <int N>
struct RuleMaterialStats {
    Material material;
    std::uint64_t positions_per_side = 0;
    GoverningCount count;
    RuleSideStats white, black;
    std::optional<draughts::Position<N>> white_example, black_example;  // of the longest rule win
    // The first cursed win and blessed loss of each side, if any.
    std::optional<draughts::Position<N>> white_cursed, white_blessed, black_cursed, black_blessed;
};

template <class V, class PositionOf>
RuleSideStats count_rule_side(const Prober<V>& prober, const RuleProber<V>& rules, const Index<V::board_size>& index,
                              PositionOf position_of) {
    return tbb::parallel_reduce(
        tbb::blocked_range<std::uint64_t>(0, index.size(), 4096), RuleSideStats{},
        [&](const tbb::blocked_range<std::uint64_t>& r, RuleSideStats s) {
            for (std::uint64_t i = r.begin(); i != r.end(); ++i) {
                const auto p = position_of(index.unrank(i));
                const Value d = rules.distance(p);
                const RuleClass c = rule_class(prober.wdl(p), d.wdl);
                ++s.classes[static_cast<std::size_t>(static_cast<int>(c) + 2)];
                if (c == RuleClass::cursed_win) s.first_cursed = std::min(s.first_cursed, i);
                if (c == RuleClass::blessed_loss) s.first_blessed = std::min(s.first_blessed, i);
                s.distances.add(d, i);
            }
            return s;
        },
        RuleSideStats::join);
}

// Probes every position of `m` under the rules, both sides to move (TBB
// threads). Throws RulesRefused for a material without rule tables.
template <class V>
RuleMaterialStats<V::board_size> rule_material_stats(const Prober<V>& prober, const RuleProber<V>& rules,
                                                     const Material& m) {
    using Position = draughts::Position<V::board_size>;
    const Index<V::board_size> own(m), mirror(m.mirrored());
    const auto same = [](const Position& p) { return p; };
    const auto turned = [](const Position& p) { return p.flipped(); };
    RuleMaterialStats<V::board_size> s;
    s.material = m;
    s.positions_per_side = own.size();
    s.count = governing_count<typename V::draw_rules>(m);
    s.white = count_rule_side(prober, rules, own, same);
    s.black = count_rule_side(prober, rules, mirror, turned);
    if (s.white.distances.max_win() >= 0) s.white_example = own.unrank(s.white.distances.example);
    if (s.black.distances.max_win() >= 0) s.black_example = mirror.unrank(s.black.distances.example).flipped();
    const auto at = [](const Index<V::board_size>& index, std::uint64_t i, bool turned) {
        return i == ~std::uint64_t{0} ? std::nullopt
                                      : std::optional(turned ? index.unrank(i).flipped() : index.unrank(i));
    };
    s.white_cursed = at(own, s.white.first_cursed, false);
    s.white_blessed = at(own, s.white.first_blessed, false);
    s.black_cursed = at(mirror, s.black.first_cursed, true);
    s.black_blessed = at(mirror, s.black.first_blessed, true);
    return s;
}

// The object of `dtb stats --rules --json` (and of the explorer's rule
// statistics): per side to move the five classes, the longest rule win and
// an example, the rule distances as [plies, positions] pairs, and the
// survival curve (wins left with c plies counted, c = 0..limit).
inline std::string json_key(RuleClass c) {
    std::string key(to_string(c));
    std::replace(key.begin(), key.end(), ' ', '_');
    return key;
}

template <int N>
nlohmann::ordered_json rule_stats_json(std::string_view variant, const RuleMaterialStats<N>& s) {
    using Example = std::optional<draughts::Position<N>>;
    const auto fen = [](const Example& p) { return p ? nlohmann::ordered_json(draughts::to_fen(*p)) : nlohmann::ordered_json(); };
    const auto side = [&](const RuleSideStats& st, const Example& example, const Example& cursed, const Example& blessed) {
        nlohmann::ordered_json classes;
        for (RuleClass c : {RuleClass::win, RuleClass::cursed_win, RuleClass::draw, RuleClass::blessed_loss,
                            RuleClass::loss})
            classes[json_key(c)] = st.of(c);
        nlohmann::ordered_json j = side_json<N>(st.distances, example, true);
        nlohmann::ordered_json out = {{"classes", classes},
                                      {"longest_rule_win", j["max_dtw_win"]},
                                      {"count_at_longest", j["count_at_max_win"]},
                                      {"example_longest", j["example_max_win"]},
                                      {"example_cursed_win", fen(cursed)},
                                      {"example_blessed_loss", fen(blessed)},
                                      {"rule_distances", j["histogram"]},
                                      {"survival", st.survival(s.count.limit)}};
        return out;
    };
    nlohmann::ordered_json rule = {{"article", s.count.article}, {"limit", s.count.limit}};
    if (s.count.has_road()) {
        rule["road_article"] = s.count.road_article;
        rule["road_limit"] = s.count.road_limit;
    }
    return {{"variant", variant},
            {"material", s.material.name()},
            {"positions_per_side", s.positions_per_side},
            {"rule", rule},
            {"white_to_move", side(s.white, s.white_example, s.white_cursed, s.white_blessed)},
            {"black_to_move", side(s.black, s.black_example, s.black_cursed, s.black_blessed)}};
}

}  // namespace dtb
