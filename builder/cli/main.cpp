#include <cstdio>
#include <exception>

#include <fmt/core.h>

#include "builder/cli/commands.hpp"

int main(int argc, char** argv) {
    CLI::App app{"dtb: draughts endgame tablebases"};
    app.require_subcommand(1);
    dtb::cli::add_perft_command(app);
    dtb::cli::add_info_command(app);
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
