// `dtb report`: a material's report as one self-contained HTML file
// (explorer/report.hpp), written under a temporary name and renamed into place.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include <fmt/core.h>

#include "builder/cli/commands.hpp"
#include "explorer/report.hpp"

namespace dtb::cli {

namespace {

struct ReportOptions {
    std::string variant;
    std::string dir;
    std::string material;
    std::string out;
};

void run_report(const ReportOptions& o) {
    const std::string html = explorer::material_report(o.variant, o.dir, Material::parse(o.material));
    const std::filesystem::path out(o.out), temporary(o.out + ".tmp");
    {
        std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
        file << html;
        file.close();
        if (!file) {
            std::error_code ignored;
            std::filesystem::remove(temporary, ignored);
            throw std::runtime_error("cannot write " + temporary.string() + ": check that its folder exists and is writable");
        }
    }
    std::filesystem::rename(temporary, out);
    fmt::print("{}: {} bytes\n", out.string(), html.size());
}

}  // namespace

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

}  // namespace dtb::cli
