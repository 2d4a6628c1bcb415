// `dtb report`: a material's report as one self-contained HTML file
// (explorer/report.hpp), written under a temporary name and renamed into place.
#include <string>

#include <fmt/core.h>

#include "cli/commands.hpp"
#include "builder/output/replaced_file.hpp"
#include "explorer/report.hpp"

namespace dtb::cli {

void run_report(const ReportOptions& o) {
    const std::string html = explorer::material_report(o.variant, o.dir, Material::parse(o.material));
    replace_file(o.out, html);
    fmt::print("{}: {} bytes\n", o.out, html.size());
}

}  // namespace dtb::cli
