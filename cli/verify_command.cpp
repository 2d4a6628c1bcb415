// `dtb verify`: the checks of builder/output/verify.hpp, a line per file
// and per material checked against its moves. Exit status 0 only if every
// table holds.
#include <memory>
#include <string>

#include <fmt/core.h>

#include "builder/output/verify.hpp"
#include "cli/commands.hpp"

namespace dtb::cli {

namespace {

struct VerifyCommand {
    std::string variant;
    std::string dir;
    VerifyOptions options;
};

void run_verify(const VerifyCommand& c) {
    VerifyOptions o = c.options;
    o.dir = c.dir;
    const VerifyReport r = verify_tables(c.variant, o, [](const TableCheck& check) {
        fmt::print("{}  {}\n", check.ok ? "ok    " : "FAILED", check.text);
    });
    if (r.failed > 0)
        throw std::runtime_error(fmt::format(
            "{} of {} {} failed verification: rebuild them with dtb build (with --rules for .rul tables)", r.failed,
            r.files + r.materials_checked, r.materials_checked ? "tables and materials" : "tables"));
    fmt::print("all {} tables verified{}\n", r.files, o.full ? ", values checked against their moves" : "");
}

}  // namespace

void add_verify_command(CLI::App& app) {
    auto options = std::make_shared<VerifyCommand>();
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

}  // namespace dtb::cli
