// Packed forms (docs/design.md, "Packed forms"): the values of a table a
// build still needs, written beside the tables as the table is solved, so
// that a job that reads them and does not have them in memory (the one
// process after they gave up their room, a rank that did not solve them, the
// same build started again after a kill) reads them whole at the speed of
// unpacking, instead of reading the table back from its file, which solves
// every capture position again. One file a table and kind in
// DIR/VARIANT/.packed/ (packed_file.hpp): M.dtw.zst, a plain table's codes
// (capture positions' true values) and capture marks as the tables cross
// between ranks (pack_range()), or, for a table a team solved, one file a
// member, M.dtw.partJofK.zst, its range of them; M.rul.zst, a .rul's rule
// values. Its label
// holds the table file's checksum, so a packed form is read only for the
// very table it was written from. A packed form is removed once no job of
// the build reads it, and at the start of a build when none will.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "builder/output/packed_file.hpp"
#include "builder/values/rule_values.hpp"
#include "builder/values/solved_values.hpp"
#include "probe/index.hpp"
#include "probe/material.hpp"
#include "probe/rule_count.hpp"
#include "probe/table_file.hpp"
#include "probe/table_format.hpp"

namespace dtb {

std::filesystem::path packed_directory(const std::filesystem::path& variant_dir);

// Where materials solved a level at a time spill their levels and tables
// while they are solved (LevelValues), a folder each:
// DIR/VARIANT/.levels/M for a plain solve, .levels/M.rul for a rule solve
// (levels_folder(); the name is levels_folder_name()).
std::filesystem::path levels_directory(const std::filesystem::path& variant_dir);
std::string levels_folder_name(const Material& m, TableKind kind);
std::filesystem::path levels_folder(const std::filesystem::path& variant_dir, const Material& m, TableKind kind);
// Removes m's folder of `kind` there (what cannot be removed costs only disk space).
void remove_levels(const std::filesystem::path& variant_dir, const Material& m, TableKind kind);
// Removes .levels if it is empty: once no job of the build is in work, since
// a job creating its folder there would find .levels gone under it.
void remove_empty_levels_directory(const std::filesystem::path& variant_dir);
// m's packed form of `kind` (dtw: its plain values, rul: its rule values).
std::filesystem::path packed_file(const std::filesystem::path& variant_dir, const Material& m, TableKind kind);

// Writes the packed form of `values` (a whole table, capture marks kept),
// whose .dtw file has table checksum `checksum`. Throws std::runtime_error
// naming the file if it cannot be written (or DTB_TEST_PACKED_FAILS is set).
void write_packed_table(const std::filesystem::path& variant_dir, const SolvedValues& values, std::uint64_t checksum);
// The same of a table already packed (its frames are those the values give).
void write_packed_table(const std::filesystem::path& variant_dir, const PackedTable& table, std::uint64_t checksum);

// The packed form of member `member` of a team of `members`: its range
// `values` of the table (the members' ranges in order make the table).
void write_packed_part(const std::filesystem::path& variant_dir, const SolvedValues& values, std::uint64_t checksum,
                       int member, int members);

// Frames [first, first + count) of m's packed form (whole, not a team's
// parts), whose .dtw has table checksum `checksum`, as the file holds them,
// not unpacked: the frames pack_range() gives of the same positions, for a
// rank to send without packing them again. None if there is no such form,
// or the range does not begin on a frame (a multiple of 2^20 positions) and
// end on one or at the table's end. Throws as read_packed_table() does if
// the form is damaged or written from another table.
std::optional<PackedRange> read_packed_frames(const std::filesystem::path& variant_dir, const Material& m,
                                              std::uint64_t checksum, std::uint64_t first, std::uint64_t count);

// The same of rule values, whose .rul file has table checksum `checksum`.
void write_packed_rules(const std::filesystem::path& variant_dir, const RuleValues& values, std::uint64_t checksum);

// The label a packed form of m's `kind` written from a table of `checksum` holds.
std::string packed_label(const Material& m, TableKind kind, std::uint64_t checksum);

// The table checksum of m's file of `kind` (of V's variant) in
// `variant_dir`, which the label of a packed form written from it holds.
// Throws TableError if the file cannot be opened.
template <class V>
std::uint64_t table_checksum_of(const std::filesystem::path& variant_dir, const Material& m, TableKind kind) {
    return TableFile::open(variant_dir / table_file_name(m, kind), {std::string_view(V::name), m, kind})
        .table_checksum();
}

// m's plain values (capture marks included) from its packed form, written
// from its .dtw (of V's variant) in `variant_dir` as it is now, whole or as
// the parts of a team's members (all of them). Throws
// std::runtime_error naming the file if it is missing, damaged or written
// from another table, and TableError if the .dtw cannot be opened.
template <class V>
SolvedValues read_packed_table(const std::filesystem::path& variant_dir, const Material& m) {
    return read_packed_table(variant_dir, m, Index<V::board_size>(m).size(),
                             table_checksum_of<V>(variant_dir, m, TableKind::dtw));
}
SolvedValues read_packed_table(const std::filesystem::path& variant_dir, const Material& m, std::uint64_t per_side,
                               std::uint64_t checksum);
// The range `into` holds of its table, whose .dtw has table checksum
// `checksum`, from its packed form (only the frames that hold it unpacked;
// of a team's parts, only those). Throws as read_packed_table() does.
void read_packed_range(const std::filesystem::path& variant_dir, std::uint64_t checksum, SolvedValues& into);
template <class V>
void read_packed_range(const std::filesystem::path& variant_dir, SolvedValues& into) {
    read_packed_range(variant_dir, table_checksum_of<V>(variant_dir, into.material, TableKind::dtw), into);
}

// m's rule values (without capture marks: lookups read the codes) from its
// packed form, written from its .rul (of V's variant) in `variant_dir` as it
// is now. Throws as read_packed_table() does, and TableError if the .rul
// cannot be opened.
template <class V>
std::shared_ptr<const RuleValues> read_packed_rules(const std::filesystem::path& variant_dir, const Material& m) {
    const std::filesystem::path file = packed_file(variant_dir, m, TableKind::rul);
    const std::uint64_t checksum = table_checksum_of<V>(variant_dir, m, TableKind::rul);
    auto values = std::make_shared<RuleValues>();
    values->material = m;
    values->count = governing_count<typename V::draw_rules>(m);
    values->positions_per_side = Index<V::board_size>(m).size();
    const std::uint64_t positions = static_cast<std::uint64_t>(sides_of(m)) * values->positions_per_side;
    std::vector<std::vector<std::uint8_t>> arrays =
        read_packed_file(file, packed_label(m, TableKind::rul, checksum));
    if (arrays.size() != 2 || arrays[0].size() != positions ||
        arrays[1].size() != (values->count.has_road() ? positions : 0))
        throw std::runtime_error(file.string() + ": not the rule values of " + m.name() + " (a packed file of the build's)");
    values->codes = std::move(arrays[0]);
    values->after_road = std::move(arrays[1]);
    return values;
}

// Whether m has a packed form of `kind` (a plain table's: whole, or a part).
bool has_packed(const std::filesystem::path& variant_dir, const Material& m, TableKind kind);

// m's values of `kind` from its packed form (`read` reads it), or none if
// it has none (not written, or no longer there) or it fails: `failed` is
// told why, and the caller reads the values the slow way, which answers the
// same (a table read back from its file, rule values through their .rul).
template <class Read, class Failed>
auto read_packed_or_none(const std::filesystem::path& variant_dir, const Material& m, TableKind kind, Read&& read,
                         Failed&& failed) -> std::optional<decltype(read())> {
    if (!has_packed(variant_dir, m, kind)) return std::nullopt;
    try {
        return read();
    } catch (const std::exception& e) {
        failed(e);
        return std::nullopt;
    }
}

// Removes m's packed form of `kind` (a plain table's parts too), if there is
// one (a file that cannot be removed costs only disk space).
void remove_packed(const std::filesystem::path& variant_dir, const Material& m, TableKind kind);

// Removes every packed form in `variant_dir` but those `needed` (the
// material and kind of each), and the folder if it is left empty.
void keep_packed(const std::filesystem::path& variant_dir, const std::set<std::pair<Material, TableKind>>& needed);

}  // namespace dtb
