#include "explorer/report.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "draughts/notation.hpp"
#include "draughts/variant.hpp"
#include "explorer/material_stats.hpp"
#include "explorer/page.hpp"
#include "probe/prober.hpp"

namespace dtb::explorer {

namespace {

// The page's style sheet (explorer/page/explorer.css: board, pieces, chart)
// and what only the report has.
std::string style() {
    std::string css;
    for (const PageFile& file : page_files())
        if (file.path == "/explorer.css") css = file.content;
    return css + R"(
body { max-width: 70em; }
.line { display: flex; flex-wrap: wrap; gap: 0.6em; }
figure { margin: 0; } figure svg { width: 150px; height: auto; } figcaption { font-size: 0.8em; width: 150px; }
.rule { background: #fff6d8; padding: 0.5em 1em; border-left: 4px solid #c90; }
)";
}

std::string escape(std::string_view text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '&': out += "&amp;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

// The board of p in SVG, dark squares where dtb has them (row from the top,
// docs/design.md), White at the bottom.
template <int N>
std::string board_svg(const draughts::Position<N>& p) {
    using G = draughts::Geometry<N>;
    std::string svg = fmt::format(R"(<svg viewBox="0 0 {0} {0}" role="img" aria-label="{1}">)", N,
                                  escape(draughts::to_fen(p)));
    for (int r = 0; r < N; ++r)
        for (int c = 0; c < N; ++c)
            svg += fmt::format(R"(<rect x="{}" y="{}" width="1" height="1" class="{}"/>)", c, r,
                               (r + c) % 2 ? "dark" : "light");
    for (int s = 0; s < G::squares; ++s) {
        const auto b = draughts::bit<typename G::Bitboard>(G::bit_of_square(s));
        const bool white = (p.white & b) != 0, black = (p.black & b) != 0;
        if (!white && !black) continue;
        const double x = G::column_of_square(s) + 0.5, y = G::row_of_square(s) + 0.5;
        svg += fmt::format(R"(<circle cx="{}" cy="{}" r="0.38" class="{}"/>)", x, y,
                           white ? "white-piece" : "black-piece");
        if (p.kings & b) svg += fmt::format(R"(<circle cx="{}" cy="{}" r="0.18" class="crown"/>)", x, y);
    }
    return svg + "</svg>";
}

// 1234567 as "1.2M", 35000 as "35K": axis labels.
std::string compact(double n) {
    constexpr std::pair<double, const char*> units[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}};
    for (const auto& [unit, suffix] : units)
        if (n >= unit) return fmt::format("{:g}{}", std::round(n / unit * 10) / 10, suffix);
    return fmt::format("{:g}", n);
}

// Wins up and losses down by distance, positions on a logarithmic scale (a
// bar of one position still shows beside 10^9), the powers of ten marked,
// as the explorer page draws it.
std::string chart_svg(const SideStats& s) {
    const std::size_t plies = std::max<std::size_t>({s.wins_at.size(), s.losses_at.size(), 2}) - 1;
    const std::uint64_t top = std::max<std::uint64_t>(
        1, std::max(s.wins_at.empty() ? 0 : *std::max_element(s.wins_at.begin(), s.wins_at.end()),
                    s.losses_at.empty() ? 0 : *std::max_element(s.losses_at.begin(), s.losses_at.end())));
    const int decades = std::max(1, static_cast<int>(std::ceil(std::log10(static_cast<double>(top) + 1))));
    const double w = 760, h = 260, left = 56, margin = 8, mid = margin + (h - margin - 30) / 2, half = mid - margin;
    const double bar = (w - left - 10) / static_cast<double>(plies + 1);
    const auto height = [&](double n) { return std::log10(n + 1) / decades * half; };
    std::string svg = fmt::format(
        R"(<svg class="chart" viewBox="0 0 {} {}" role="img" aria-label="wins and losses by distance in plies, positions on a logarithmic scale">)",
        w, h);
    for (int d = 1; d <= decades; ++d) {
        const double power = std::pow(10.0, d);
        for (const double y : {mid - height(power - 1), mid + height(power - 1)})
            svg += fmt::format(R"(<line class="grid" x1="{}" y1="{:.2f}" x2="{}" y2="{:.2f}"/>)"
                               R"(<text class="axis" x="{}" y="{:.2f}" text-anchor="end">{}</text>)",
                               left, y, w - 10, y, left - 4, y + 4, compact(power));
    }
    const auto bars = [&](const std::vector<std::uint64_t>& at, bool wins) {
        for (std::size_t i = 0; i < at.size(); ++i)
            if (at[i]) {
                const double b = height(static_cast<double>(at[i]));
                svg += fmt::format(
                    R"(<rect class="{}" x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}"><title>{} in {} plies: {} positions</title></rect>)",
                    wins ? "win-bar" : "loss-bar", left + static_cast<double>(i) * bar, wins ? mid - b : mid, bar * 0.9,
                    b, wins ? "win" : "loss", i, at[i]);
            }
    };
    bars(s.wins_at, true);
    bars(s.losses_at, false);
    svg += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#333"/>)", left, mid, w - 10, mid);
    svg += fmt::format(R"(<text class="axis" x="{2}" y="{0}" text-anchor="end">wins ↑</text>)"
                       R"(<text class="axis" x="{2}" y="{1}" text-anchor="end">losses ↓</text>)",
                       margin + 10, mid + half - 2, w - 12);
    const std::size_t step = std::max<std::size_t>(1, (plies + 14) / 15);
    for (std::size_t i = 0; i <= plies; i += step)
        svg += fmt::format(R"(<text class="axis" x="{:.2f}" y="{}" text-anchor="middle">{}</text>)",
                           left + static_cast<double>(i) * bar + bar * 0.45, h - 16, i);
    svg += fmt::format(R"(<text class="axis" x="{}" y="{}" text-anchor="middle">distance to the end in plies (a move of )"
                       R"(one player is 1 ply)</text>)",
                       left + (w - left) / 2, h - 2);
    return svg + "</svg>";
}

// The wins that survive a count already at c, for c = 0..limit, as bars.
std::string survival_svg(const std::vector<std::uint64_t>& within) {
    const std::uint64_t top = std::max<std::uint64_t>(1, within.empty() ? 0 : within.front());
    const double w = 760, h = 160, left = 60, bar = (w - left - 10) / static_cast<double>(std::max<std::size_t>(within.size(), 1));
    std::string svg = fmt::format(
        R"(<svg class="chart survival" viewBox="0 0 {} {}" role="img" aria-label="wins left with the count already at c plies">)",
        w, h + 20);
    for (std::size_t c = 0; c < within.size(); ++c) {
        const double height = static_cast<double>(within[c]) / static_cast<double>(top) * (h - 20);
        svg += fmt::format(R"(<rect class="win-bar" x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}"><title>count at {}: {} wins left</title></rect>)",
                           left + static_cast<double>(c) * bar, h - height, bar * 0.9, height, c, within[c]);
    }
    svg += fmt::format(R"(<text x="0" y="14">{}</text><text x="0" y="{}">0</text>)", compact(static_cast<double>(top)), h);
    const std::size_t step = std::max<std::size_t>(1, (within.size() + 9) / 10);
    for (std::size_t c = 0; c < within.size(); c += step)
        svg += fmt::format(R"(<text x="{:.2f}" y="{}">{}</text>)", left + static_cast<double>(c) * bar, h + 14, c);
    return svg + "</svg>";
}

// Under the move-count draw rules: the five classes with the count from
// zero and the wins that survive a count already at c.
std::string rule_section(const RuleSideStats& s, const GoverningCount& count) {
    std::string html = "<div class=\"rule\"><p>Under the draw rules, the count from zero:</p>";
    html += "<table class=\"counts\"><tr><th>wins</th><th>cursed wins</th><th>draws</th><th>blessed losses</th>"
            "<th>losses</th><th>longest rule win</th></tr>";
    html += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr></table>\n",
                        s.of(RuleClass::win), s.of(RuleClass::cursed_win), s.of(RuleClass::draw),
                        s.of(RuleClass::blessed_loss), s.of(RuleClass::loss),
                        s.distances.max_win() >= 0 ? fmt::format("{} plies", s.distances.max_win()) : "none");
    const auto within = s.survival(count.limit);
    html += fmt::format("<p>Wins that are still wins when the ending arises with c plies of the count ({} plies) "
                        "already played, c = 0 to {}:</p>\n",
                        count.limit, count.limit);
    return html + survival_svg(within) + "</div>\n";
}

template <class V>
std::string side_section(const Prober<V>& prober, std::string_view name, const SideStats& s,
                         const std::optional<draughts::Position<V::board_size>>& example,
                         const RuleSideStats* rules, const GoverningCount* count) {
    std::string html = fmt::format("<h2>{}</h2>\n", name);
    html += "<table class=\"counts\"><tr><th>wins</th><th>draws</th><th>losses</th><th>longest win</th></tr>";
    html += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr></table>\n", s.win(), s.draw, s.loss(),
                        s.max_win() >= 0 ? fmt::format("{} plies ({} positions)", s.max_win(), s.count_at_max())
                                         : "none");
    html += chart_svg(s) + "\n";
    if (rules) html += rule_section(*rules, *count);
    if (example) {
        html += fmt::format("<h3>The longest win, {} plies: {}</h3>\n<div class=\"line\">", s.max_win(),
                            escape(draughts::to_fen(*example)));
        auto p = *example;
        html += "<figure>" + board_svg(p) + "<figcaption>start</figcaption></figure>";
        // Captions numbered as a game score: "1. 8-2", "1... 54-71", "2. ...",
        // the first player's move opening each number (Black in American
        // checkers, White elsewhere).
        constexpr draughts::Color first = V::first_to_move;
        int number = p.side_to_move == first ? 0 : 1;
        for (const auto& m : prober.best_line(*example)) {
            const bool opening = p.side_to_move == first;
            if (opening) ++number;
            const std::string text = draughts::move_to_text<V>(p, m);
            draughts::make_move(p, m);
            html += fmt::format("<figure>{}<figcaption>{}{} {}</figcaption></figure>", board_svg(p),
                                number, opening ? "." : "...", text);
        }
        html += "</div>\n";
    }
    return html;
}

template <class V>
std::string report(const std::string& dir, const Material& m) {
    const Prober<V> prober(dir);
    const auto s = material_stats(prober, m);
    // Under the draw rules, if the material's .rul is there.
    std::optional<RuleMaterialStats<V::board_size>> rules;
    std::string rule_note;
    const TableSet::Found found = prober.tables().find(m);
    if (found.slot >= 0 && prober.tables().has(found.slot, TableKind::rul)) {
        rules = rule_material_stats(prober, RuleProber<V>(prober), m);
        rule_note = fmt::format(
            "<p class=\"rule\">Draw rule of {} governing {}: {}{}. The game is drawn when this count of plies reaches "
            "its limit ({} plies). Under it a position is a win, a <i>cursed win</i> (won with perfect play, but the "
            "count runs out first: a draw), a draw, a <i>blessed loss</i> (lost with perfect play, saved by the count) "
            "or a loss. The <i>rule distance</i> is the plies until the win is safe from the count: the win itself, "
            "or the move (a man's move, a capture, a new ending) that starts the count again in a position still "
            "won; a position is won under the rules while its rule distance is at most the plies left on the count, "
            "so it can be shorter than the plain distance.</p>\n",
            V::name, m.name(), escape(rules->count.article),
            rules->count.has_road() ? ", with " + escape(rules->count.road_article) : "", rules->count.limit);
    } else {
        rule_note = "<p>No rule table (.rul) of this material: build it with <code>" +
                    escape(build_command(V::name, dir, "--material " + m.canonical().name() + " --rules")) +
                    "</code> to see its values under the move-count draw rules.</p>\n";
    }
    std::string html = fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0} {1}</title><style>{2}</style>"
        "</head><body>\n<h1>{0} {1}</h1>\n<p>{3} positions for each side to move, from the tables in {4}. "
        "Distances are in plies, with perfect play: the winner wins as fast as it can, the loser holds out as long "
        "as it can. A ply is one turn of one player, so a move in a game score (one turn of each) is two plies: a "
        "win in 15 plies ends with the winner's 8th move. Capture positions are counted with the value of their "
        "best capture.</p>\n",
        V::name, m.name(), style(), s.positions_per_side, escape(dir));
    html += rule_note;
    const GoverningCount* count = rules ? &rules->count : nullptr;
    html += side_section(prober, "White to move", s.white, s.white_example, rules ? &rules->white : nullptr, count);
    html += side_section(prober, "Black to move", s.black, s.black_example, rules ? &rules->black : nullptr, count);
    return html + "<p>Made by dtb report.</p></body></html>\n";
}

}  // namespace

std::string material_report(std::string_view variant, const std::string& dir, const Material& m) {
    return draughts::with_variant(variant, [&]<class V>() { return report<V>(dir, m); });
}

}  // namespace dtb::explorer
