// `dtb report`: a material's report as one self-contained HTML file
// (explorer/report.hpp), written under a temporary name and renamed into place.
#include <memory>
#include <string>

#include <fmt/core.h>

#include "cli/commands.hpp"
#include "builder/output/replaced_file.hpp"
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
    replace_file(o.out, html);
    fmt::print("{}: {} bytes\n", o.out, html.size());
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
