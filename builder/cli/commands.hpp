// The subcommands of `dtb` (DESIGN.md §10). Each adds itself to the app and
// runs when chosen; errors are thrown and reported once, by main().
#pragma once

#include <CLI/CLI.hpp>

namespace dtb::cli {

void add_perft_command(CLI::App& app);
void add_info_command(CLI::App& app);

}  // namespace dtb::cli
