// `dtb verify`: reads every block of every table (or of one material's two
// tables) and checks the checksums, the header and the values (DESIGN.md §10).
// Exit status 0 only if every table holds.
#include <memory>
#include <set>
#include <string>

#include <fmt/core.h>

#include "builder/cli/commands.hpp"
#include "draughts/variant.hpp"
#include "probe/prober.hpp"

namespace dtb::cli {

namespace {

struct VerifyOptions {
    std::string variant;
    std::string dir;
    std::string material;
};

struct TableFailures : std::runtime_error {
    using std::runtime_error::runtime_error;
};

template <class V>
void run_verify(const VerifyOptions& o) {
    const Prober<V> prober(o.dir);
    const TableSet& tables = prober.tables();
    // Every file that looks like a table, so that a misnamed one is reported too.
    std::set<std::filesystem::path> files;
    if (o.material.empty()) {
        for (const auto& entry : std::filesystem::directory_iterator(tables.directory())) {
            const auto ext = entry.path().extension();
            if (ext == ".wld" || ext == ".dtw") files.insert(entry.path());
        }
        if (files.empty())
            throw std::runtime_error("no tables (*.wld, *.dtw) in " + tables.directory().string());
    } else {
        const Material m = Material::parse(o.material).canonical();
        for (TableKind kind : {TableKind::wld, TableKind::dtw}) files.insert(tables.path_of(m, kind));
    }
    int failed = 0;
    for (const auto& path : files) {
        try {
            const TableKind kind = path.extension() == ".wld" ? TableKind::wld : TableKind::dtw;
            const auto found = tables.find(Material::parse(path.stem().string()));
            if (found.slot < 0 || found.mirrored || tables.path_of(tables.materials()[found.slot], kind) != path) {
                if (std::filesystem::exists(path))
                    throw TableError(TableErrorKind::foreign, path, "the name is not a canonical material's table");
                throw TableError(TableErrorKind::missing, path, "no such file");
            }
            const TableFile& file = tables.file(found.slot, kind);
            file.verify();
            fmt::print("ok      {} ({} blocks, {} positions)\n", path.string(), file.header().block_count(),
                       file.header().positions());
        } catch (const std::exception& e) {  // TableError, or MaterialError for a misnamed file
            ++failed;
            fmt::print("FAILED  {}\n", e.what());
        }
    }
    if (failed > 0)
        throw TableFailures(fmt::format("{} of {} tables failed verification: rebuild them with dtb build", failed,
                                        files.size()));
    fmt::print("all {} tables verified\n", files.size());
}

}  // namespace

void add_verify_command(CLI::App& app) {
    auto options = std::make_shared<VerifyOptions>();
    auto* cmd = app.add_subcommand(
        "verify", "Check the header, checksums and values of every table (exit status 0 only if all hold)");
    add_variant_option(*cmd, options->variant);
    add_dir_option(*cmd, options->dir);
    cmd->add_option("--material", options->material, "verify only this material's .wld and .dtw tables");
    cmd->callback([options] {
        draughts::with_variant(options->variant, [&]<class V>() { run_verify<V>(*options); });
    });
}

}  // namespace dtb::cli
