// The explorer page's files (explorer/page/), built into the binary by
// explorer/page/embed.cmake: `dtb serve` serves them at / and by name.
#pragma once

#include <string_view>
#include <vector>

namespace dtb::explorer {

struct PageFile {
    std::string_view path;          // "/index.html", "/explorer.js", ...
    std::string_view content_type;
    std::string_view content;
};

const std::vector<PageFile>& page_files();

}  // namespace dtb::explorer
