// `dtb probe`: the value of a position from the tables, with the best move
// and, on request, the line of perfect play (docs/design.md, "Command line"). The value is the
// last line: `win N`, `loss N` or `draw`, for the side to move, in plies.
// With --rules, the value under the move-count draw rules at the counts of
// the game (docs/rules.md): `win N`, `loss N` (N the rule distance) or
// `draw`, then the class, the rule distance and the plies left.
#include <memory>
#include <string>

#include <fmt/core.h>

#include "cli/commands.hpp"
#include "draughts/notation.hpp"
#include "draughts/variant.hpp"
#include "probe/prober.hpp"
#include "probe/rule_prober.hpp"

namespace dtb::cli {

namespace {

struct ProbeOptions {
    std::string variant;
    std::string dir;
    std::string fen;
    bool line = false;
    bool rules = false;
    std::string counts;
};

template <class V>
void run_rule_probe(const ProbeOptions& o) {
    const auto position = draughts::parse_fen<V::board_size>(o.fen);
    const RuleCounts counts = parse_counts(o.counts);
    const Prober<V> prober(o.dir);
    const RuleProber<V> rules(prober);
    const RuleValue v = rules.value(position, counts);
    fmt::print("{} {}\n", V::name, draughts::to_fen(position));
    fmt::print("plain value: {}\n", to_string(v.dtw));
    fmt::print("governing count: {}{}{}; counts {}; {} plies left\n", v.article, v.road_article.empty() ? "" : " with ",
               v.road_article, counts.kings_only || counts.ending || counts.road ? to_string(counts) : "from now",
               v.plies_left);
    if (const auto best = rules.best_move(position, counts))
        fmt::print("best move: {} (counts after it: {}; {} for the side to move then)\n",
                   draughts::move_to_text<V>(position, best->move), to_string(best->counts),
                   to_string(best->after.label));
    const std::string head = v.wdl == Wdl::draw ? "draw" : (v.wdl == Wdl::win ? "win " : "loss ") + std::to_string(v.distance.plies);
    fmt::print("{} ({}; rule distance {}, {} plies left)\n", head, to_string(v.label), to_string(v.distance),
               v.plies_left);
}

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
    auto* rules = cmd->add_flag("--rules", options->rules,
                                "the value under the move-count draw rules (docs/rules.md) from the .rul tables; "
                                "last line win N or loss N (N the rule distance, plies) or draw, with the class");
    cmd->add_option("--count", options->counts,
                    "with --rules, the counts of the game in plies: K since the last man move or capture, E since "
                    "the lone-king ending arose, T (Russian) since the lone king first stood alone on the main road; "
                    "for example K=12,E=3 (a count left out starts now)")
        ->needs(rules);
    cmd->callback([options] {
        draughts::with_variant(options->variant, [&]<class V>() {
            if (options->rules)
                run_rule_probe<V>(*options);
            else
                run_probe<V>(*options);
        });
    });
}

}  // namespace dtb::cli
