#include <cstdio>
#include <exception>

#include <fmt/core.h>

#include "cli/commands.hpp"

namespace dtb::cli {

CLI::Option* add_variant_option(CLI::App& command, std::string& variant) {
    return command
        .add_option("--variant", variant, "american (english, checkers), brazilian, international, canadian or russian")
        ->required();
}

CLI::Option* add_dir_option(CLI::App& command, std::string& dir) {
    return command.add_option("--dir", dir, "the tables directory: tables of variant V are in DIR/V")->required();
}

}  // namespace dtb::cli

int main(int argc, char** argv) {
    CLI::App app{"dtb: draughts endgame tablebases"};
    app.require_subcommand(1);
    dtb::cli::add_perft_command(app);
    dtb::cli::add_info_command(app);
    dtb::cli::add_probe_command(app);
    dtb::cli::add_stats_command(app);
    dtb::cli::add_verify_command(app);
    dtb::cli::add_build_command(app);
    dtb::cli::add_serve_command(app);
    dtb::cli::add_report_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "dtb: error: {}\nRun 'dtb --help' or 'dtb SUBCOMMAND --help' for the options.\n",
                   e.what());
        return 2;
    } catch (const std::exception& e) {
        fmt::print(stderr, "dtb: error: {}\n", e.what());
        return 1;
    }
    return 0;
}
