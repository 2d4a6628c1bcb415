// `dtb stats`: wins, draws and losses over every legal placement of a material
// for each side to move, capture positions included, with the longest win and
// an example of it (DESIGN.md §10).
#include <memory>
#include <string>
#include <tuple>

#include <fmt/core.h>

#include "builder/cli/commands.hpp"
#include "draughts/notation.hpp"
#include "draughts/variant.hpp"
#include "explorer/material_stats.hpp"

namespace dtb::cli {

namespace {

struct StatsOptions {
    std::string variant;
    std::string dir;
    std::string material;
    bool json = false;
};

template <class V>
void run_stats(const StatsOptions& o) {
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

void add_stats_command(CLI::App& app) {
    auto options = std::make_shared<StatsOptions>();
    auto* cmd = app.add_subcommand(
        "stats", "Wins, draws, losses and the longest win of a material, for each side to move");
    add_variant_option(*cmd, options->variant);
    add_dir_option(*cmd, options->dir);
    cmd->add_option("--material", options->material, "the material, for example KKKvK")->required();
    cmd->add_flag("--json", options->json, "print one JSON object");
    cmd->callback([options] {
        draughts::with_variant(options->variant, [&]<class V>() { run_stats<V>(*options); });
    });
}

}  // namespace dtb::cli
