#include <chrono>
#include <cstdio>
#include <string>

#include <fmt/core.h>

#include "cli/commands.hpp"
#include "draughts/notation.hpp"
#include "draughts/perft.hpp"

namespace dtb::cli {

namespace {

struct PerftOptions {
    std::string variant;
    std::string fen;
    int depth = 0;
    bool divide = false;
};

template <class V>
void run_perft(const PerftOptions& o) {
    using namespace draughts;
    const auto position = o.fen.empty() ? start_position<V>() : parse_fen<V::board_size>(o.fen);
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t leaves = 0;
    if (o.divide) {
        for (const auto& [move, count] : perft_divide<V>(position, o.depth)) {
            fmt::print("{} {}\n", move_to_text<V>(position, move), count);
            leaves += count;
        }
    } else {
        leaves = perft<V>(position, o.depth);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print(stderr, "{} perft depth {} from {}: {} leaves in {:.3f} s ({:.1f} million leaves/s)\n", V::name,
               o.depth, o.fen.empty() ? "the start position" : to_fen(position), leaves, seconds,
               seconds > 0 ? leaves / seconds / 1e6 : 0.0);
    fmt::print("{}\n", leaves);
}

}  // namespace

void add_perft_command(CLI::App& app) {
    auto options = std::make_shared<PerftOptions>();
    auto* cmd = app.add_subcommand("perft", "Count the move sequences of a given depth (leaf count on the last line)");
    add_variant_option(*cmd, options->variant);
    cmd->add_option("--fen", options->fen, "start from this PDN FEN position (default: the variant's start)");
    cmd->add_option("--depth", options->depth, "number of plies")->required()->check(CLI::Range(0, 64));
    cmd->add_flag("--divide", options->divide, "list each root move with its leaf count");
    cmd->callback([options] {
        draughts::with_variant(options->variant, [&]<class V>() { run_perft<V>(*options); });
    });
}

}  // namespace dtb::cli
