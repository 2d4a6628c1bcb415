// `dtb convert`: builder/output/convert.hpp, a line per .wld, .dtw and .rul file.
#include <fmt/core.h>

#include "cli/commands.hpp"

namespace dtb::cli {

void run_convert(const ConvertCommandOptions& c) {
    ConvertOptions o = c.options;
    o.dir = c.dir;
    const ConvertReport r = convert_tables(c.variant, o, [](const ConvertedFile& f) {
        if (f.converted)
            fmt::print("converted  {}: format {} to {}, {} bytes to {}\n", f.path.string(), f.version_before,
                       f.version_after, f.bytes_before, f.bytes_after);
        else
            fmt::print("current    {}: already of format {}\n", f.path.string(), f.version_before);
    });
    fmt::print("converted {} files ({} bytes to {}), {} already current\n", r.converted, r.bytes_before, r.bytes_after,
               r.current);
}

}  // namespace dtb::cli
