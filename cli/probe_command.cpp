// `dtb probe`: the value of a position from the tables, with the best move
// and, on request, the line of perfect play (docs/design.md, "Command line"). The value is the
// last line: `win N`, `loss N` or `draw`, for the side to move, in plies.
// With --rules, the value under the move-count draw rules at the counts of
// the game (docs/rules.md): `win N`, `loss N` (N the rule distance) or
// `draw`, then the class, the rule distance and the plies left.
#include <string>

#include <fmt/core.h>

#include "cli/commands.hpp"
#include "draughts/notation.hpp"
#include "draughts/variant.hpp"
#include "probe/prober.hpp"
#include "probe/rule_prober.hpp"

namespace dtb::cli {

namespace {

template <class V>
void rule_probe_in(const ProbeOptions& o) {
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
                   to_string(best->after.rule_class));
    const std::string head = v.wdl == Wdl::draw ? "draw" : (v.wdl == Wdl::win ? "win " : "loss ") + std::to_string(v.distance.plies);
    fmt::print("{} ({}; rule distance {}, {} plies left)\n", head, to_string(v.rule_class), to_string(v.distance),
               v.plies_left);
}

template <class V>
void probe_in(const ProbeOptions& o) {
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

void run_probe(const ProbeOptions& o) {
    draughts::with_variant(o.variant, [&]<class V>() {
        if (o.rules)
            rule_probe_in<V>(o);
        else
            probe_in<V>(o);
    });
}

}  // namespace dtb::cli
