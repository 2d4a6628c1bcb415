// The subcommands of `dtb` (docs/design.md, "Command line"). Each adds itself to the app and
// runs when chosen; errors are thrown and reported once, by main().
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace dtb::cli {

void add_perft_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_probe_command(CLI::App& app);
void add_stats_command(CLI::App& app);
void add_verify_command(CLI::App& app);
void add_build_command(CLI::App& app);
void add_serve_command(CLI::App& app);
void add_report_command(CLI::App& app);

// The --variant option every subcommand takes (required).
CLI::Option* add_variant_option(CLI::App& command, std::string& variant);
// The --dir option of the commands that read tables (required).
CLI::Option* add_dir_option(CLI::App& command, std::string& dir);

}  // namespace dtb::cli
