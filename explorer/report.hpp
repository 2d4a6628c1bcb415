// `dtb report`: one self-contained HTML page about a material (issue 16):
// its statistics for both sides to move, the wins and losses by distance as
// a chart, each side's longest win as board diagrams along its best line,
// and, where its .rul table is there, its values under the move-count draw
// rules: the five classes and the wins that survive a count already at c. Inline
// SVG and CSS only: the file opens anywhere, without a network.
#pragma once

#include <string>
#include <string_view>

#include "probe/material.hpp"

namespace dtb::explorer {

// The report of material `m` of `variant` from the tables in DIR/variant, as
// HTML. Throws what the probe library throws (TableError, ...) and
// std::invalid_argument for an unknown variant.
std::string material_report(std::string_view variant, const std::string& dir, const Material& m);

}  // namespace dtb::explorer
