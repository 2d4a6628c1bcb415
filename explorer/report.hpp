// `dtb report`: one self-contained HTML page about a material (issue 16):
// its statistics for both sides to move, the wins and losses by distance as
// a chart, each side's longest win as board diagrams along its best line,
// and what a move-count draw rule of the variant does to its wins. Inline
// SVG and CSS only: the file opens anywhere, without a network.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "probe/material.hpp"

namespace dtb::explorer {

// A draw rule that caps the wins of a material at a number of plies,
// counted from the moment the ending arises and never reset before the win:
// the lone-king rules of Canadian and International draughts for endings of
// kings only (../shared/rules/ 003 and 004: three kings against one are
// drawn after 16 moves each; FMJD: one or two kings against one after 5
// moves each). Materials with men, whose counts can restart, are issue 19's.
struct CountRule {
    int limit;               // plies: a win or loss longer than this is drawn by the rule
    std::string_view text;   // the rule, as the report states it
};
std::optional<CountRule> count_rule(std::string_view variant, const Material& m);

// The report of material `m` of `variant` from the tables in DIR/variant, as
// HTML. Throws what the probe library throws (TableError, ...) and
// std::invalid_argument for an unknown variant.
std::string material_report(std::string_view variant, const std::string& dir, const Material& m);

}  // namespace dtb::explorer
