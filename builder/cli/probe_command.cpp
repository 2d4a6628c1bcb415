// `dtb probe`: the value of a position from the tables, with the best move
// and, on request, the line of perfect play (DESIGN.md §10). The value is the
// last line: `win N`, `loss N` or `draw`, for the side to move, in plies.
#include <memory>
#include <string>

#include <fmt/core.h>

#include "builder/cli/commands.hpp"
#include "draughts/notation.hpp"
#include "draughts/variant.hpp"
#include "probe/prober.hpp"

namespace dtb::cli {

namespace {

struct ProbeOptions {
    std::string variant;
    std::string dir;
    std::string fen;
    bool line = false;
};

template <class V>
void run_probe(const ProbeOptions& o) {
    const auto position = draughts::parse_fen<V::board_size>(o.fen);
    const Prober<V> prober(o.dir);
    const Value value = prober.value(position);
    fmt::print("{} {}\n", V::name, draughts::to_fen(position));
    if (o.line) {
        auto p = position;
        std::string text;
        for (const auto& m : prober.best_line(position)) {
            text += (text.empty() ? "" : " ") + draughts::move_to_text<V>(p, m);
            draughts::make_move(p, m);
        }
        fmt::print("line: {}\n", text.empty() ? "(no legal move)" : text);
    } else if (const auto best = prober.best_move(position)) {
        fmt::print("best move: {}\n", draughts::move_to_text<V>(position, best->move));
    }
    fmt::print("{}\n", to_string(value));
}

}  // namespace

void add_probe_command(CLI::App& app) {
    auto options = std::make_shared<ProbeOptions>();
    auto* cmd = app.add_subcommand(
        "probe", "The value of a position from the tables (last line: win N, loss N or draw; plies, side to move)");
    add_variant_option(*cmd, options->variant);
    add_dir_option(*cmd, options->dir);
    cmd->add_option("fen", options->fen, "the position in PDN FEN, for example W:WK1,K3,K5:BK32")->required();
    cmd->add_flag("--line", options->line,
                  "print the moves of perfect play to the end of a won or lost game (a draw: one move that keeps it)");
    cmd->callback([options] {
        draughts::with_variant(options->variant, [&]<class V>() { run_probe<V>(*options); });
    });
}

}  // namespace dtb::cli
