// The table file format, versions 1 to 4 (docs/format.md): the header's fields, how
// they are written and read, and the typed errors a reader reports. The writer
// (builder/) and the reader (table_file.hpp) share this one definition.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "probe/errors.hpp"
#include "probe/material.hpp"

namespace dtb {

// .wld and .dtw: the plain values; .rul: values under the move-count draw
// rules (docs/rules.md).
enum class TableKind : std::uint8_t { wld, dtw, rul };

// "wld", "dtw" or "rul": the file extension without the dot.
std::string_view extension(TableKind kind) noexcept;

// The file name of a material's table: KKKvK.wld.
std::string table_file_name(const Material& m, TableKind kind);

// The newest version this reader reads (docs/format.md, "Versions"): 2,
// a .dtw or .rul of one side to move with draws left to the .wld; 3, a
// .wld with a placement's two sides to move side by side; 4, a compact
// .wld, version 3 with the positions a one-ply search answers left out. A
// reader reads every version of each kind (1, 3 and 4 of a .wld, 1 and 2
// of the others).
inline constexpr std::uint32_t format_version = 4;
inline constexpr std::uint32_t index_scheme = 1;
inline constexpr std::size_t fixed_header_bytes = 68;  // up to and with provenance_size
inline constexpr std::size_t rule_record_bytes = 24;   // a .rul file's rules, before its provenance
inline constexpr std::size_t profile_field = 16;
inline constexpr std::size_t max_header_bytes = 1 << 20;
inline constexpr int min_block_shift = 10;
inline constexpr int max_block_shift = 24;

// What a .rul file holds (docs/format.md, "Rule tables"): the draw rules it
// was built under and the count that governs its material.
struct RuleRecord {
    std::string profile;  // draw_rules::profile: fmjd, cbd, fmjd64, acf
    int count_kind = 0;   // CountKind: 0 kings only, 1 a lone-king ending
    int limit = 0;        // plies, 1 to 126
    int road_limit = 0;   // plies after the main road, 0 if none
    int literal_road = 0; // 1: the main road read literally
    // Value arrays: 1, or 2 with a main road (before it, then after it).
    int arrays() const noexcept { return road_limit > 0 ? 2 : 1; }
    friend bool operator==(const RuleRecord&, const RuleRecord&) = default;
};

// Which positions of a table a file stores values for (docs/format.md,
// "Positions"): every one, or one side to move only, the positions of the
// first half (the canonical material with White to move) or of the second.
enum class StoredHalf : std::uint8_t { both = 0, first = 1, second = 2 };

struct TableHeader {
    TableKind kind = TableKind::wld;
    // 2: `stored` may be one half, and draws are fillers (.dtw, .rul); 3: a
    // .wld in placement order (paired()); 4: a compact .wld (compact()).
    std::uint32_t version = 1;
    std::string variant;
    int board_size = 0;
    Material material;
    int sides = 2;
    int value_bits = 2;
    StoredHalf stored = StoredHalf::both;
    int block_shift = 16;  // block_positions = 2^block_shift
    std::uint64_t positions_per_side = 0;
    std::string provenance;  // UTF-8 JSON
    RuleRecord rules;        // .rul only
    std::uint32_t header_size = 0;  // filled in by encode_header and decode_header

    std::uint64_t block_positions() const noexcept { return std::uint64_t{1} << block_shift; }
    // The table's positions: every position of each value array, both
    // sides to move, whether the file stores them all or not.
    std::uint64_t positions() const noexcept {
        return static_cast<std::uint64_t>(kind == TableKind::rul ? rules.arrays() : 1) *
               static_cast<std::uint64_t>(sides) * positions_per_side;
    }
    // The positions g the file stores, [stored_begin(), stored_end()): all,
    // or one half (a file of one value array).
    std::uint64_t stored_begin() const noexcept { return stored == StoredHalf::second ? positions_per_side : 0; }
    std::uint64_t stored_end() const noexcept {
        return stored == StoredHalf::first ? positions_per_side : stored == StoredHalf::second ? 2 * positions_per_side : positions();
    }
    bool stores(std::uint64_t g) const noexcept { return g >= stored_begin() && g < stored_end(); }
    // Whether a draw (by the .wld) has a filler here: version 2 of a .dtw or .rul.
    bool draws_left_out() const noexcept { return version >= 2 && kind != TableKind::wld; }
    // Whether the file's positions are a placement's two sides to move side
    // by side (docs/format.md, "Positions"): position 2i + s of a .wld of
    // version 3 and two sides is placement i of the material, White to move
    // (s = 0) or Black (s = 1); otherwise file position and table position
    // g are the same.
    bool paired() const noexcept { return version >= 3 && kind == TableKind::wld && sides == 2; }
    // Whether a .wld leaves out the positions a one-ply search answers
    // (left_out(), probe/left_out.hpp): version 4, laid out as version 3.
    bool compact() const noexcept { return version >= 4 && kind == TableKind::wld; }
    // Where the provenance starts: after the fixed header, and a .rul's rules.
    std::size_t provenance_offset() const noexcept {
        return fixed_header_bytes + (kind == TableKind::rul ? rule_record_bytes : 0);
    }
    // The blocks are those of the whole table, cut at the multiples of
    // block_positions() of g, that hold stored positions, each cut to the
    // stored ones: with the second half stored, the first block may be
    // short. So a table's .dtw blocks are its .wld blocks clipped.
    std::uint64_t block_count() const noexcept {
        return ((stored_end() + block_positions() - 1) >> block_shift) - (stored_begin() >> block_shift);
    }
    // The blocks of the table's positions, whether stored or not: the
    // .wld's, which a reader of a range of the table counts in.
    std::uint64_t table_blocks() const noexcept { return (positions() + block_positions() - 1) >> block_shift; }
    // Where block `block` starts (a position g), the block of stored
    // position g and g's place in it.
    std::uint64_t block_first(std::uint64_t block) const noexcept {
        return std::max(stored_begin(), ((stored_begin() >> block_shift) + block) << block_shift);
    }
    struct Place {
        std::uint64_t block, k;
    };
    Place place_of(std::uint64_t g) const noexcept {
        const std::uint64_t block = (g >> block_shift) - (stored_begin() >> block_shift);
        return {block, g - block_first(block)};
    }
    // Values in block `block`, and their bytes before compression.
    std::uint64_t block_values(std::uint64_t block) const noexcept;
    std::size_t block_bytes(std::uint64_t block) const noexcept;
    // Where the blocks start: after the header, the offsets, the checksums and the table checksum.
    std::uint64_t blocks_start() const noexcept { return header_size + 8 * (2 * block_count() + 2); }
};

// The sides a table of `m` holds: 1 if m equals its mirror, else 2.
int sides_of(const Material& m) noexcept;

// The header's bytes, zero-padded to a multiple of 8; sets header.header_size.
std::vector<std::byte> encode_header(TableHeader& header);

// Reads and checks a file's header, offsets and table checksum (everything
// but the blocks). `file_name` is only for the messages. Throws TableError.
struct DecodedTable {
    TableHeader header;
    std::span<const std::byte> offsets;    // (block_count + 1) little-endian u64
    std::span<const std::byte> checksums;  // block_count little-endian u64
};
DecodedTable decode_table(std::span<const std::byte> file, const std::filesystem::path& file_name);

// Value k of a decompressed block of `value_bits`-bit values (2, 8 or 16),
// as docs/format.md ("Values") lays them out.
inline std::uint32_t value_at(std::span<const std::byte> block, int value_bits, std::uint64_t k) noexcept {
    if (value_bits == 2) return (std::to_integer<std::uint32_t>(block[k / 4]) >> (2 * (k % 4))) & 3;
    if (value_bits == 8) return std::to_integer<std::uint32_t>(block[k]);
    return std::to_integer<std::uint32_t>(block[2 * k]) | std::to_integer<std::uint32_t>(block[2 * k + 1]) << 8;
}

// XXH3-64, seed 0, as the format uses it.
std::uint64_t checksum(std::span<const std::byte> bytes) noexcept;

// Little-endian integers, as the format stores them.
std::uint32_t load_u32(const std::byte* p) noexcept;
void store_u32(std::byte* p, std::uint32_t v) noexcept;
std::uint64_t load_u64(const std::byte* p) noexcept;
void store_u64(std::byte* p, std::uint64_t v) noexcept;

}  // namespace dtb
