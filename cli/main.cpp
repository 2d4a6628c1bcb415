// `dtb`: the command line. Every subcommand's options are defined and checked
// here, and its run function (cli/commands.hpp; a file each) is called with
// them: this is the one file that includes CLI11.
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/commands.hpp"
#include "dtb.h"
#include "draughts/variant.hpp"

namespace dtb::cli {

namespace {

CLI::Option* add_variant_option(CLI::App& command, std::string& variant) {
    return command
        .add_option("--variant", variant, "american (english, checkers), brazilian, international, canadian or russian")
        ->required();
}

CLI::Option* add_dir_option(CLI::App& command, std::string& dir) {
    return command.add_option("--dir", dir, "the tables directory: tables of variant V are in DIR/V")->required();
}

void add_perft_command(CLI::App& app) {
    auto options = std::make_shared<PerftOptions>();
    auto* cmd = app.add_subcommand("perft", "Count the move sequences of a given depth (leaf count on the last line)");
    add_variant_option(*cmd, options->variant);
    cmd->add_option("--fen", options->fen, "start from this PDN FEN position (default: the variant's start)");
    cmd->add_option("--depth", options->depth, "number of plies")->required()->check(CLI::Range(0, 64));
    cmd->add_flag("--divide", options->divide, "list each root move with its leaf count");
    cmd->callback([options] { run_perft(*options); });
}

void add_info_command(CLI::App& app) {
    auto options = std::make_shared<InfoOptions>();
    auto* cmd = app.add_subcommand(
        "info", "Describe a material or every material of N pieces: positions, men configurations, potential levels");
    add_variant_option(*cmd, options->variant);
    auto* material = cmd->add_option("--material", options->material, "a material such as KKKvK or KMMvKM");
    auto* pieces = cmd->add_option("--pieces", options->pieces, "every canonical material of this many pieces")
                       ->check(CLI::Range(2, 24));
    material->excludes(pieces);
    pieces->excludes(material);
    cmd->add_flag("--json", options->json, "print JSON: an object for --material, an array for --pieces");
    cmd->callback([options, material, pieces] {
        if (material->count() + pieces->count() != 1)
            throw CLI::ValidationError("info", "give one of --material M or --pieces N");
        run_info(*options);
    });
}

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
    cmd->callback([options] { run_probe(*options); });
}

void add_stats_command(CLI::App& app) {
    auto options = std::make_shared<StatsOptions>();
    auto* cmd = app.add_subcommand(
        "stats", "Wins, draws, losses and the longest win of a material, for each side to move");
    add_variant_option(*cmd, options->variant);
    add_dir_option(*cmd, options->dir);
    cmd->add_option("--material", options->material, "the material, for example KKKvK")->required();
    cmd->add_flag("--json", options->json, "print one JSON object");
    cmd->add_flag("--rules", options->rules,
                  "under the move-count draw rules (the .rul tables): the five classes with the count from zero, "
                  "the rule distances, and the wins that survive a count already at c");
    cmd->callback([options] { run_stats(*options); });
}

void add_verify_command(CLI::App& app) {
    auto options = std::make_shared<VerifyCommandOptions>();
    auto* cmd = app.add_subcommand(
        "verify", "Check the header, checksums and values of every table (exit status 0 only if all hold)");
    add_variant_option(*cmd, options->variant);
    add_dir_option(*cmd, options->dir);
    cmd->add_option("--material", options->options.material, "verify only this material's .wld, .dtw (and .rul) tables");
    cmd->add_flag("--full", options->options.full,
                  "also check every value against the position's moves (a forward pass over every position)");
    cmd->add_option("--threads", options->options.threads, "threads for --full (default: every core)")
        ->check(CLI::Range(1, 4096));
    cmd->callback([options] { run_verify(*options); });
}

void add_convert_command(CLI::App& app) {
    auto options = std::make_shared<ConvertCommandOptions>();
    auto* cmd = app.add_subcommand(
        "convert", "Rewrite tables of older format versions in the current format without solving again (.dtw and .rul "
                   "of one side to move, draws left to the .wld; docs/format.md)");
    add_variant_option(*cmd, options->variant);
    add_dir_option(*cmd, options->dir);
    cmd->add_option("--material", options->options.material, "convert only this material's tables");
    cmd->add_option("--wld-compression", options->options.wld_compression_level,
                    "zstd level of the .wld blocks (default 12, as dtb build)")
        ->check(CLI::Range(1, 22));
    cmd->add_option("--dtw-compression", options->options.dtw_compression_level,
                    "zstd level of the .dtw blocks (default 9, as dtb build)")
        ->check(CLI::Range(1, 22));
    auto* compact = cmd->add_flag_callback(
        "--compact-wld", [options] { options->options.wld_version = 4; },
        "write every .wld compact (format 4): the positions a one-ply search answers left out, smaller and slower "
        "to probe there (docs/probing.md); a build cannot read it back");
    cmd->add_flag_callback(
           "--full-wld", [options] { options->options.wld_version = 3; },
           "write every .wld full again (format 3), from compact ones too")
        ->excludes(compact);
    cmd->callback([options] { run_convert(*options); });
}

void add_build_command(CLI::App& app) {
    auto options = std::make_shared<BuildCommandOptions>();
    auto* cmd = app.add_subcommand(
        "build", "Solve materials and write their .wld and .dtw tables, with --rules also .rul (resumes a build that "
        "was stopped)");
    add_variant_option(*cmd, options->variant);
    add_dir_option(*cmd, options->dir);
    auto* pieces = cmd->add_option("--pieces", options->pieces, "every material of up to N pieces")
                       ->check(CLI::Range(2, 24));
    auto* material = cmd->add_option("--material", options->materials,
                                     "a material such as KKKvK, with all it leads to (repeat for more)");
    pieces->excludes(material);
    material->excludes(pieces);
    cmd->add_option("--threads", options->threads, "threads (default: every core)")->check(CLI::Range(1, 4096));
    cmd->add_option("--memory", options->memory,
                    "how much the build may hold: 4G, 512M, 1.5T, or a plain number of GiB (4); the materials being "
                    "solved and the solved tables kept for the materials that read them, the rest read from disk "
                    "(default: a third of the machine's; under MPI, per rank, for the kept tables, default three "
                    "quarters shared by the node's ranks)")
        ->type_name("SIZE")
        ->check([](const std::string& text) {
            try {
                parse_memory(text);
                return std::string();
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
        });
    cmd->add_option("--output", options->output,
                    "auto (a progress display on a terminal, else a line per material), terminal, log or quiet")
        ->check(CLI::IsMember({"auto", "terminal", "log", "quiet"}));
    cmd->add_option("--wld-compression", options->wld_compression, "zstd level of the .wld blocks (default 12)")
        ->check(CLI::Range(1, 22));
    cmd->add_option("--dtw-compression", options->dtw_compression, "zstd level of the .dtw blocks (default 9)")
        ->check(CLI::Range(1, 22));
    cmd->add_option("--team-positions", options->team_positions,
                    "under MPI: a material's team has at most one rank per this many positions (default 2^28), "
                    "more only where the ranks' --memory requires; smaller materials are solved by one rank each")
        ->check(CLI::Range(std::uint64_t{1}, ~std::uint64_t{0}));
    cmd->add_option("--rank-timeout", options->rank_timeout,
                    "under MPI: seconds a rank may go unheard before it is taken as lost (its node or network "
                    "down) and the job ends, naming it (default 20)")
        ->check(CLI::Range(2.0, 86400.0));
    auto* rules = cmd->add_flag("--rules", options->rules,
                                "also the .rul tables: values under the variant's move-count draw rules "
                                "(docs/rules.md), after the plain tables");
    auto* profile = cmd->add_option("--profile", options->profile,
                                    "one process: write where the threads' time went to this JSON file, for "
                                    "bench/studies/thread_model (docs/scaling.md, \"Threads on one node\"); costs about 1%")
                        ->type_name("FILE");
    cmd->add_option("--profile-threads", options->profile_threads,
                    "with --profile: cut each level's work as a build on N threads would (big block pairs one a "
                    "thread in whole rounds of N), so that bench/studies/thread_model predicts N threads from this run")
        ->check(CLI::Range(1, 4096))
        ->needs(profile);
    cmd->add_flag("--literal-road", options->literal_road,
                  "Russian, with --rules: 7.2.7's main road read literally (the lone king on it, whatever else "
                  "stands there) instead of lidraughts' reading (alone on it)")
        ->needs(rules);
    cmd->callback([options, pieces, material] {
        if (pieces->count() == 0 && material->count() == 0)
            throw CLI::RequiredError("--pieces N or --material M");
        if (options->literal_road &&
            draughts::with_variant(options->variant, []<class V>() { return V::draw_rules::main_road.empty(); }))
            throw CLI::ValidationError("--literal-road", "only Russian has a main-road rule (7.2.7); leave it out");
        run_build(*options);
    });
}

void add_serve_command(CLI::App& app) {
    auto options = std::make_shared<ServeCommandOptions>();
    auto* cmd = app.add_subcommand("serve", "Serve the tables over HTTP: a JSON API (/api/probe, /api/stats)");
    add_dir_option(*cmd, options->dir);
    cmd->add_option("--host", options->serve.host, "the address to listen on")->capture_default_str();
    cmd->add_option("--port", options->serve.port, "the port (0: any free one, printed)")
        ->capture_default_str()
        ->check(CLI::Range(0, 65535));
    cmd->add_option("--threads", options->serve.threads, "request threads (default: 8, or one a core if more)")
        ->check(CLI::Range(1, 4096));
    cmd->callback([options] { run_serve(*options); });
}

void add_report_command(CLI::App& app) {
    auto options = std::make_shared<ReportOptions>();
    auto* cmd = app.add_subcommand(
        "report", "A material's statistics, distance chart and longest wins as one self-contained HTML file");
    add_variant_option(*cmd, options->variant);
    add_dir_option(*cmd, options->dir);
    cmd->add_option("--material", options->material, "the material, for example KKKvK")->required();
    cmd->add_option("--out", options->out, "the HTML file to write")->required();
    cmd->callback([options] { run_report(*options); });
}

}  // namespace

}  // namespace dtb::cli

int main(int argc, char** argv) {
    using namespace dtb::cli;
    CLI::App app{"dtb: draughts endgame tablebases", "dtb"};
    app.require_subcommand(1);
    add_perft_command(app);
    add_info_command(app);
    add_probe_command(app);
    add_stats_command(app);
    add_verify_command(app);
    add_convert_command(app);
    add_build_command(app);
    add_serve_command(app);
    add_report_command(app);
    app.set_version_flag("--version", std::string("dtb ") + dtb_version());
    std::string topic;
    auto* help = app.add_subcommand("help", "This help, or with a subcommand's name that subcommand's");
    help->add_option("subcommand", topic, "the subcommand, for example build");
    help->callback([&] {
        if (topic.empty()) {  // app.help() would describe the subcommand chosen: help
            fmt::print("{}", app.get_formatter()->make_help(&app, "dtb", CLI::AppFormatMode::Normal));
            return;
        }
        const CLI::App* command = nullptr;
        try {
            command = app.get_subcommand(topic);
        } catch (const CLI::OptionNotFound&) {
        }
        if (command && command != help) {
            fmt::print("{}", command->help("dtb"));
            return;
        }
        throw CLI::ValidationError("help", "no subcommand '" + topic + "': run dtb help for the list");
    });
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "dtb: error: {}\nRun 'dtb help' or 'dtb help SUBCOMMAND' for the options.\n",
                   e.what());
        return 2;
    } catch (const dtb::OptionRefused& e) {
        fmt::print(stderr, "dtb: error: {}\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        fmt::print(stderr, "dtb: error: {}\n", e.what());
        return 1;
    }
    return 0;
}
