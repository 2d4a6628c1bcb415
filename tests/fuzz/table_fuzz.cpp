// libFuzzer target for the table reader: header, offsets and blocks
// (docs/format.md). Any input must give a TableError or values, never a crash,
// a leak or undefined behaviour. Run by scripts/fuzz.sh.
//
// Random bytes rarely get past the checksums, so when the first input byte is
// odd the checksums are recomputed over the mutated file first: the structural
// checks behind them get fuzzed too.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "probe/table_file.hpp"
#include "probe/table_format.hpp"

namespace {

using dtb::load_u64;

// Rewrites the block checksums and the table checksum where the header says they are.
void fix_checksums(std::vector<std::byte>& file) {
    if (file.size() < dtb::fixed_header_bytes) return;
    const std::uint64_t header_size = dtb::load_u32(&file[12]);
    const std::uint64_t blocks = load_u64(&file[56]);
    if (header_size > file.size() || blocks >= (file.size() - header_size) / 16) return;
    const std::size_t offsets = header_size, checksums = header_size + 8 * (blocks + 1);
    const std::size_t table_checksum = checksums + 8 * blocks;
    for (std::uint64_t b = 0; b < blocks; ++b) {
        const std::uint64_t begin = load_u64(&file[offsets + 8 * b]), end = load_u64(&file[offsets + 8 * b + 8]);
        if (begin <= end && end <= file.size())
            dtb::store_u64(&file[checksums + 8 * b],
                           dtb::checksum(std::span<const std::byte>(file).subspan(begin, end - begin)));
    }
    dtb::store_u64(&file[table_checksum], dtb::checksum(std::span<const std::byte>(file).first(table_checksum)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const bool fix = data[0] & 1;
    std::vector<std::byte> file(reinterpret_cast<const std::byte*>(data + 1),
                                reinterpret_cast<const std::byte*>(data + size));
    if (fix) fix_checksums(file);
    try {
        const dtb::TableFile table = dtb::TableFile::from_bytes(std::move(file), "fuzz input");
        const dtb::TableHeader& h = table.header();
        std::vector<std::byte> block;
        for (std::uint64_t b = 0; b < h.block_count() && b < 64; ++b) {
            block.resize(h.block_bytes(b));
            table.read_block(b, block);
        }
        table.verify();
    } catch (const dtb::TableError&) {
    }
    return 0;
}
