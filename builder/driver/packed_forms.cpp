#include "builder/driver/packed_forms.hpp"

#include <cstdlib>
#include <system_error>
#include <vector>

#include <fmt/core.h>

#include "builder/output/packed_file.hpp"
#include "builder/values/packed_codes.hpp"

namespace dtb {

namespace {

// Test hook: DTB_TEST_PACKED_FAILS set makes every packed form fail to be
// written, as on a full disk.
void maybe_fail(const std::filesystem::path& file) {
    if (std::getenv("DTB_TEST_PACKED_FAILS"))
        throw std::runtime_error(file.string() + ": not written (DTB_TEST_PACKED_FAILS is set)");
}

}  // namespace

std::filesystem::path packed_directory(const std::filesystem::path& variant_dir) { return variant_dir / ".packed"; }

std::filesystem::path packed_file(const std::filesystem::path& variant_dir, const Material& m, TableKind kind) {
    return packed_directory(variant_dir) / (m.name() + (kind == TableKind::rul ? ".rul.zst" : ".dtw.zst"));
}

std::string packed_label(const Material& m, TableKind kind, std::uint64_t checksum) {
    return fmt::format("{}.{} of table {:016x}", m.name(), kind == TableKind::rul ? "rul" : "dtw", checksum);
}

void write_packed_table(const std::filesystem::path& variant_dir, const SolvedValues& values, std::uint64_t checksum) {
    const std::filesystem::path file = packed_file(variant_dir, values.material, TableKind::dtw);
    maybe_fail(file);
    if (!values.whole()) throw std::logic_error("only whole tables are written packed");
    write_frames_file(file, packed_label(values.material, TableKind::dtw, checksum),
                      {values.positions_per_side, values.codes.size(), values.max_code},
                      pack_range(values, 0, values.codes.size()));
}

void write_packed_rules(const std::filesystem::path& variant_dir, const RuleValues& values, std::uint64_t checksum) {
    const std::filesystem::path file = packed_file(variant_dir, values.material, TableKind::rul);
    maybe_fail(file);
    write_packed_file(file, packed_label(values.material, TableKind::rul, checksum), {values.codes, values.after_road});
}

SolvedValues read_packed_table(const std::filesystem::path& variant_dir, const Material& m, std::uint64_t per_side,
                               std::uint64_t checksum) {
    const std::filesystem::path file = packed_file(variant_dir, m, TableKind::dtw);
    const FramesFile read = read_frames_file(file, packed_label(m, TableKind::dtw, checksum));
    SolvedValues values(m, per_side);
    if (read.words.size() != 3 || read.words[0] != per_side || read.words[1] != values.codes.size() ||
        read.words[2] > 0xffff)
        throw std::runtime_error(file.string() + ": not the values of " + m.name() + " (a packed file of the build's)");
    unpack_range(read.frames.bytes, read.frames.frame_bytes, values, 0, values.codes.size(), file.string());
    values.max_code = static_cast<std::uint32_t>(read.words[2]);
    return values;
}

void remove_packed(const std::filesystem::path& variant_dir, const Material& m, TableKind kind) {
    std::error_code ignored;
    std::filesystem::remove(packed_file(variant_dir, m, kind), ignored);
}

void keep_packed(const std::filesystem::path& variant_dir, const std::set<std::pair<Material, TableKind>>& needed) {
    const std::filesystem::path dir = packed_directory(variant_dir);
    std::error_code error;
    if (!std::filesystem::is_directory(dir, error)) return;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, error)) files.push_back(entry.path());
    for (const std::filesystem::path& f : files) {
        bool keep = false;
        for (const auto& [m, kind] : needed) keep |= f == packed_file(variant_dir, m, kind);
        std::error_code ignored;
        if (!keep) std::filesystem::remove(f, ignored);
    }
    std::error_code ignored;
    std::filesystem::remove(dir, ignored);  // only if empty
}

}  // namespace dtb
