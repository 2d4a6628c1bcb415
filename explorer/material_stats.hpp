// The statistics of a material over every legal placement, for each side to
// move: wins, draws, losses, the longest win with an example, and how many
// wins and losses there are at each distance (`dtb stats`, the explorer's
// /api/stats and `dtb report`). Capture positions are counted with the value
// the probe gives them.
#pragma once

#include <algorithm>
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
    // with White to move, turned round (DESIGN.md §5).
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

}  // namespace dtb
