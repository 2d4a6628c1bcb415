// The zstd level that pays for a kind of table file (issue 51): reads the
// files of one kind in DIR/VARIANT, decompresses every STRIDE-th block and
// codes it again at each level given, and prints, per level, the bytes of
// those blocks, positions a byte, and the processor seconds compressing and
// decompressing them took.
//
//     level_study VARIANT DIR KIND [STRIDE [LEVEL...]]
//
// KIND: wld, dtw or rul. STRIDE defaults to 8, the levels to 1 3 6 9 12 15
// 19. The blocks keep the files' layout (one side stored or both, fillers
// as written). Not a test: it measures.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <zstd.h>

#include "probe/material.hpp"
#include "probe/table_file.hpp"
#include "probe/zstd_frame.hpp"

using namespace dtb;

namespace {

struct Figures {
    double bytes = 0, compress_s = 0, decompress_s = 0;
};

double seconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: level_study VARIANT DIR KIND [STRIDE [LEVEL...]]\n");
        return 2;
    }
    const std::string variant = argv[1], kind_name = argv[3];
    const TableKind kind = kind_name == "wld" ? TableKind::wld : kind_name == "dtw" ? TableKind::dtw : TableKind::rul;
    const std::uint64_t stride = argc > 4 ? std::stoull(argv[4]) : 8;
    std::vector<int> levels;
    for (int i = 5; i < argc; ++i) levels.push_back(std::atoi(argv[i]));
    if (levels.empty()) levels = {1, 3, 6, 9, 12, 15, 19};
    std::map<int, Figures> at;
    double positions = 0, raw_bytes = 0;
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(argv[2]) / variant)) {
        if (e.path().extension() != "." + kind_name) continue;
        const Material m = Material::parse(e.path().stem().string());
        const TableFile f = TableFile::open(e.path(), {variant, m, kind});
        const TableHeader& h = f.header();
        for (std::uint64_t b = 0; b < h.block_count(); b += stride) {
            std::vector<std::byte> raw(h.block_bytes(b));
            f.read_block(b, raw);
            positions += static_cast<double>(h.block_values(b));
            raw_bytes += static_cast<double>(raw.size());
            for (const int level : levels) {
                Figures& fig = at[level];
                auto start = std::chrono::steady_clock::now();
                const std::vector<std::byte> packed = zstd_compress(raw, level);
                fig.compress_s += seconds(start);
                fig.bytes += static_cast<double>(packed.size());
                std::vector<std::byte> back(raw.size());
                start = std::chrono::steady_clock::now();
                ZSTD_decompress(back.data(), back.size(), packed.data(), packed.size());
                fig.decompress_s += seconds(start);
            }
        }
    }
    std::printf("%s %s: %.0f positions stored in the blocks read, %.0f bytes raw\n", variant.c_str(), kind_name.c_str(),
                positions, raw_bytes);
    std::printf("level  bytes         stored positions a byte  compress s  MB/s    decompress s\n");
    for (const auto& [level, f] : at)
        std::printf("%5d  %12.0f  %8.2f                %9.2f  %6.1f  %9.3f\n", level, f.bytes, positions / f.bytes,
                    f.compress_s, raw_bytes / f.compress_s / 1e6, f.decompress_s);
}
