// One zstd frame in, one out, with a compression or decompression context
// per thread made on first use (the table writer, the table reader and the
// build's packed tables share them).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace dtb {

// `raw` as one zstd frame at `level`. Throws std::runtime_error if zstd fails.
std::vector<std::byte> zstd_compress(std::span<const std::byte> raw, int level);

// Frame `frame` into exactly `out`: an empty string, or what is wrong with
// the frame (not one frame, of another size, or not decompressible).
std::string zstd_decompress(std::span<const std::byte> frame, std::span<std::byte> out);

}  // namespace dtb
