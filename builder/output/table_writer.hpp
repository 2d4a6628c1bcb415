// Writes the .wld and .dtw tables of one material (docs/format.md) from the
// DTW codes of its positions. Blocks are encoded and compressed in parallel
// (TBB) and written in order; each file is written under a temporary name,
// flushed to disk and renamed into place, so a killed build never leaves a
// half-written table under a table's name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "builder/team/team.hpp"
#include "builder/values/rule_values.hpp"
#include "probe/material.hpp"
#include "probe/table_format.hpp"

namespace dtb {

// The code of a position whose side to move has a capture: its value is not
// stored, and the writer picks the filler that compresses best.
inline constexpr std::uint32_t dont_care = ~std::uint32_t{0};

struct TableSpec {
    std::string variant;
    int board_size = 0;
    Material material;  // canonical
    std::uint64_t positions_per_side = 0;
    int block_shift = 16;
    // zstd levels. The .dtw blocks are 4 to 8 times the .wld's before
    // compression and dominate the time: level 9 takes 10% off level 3's
    // bytes of a one-sided .dtw for 3.4 times its compression time, where
    // 12 takes 11% for 9.5 times (docs/results.md, "Table size").
    int wld_compression_level = 12;
    int dtw_compression_level = 9;
    // JSON with tool, date and options (docs/format.md); empty: dtb's version,
    // the time now and no options.
    std::string provenance;
    // The largest DTW code the source will give, if the caller knows it (the
    // solver does): it picks the .dtw width without a first pass over the
    // values. A larger code met while writing is an error.
    std::optional<std::uint32_t> max_code;
    // zstd level of a .rul (write_rule_table()).
    int rul_compression_level = 9;
    // The .dtw's format version (docs/format.md): 2, one side to move and
    // draws left to the .wld; 1, every value (tests of the format with
    // values that are not a game's, and tables for older readers).
    std::uint32_t dtw_version = 2;
    // The .rul's: 2, one side to move (where the table has one value array)
    // and the .wld's draws left to it, which must be written first; 1, every
    // value (a .rul alone, tests of the format with values not a game's).
    std::uint32_t rul_version = 2;
    // The .wld's: 3, a placement's two sides to move side by side
    // (TableHeader::paired(); the same as 1 for a material equal to its
    // mirror); 4, the same compact, the positions a one-ply search answers
    // left out (TableHeader::compact(), dtb convert --compact-wld); 1, the
    // table's order (tables for older readers).
    std::uint32_t wld_version = 3;
};

// The spec that writes the table of `h` again: its variant, material,
// positions, blocks and provenance (dtb convert, tests); the levels, the
// versions and the largest code those of a new spec.
TableSpec table_spec_of(const TableHeader& h);

// Fills out[i] with the DTW code (value.hpp: 0 draw, plies + 1) of position
// first + i of the table (docs/format.md, "Positions"), or dont_care. It is
// called from several threads at once, for different ranges.
using ValueSource = std::function<void(std::uint64_t first, std::span<std::uint32_t> out)>;

// Blocks the writer asks for at once (in parallel, then written in order):
// enough for every thread, little memory.
inline constexpr std::uint64_t write_batch_blocks = 64;

struct WrittenTables {
    std::filesystem::path wld;
    std::filesystem::path dtw;
    std::uint64_t wld_bytes = 0;
    std::uint64_t dtw_bytes = 0;
    std::uint64_t wld_checksum = 0;  // the table checksums (docs/format.md)
    std::uint64_t dtw_checksum = 0;
    int dtw_bits = 8;
    std::uint32_t max_code = 0;  // the largest DTW code: announced by the spec, or found
};

// Writes DIRECTORY/MATERIAL.wld and .dtw. Throws std::runtime_error if a code
// is larger than 65,535 or a file cannot be written.
WrittenTables write_tables(const std::filesystem::path& directory, const TableSpec& spec, const ValueSource& values);

// The same, from a team (team.hpp) whose member j holds `values` for
// positions [first, first + count) of the table, first a multiple of the
// block size and the ranges in member order: each member compresses its
// blocks and writes them into the files itself, where the sizes of the
// blocks before them put them (only sizes and checksums cross between the
// members), and member 0 creates the files and writes their offsets and
// checksums (its result; the others get an empty one). The directory must
// be one every member writes (a file system they share). spec.max_code must
// be set, the same on every member.
WrittenTables write_tables(Team& team, const std::filesystem::path& directory, const TableSpec& spec,
                           std::uint64_t first, std::uint64_t count, const ValueSource& values);

// A .rul table (docs/format.md, "Rule tables"), or a .wld alone.
struct WrittenTable {
    std::filesystem::path path;
    std::uint64_t bytes = 0;
    std::uint64_t checksum = 0;  // the table checksum
};

// Writes DIRECTORY/MATERIAL.dtw alone, as write_tables() writes it (dtb
// convert: a .wld already in place); spec.max_code must be set.
WrittenTable write_dtw_table(const std::filesystem::path& directory, const TableSpec& spec, const ValueSource& values);

// Writes DIRECTORY/MATERIAL.wld alone, as write_tables() writes it (dtb
// convert: a .wld of another version rewritten).
WrittenTable write_wld_table(const std::filesystem::path& directory, const TableSpec& spec, const ValueSource& values);

// Writes DIRECTORY/MATERIAL.rul: `values` gives the rule codes (rule_count.hpp,
// at most 255) or dont_care of the file's positions, each value array in
// turn (rules.arrays() of them, both sides to move each).
WrittenTable write_rule_table(const std::filesystem::path& directory, const TableSpec& spec, const RuleRecord& rules,
                              const ValueSource& values);

// The values of `values`' .rul file (write_rule_table()): each value array
// in turn, both sides to move, capture positions dont_care.
inline ValueSource rule_file_source(const RuleValues& values) {
    return [&values](std::uint64_t first, std::span<std::uint32_t> out) {
        const std::uint64_t per_array = values.codes.size();
        for (std::size_t i = 0; i < out.size(); ++i) {
            const std::uint64_t g = first + i, at = g % per_array;
            out[i] = values.has_capture(at) ? dont_care : (g < per_array ? values.codes : values.after_road)[at];
        }
    };
}


// The provenance JSON for `options` (the command line), with dtb's version and
// the time now, or the time SOURCE_DATE_EPOCH gives if it is set.
std::string make_provenance(const std::string& options);

}  // namespace dtb
