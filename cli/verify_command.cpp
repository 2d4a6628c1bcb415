// `dtb verify`: the checks of builder/output/verify.hpp, a line per file
// and per material checked against its moves. Exit status 0 only if every
// table holds.
#include <string>

#include <fmt/core.h>

#include "cli/commands.hpp"

namespace dtb::cli {

void run_verify(const VerifyCommandOptions& c) {
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

}  // namespace dtb::cli
