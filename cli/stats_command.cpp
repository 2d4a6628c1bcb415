// `dtb stats`: wins, draws and losses over every legal placement of a material
// for each side to move, capture positions included, with the longest win and
// an example of it (docs/design.md, "Command line").
#include <string>
#include <tuple>

#include <fmt/core.h>

#include "cli/commands.hpp"
#include "draughts/notation.hpp"
#include "draughts/variant.hpp"
#include "explorer/material_stats.hpp"

namespace dtb::cli {

namespace {

template <class V>
void rule_stats_in(const StatsOptions& o) {
    const Prober<V> prober(o.dir);
    const RuleProber<V> rules(prober);
    const auto s = rule_material_stats(prober, rules, Material::parse(o.material));
    if (o.json) {
        fmt::print("{}\n", rule_stats_json<V::board_size>(V::name, s).dump());
        return;
    }
    fmt::print("{} {} under the draw rules: {} positions per side to move; {} ({} plies){}\n", V::name,
               s.material.name(), s.positions_per_side, s.count.article, s.count.limit,
               s.count.has_road() ? fmt::format(", and {} ({} plies)", s.count.road_article, s.count.road_limit) : "");
    for (const auto& [side, st, ex] :
         {std::tuple{"white", &s.white, &s.white_example}, {"black", &s.black, &s.black_example}}) {
        fmt::print("{} to move, the count from zero: {} wins, {} cursed wins, {} draws, {} blessed losses, {} losses",
                   side, st->of(RuleClass::win), st->of(RuleClass::cursed_win), st->of(RuleClass::draw),
                   st->of(RuleClass::blessed_loss), st->of(RuleClass::loss));
        if (*ex)
            fmt::print("; longest rule win {} plies ({} positions), for example {}", st->distances.max_win(),
                       st->distances.count_at_max(), draughts::to_fen(**ex));
        fmt::print("\n");
        std::string at;
        for (std::size_t d = 0; d < st->distances.wins_at.size(); ++d)
            if (st->distances.wins_at[d]) at += fmt::format(" {}:{}", d, st->distances.wins_at[d]);
        fmt::print("  wins by rule distance (plies:positions):{}\n", at.empty() ? " none" : at);
        std::string curve;
        const auto within = st->survival(s.count.limit);
        for (std::size_t c = 0; c < within.size(); ++c) curve += fmt::format(" {}", within[c]);
        fmt::print("  wins left with c plies already counted, c = 0..{}:{}\n", s.count.limit, curve);
    }
}

template <class V>
void stats_in(const StatsOptions& o) {
    const Prober<V> prober(o.dir);
    const auto s = material_stats(prober, Material::parse(o.material));
    if (o.json) {
        fmt::print("{}\n", stats_json<V::board_size>(V::name, s, false).dump());
        return;
    }
    fmt::print("{} {}: {} positions per side to move\n", V::name, s.material.name(), s.positions_per_side);
    for (const auto& [side, st, ex] :
         {std::tuple{"white", &s.white, &s.white_example}, {"black", &s.black, &s.black_example}}) {
        fmt::print("{} to move: {} wins, {} draws, {} losses", side, st->win(), st->draw, st->loss());
        if (*ex)
            fmt::print("; longest win {} plies ({} positions), for example {}", st->max_win(), st->count_at_max(),
                       draughts::to_fen(**ex));
        fmt::print("\n");
    }
}

}  // namespace

void run_stats(const StatsOptions& o) {
    draughts::with_variant(o.variant, [&]<class V>() {
        if (o.rules)
            rule_stats_in<V>(o);
        else
            stats_in<V>(o);
    });
}

}  // namespace dtb::cli
