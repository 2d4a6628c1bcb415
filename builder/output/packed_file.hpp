// Values a build needs again written beside the tables as a scratch file, so
// that any process or rank of the build reads them back whole without
// solving anything again (docs/design.md, "Values under the draw rules"):
// byte arrays as zstd frames of 2^20 bytes (level 1, compressed and
// decompressed with every thread), after a header that names what the file
// holds and gives each array's length and each frame's size and checksum
// (XXH3-64). Written under a temporary name and renamed (replaced_file.hpp),
// so a reader finds the file whole or not at all.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace dtb {

// Writes `arrays` into `file` under `label`. Throws std::runtime_error
// naming the file and the reason if it cannot be written.
void write_packed_file(const std::filesystem::path& file, const std::string& label,
                       const std::vector<std::span<const std::uint8_t>>& arrays);

// The arrays of `file`, each as long as it was written. Throws
// std::runtime_error naming the file and what is wrong if it cannot be read,
// is not such a file, holds another label, is cut short or a frame fails its
// checksum or does not unpack.
std::vector<std::vector<std::uint8_t>> read_packed_file(const std::filesystem::path& file, const std::string& label);

}  // namespace dtb
