// `dtb stats`: wins, draws and losses over every legal placement of a material
// for each side to move, capture positions included, with the longest win and
// an example of it (DESIGN.md §10).
#include <memory>
#include <optional>
#include <string>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include "builder/cli/commands.hpp"
#include "draughts/notation.hpp"
#include "draughts/variant.hpp"
#include "probe/prober.hpp"

namespace dtb::cli {

namespace {

struct StatsOptions {
    std::string variant;
    std::string dir;
    std::string material;
    bool json = false;
};

// Counts over one side to move. The example is the first position of the
// longest win in index order, so the result does not depend on threads.
struct SideStats {
    std::uint64_t win = 0, draw = 0, loss = 0;
    int max_win = -1;  // plies; -1 if there is no win
    std::uint64_t count_at_max = 0;
    std::uint64_t example = 0;  // index of the first position at max_win

    void add(Value v, std::uint64_t index) {
        if (v.wdl == Wdl::draw) ++draw;
        if (v.wdl == Wdl::loss) ++loss;
        if (v.wdl != Wdl::win) return;
        ++win;
        if (v.plies > max_win) {
            max_win = v.plies;
            count_at_max = 0;
            example = index;
        }
        count_at_max += v.plies == max_win;
    }

    static SideStats join(SideStats a, const SideStats& b) {
        a.win += b.win;
        a.draw += b.draw;
        a.loss += b.loss;
        if (b.max_win > a.max_win) {
            a.max_win = b.max_win;
            a.count_at_max = b.count_at_max;
            a.example = b.example;
        } else if (b.max_win == a.max_win && b.max_win >= 0) {
            a.count_at_max += b.count_at_max;
            a.example = std::min(a.example, b.example);
        }
        return a;
    }
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

template <int N>
nlohmann::ordered_json to_json(const SideStats& s, const std::optional<draughts::Position<N>>& example) {
    return {{"win", s.win},
            {"draw", s.draw},
            {"loss", s.loss},
            {"max_dtw_win", s.max_win >= 0 ? nlohmann::ordered_json(s.max_win) : nlohmann::ordered_json()},
            {"count_at_max_win", s.count_at_max},
            {"example_max_win", example ? nlohmann::ordered_json(draughts::to_fen(*example)) : nlohmann::ordered_json()}};
}

template <class V>
void run_stats(const StatsOptions& o) {
    constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    const Material m = Material::parse(o.material);
    const Prober<V> prober(o.dir);
    const Index<N> own(m), mirror(m.mirrored());
    // White to move: M's placements. Black to move: the mirror's placements
    // with White to move, turned round (DESIGN.md §5).
    const auto same = [](const Position& p) { return p; };
    const auto turned = [](const Position& p) { return p.flipped(); };
    const SideStats white = count_side(prober, own, same);
    const SideStats black = count_side(prober, mirror, turned);
    const auto example = [](const SideStats& s, const Index<N>& index, auto position_of) -> std::optional<Position> {
        if (s.max_win < 0) return std::nullopt;
        return position_of(index.unrank(s.example));
    };
    const auto white_example = example(white, own, same);
    const auto black_example = example(black, mirror, turned);
    if (o.json) {
        const nlohmann::ordered_json j = {{"variant", V::name},
                                  {"material", m.name()},
                                  {"positions_per_side", own.size()},
                                  {"white_to_move", to_json<N>(white, white_example)},
                                  {"black_to_move", to_json<N>(black, black_example)}};
        fmt::print("{}\n", j.dump());
        return;
    }
    fmt::print("{} {}: {} positions per side to move\n", V::name, m.name(), own.size());
    for (const auto& [side, s, ex] : {std::tuple{"white", white, white_example}, {"black", black, black_example}}) {
        fmt::print("{} to move: {} wins, {} draws, {} losses", side, s.win, s.draw, s.loss);
        if (ex)
            fmt::print("; longest win {} plies ({} positions), for example {}", s.max_win, s.count_at_max,
                       draughts::to_fen(*ex));
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
