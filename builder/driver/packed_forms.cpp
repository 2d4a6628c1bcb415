#include "builder/driver/packed_forms.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <span>
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

// What the packed form `file` is of: its material's name and kind ("dtw",
// "rul"), from its name (M.dtw.zst, M.dtw.partJofK.zst, M.rul.zst).
std::pair<std::string, std::string> packed_of(const std::filesystem::path& file) {
    const std::string name = file.filename().string();
    const std::size_t dot = name.find('.');
    if (dot == std::string::npos || !name.ends_with(".zst")) return {};  // not a temporary file
    return {name.substr(0, dot), name.substr(dot + 1, 3)};
}

// m's packed parts of a plain table, by member: the files, and how many
// members each says the team had.
std::map<int, std::pair<std::filesystem::path, int>> packed_parts(const std::filesystem::path& variant_dir,
                                                                  const Material& m) {
    std::map<int, std::pair<std::filesystem::path, int>> parts;
    std::error_code error;
    const std::string prefix = m.name() + ".dtw.part";
    for (const auto& entry : std::filesystem::directory_iterator(packed_directory(variant_dir), error)) {
        const std::string name = entry.path().filename().string();
        int member = 0, members = 0;
        if (name.rfind(prefix, 0) != 0 ||
            std::sscanf(name.c_str() + prefix.size(), "%dof%d.zst", &member, &members) != 2)
            continue;
        parts[member] = {entry.path(), members};
    }
    return parts;
}

std::filesystem::path part_file(const std::filesystem::path& variant_dir, const Material& m, int member, int members) {
    return packed_directory(variant_dir) / fmt::format("{}.dtw.part{}of{}.zst", m.name(), member, members);
}

}  // namespace

std::filesystem::path packed_directory(const std::filesystem::path& variant_dir) { return variant_dir / ".packed"; }

std::filesystem::path levels_directory(const std::filesystem::path& variant_dir) { return variant_dir / ".levels"; }

std::string levels_folder_name(const Material& m, TableKind kind) {
    return kind == TableKind::rul ? m.name() + ".rul" : m.name();
}

std::filesystem::path levels_folder(const std::filesystem::path& variant_dir, const Material& m, TableKind kind) {
    return levels_directory(variant_dir) / levels_folder_name(m, kind);
}

void remove_levels(const std::filesystem::path& variant_dir, const Material& m, TableKind kind) {
    std::error_code ignored;
    std::filesystem::remove_all(levels_folder(variant_dir, m, kind), ignored);
}

void remove_empty_levels_directory(const std::filesystem::path& variant_dir) {
    std::error_code ignored;
    std::filesystem::remove(levels_directory(variant_dir), ignored);  // only if empty
}

std::filesystem::path packed_file(const std::filesystem::path& variant_dir, const Material& m, TableKind kind) {
    return packed_directory(variant_dir) / (m.name() + (kind == TableKind::rul ? ".rul.zst" : ".dtw.zst"));
}

std::string packed_label(const Material& m, TableKind kind, std::uint64_t checksum) {
    return fmt::format("{}.{} of table {:016x}", m.name(), kind == TableKind::rul ? "rul" : "dtw", checksum);
}

void write_packed_table(const std::filesystem::path& variant_dir, const PackedTable& table, std::uint64_t checksum) {
    const std::filesystem::path file = packed_file(variant_dir, table.material, TableKind::dtw);
    maybe_fail(file);
    const SpilledFrames& frames = *table.frames;
    write_frames_file(file, packed_label(table.material, TableKind::dtw, checksum),
                      {table.positions_per_side, table.positions, table.max_code}, frames.frame_bytes(),
                      frames.checksums(), [&](const FrameWriter& write) {
                          in_batches(frames.frames(), [&](std::size_t first, std::size_t count) {
                              write(frames.read(first, count).bytes);
                          });
                      });
}

namespace {

// Frames [first, first + count) of the packed form of `values` (all it holds).
FramePacker frame_packer(const SolvedValues& values) {
    return [&values](std::size_t first, std::size_t count) {
        constexpr int shift = PackedRange::frame_shift;
        const std::uint64_t from = std::uint64_t{first} << shift, n = values.codes.size();
        return pack_frames(values, values.first + from, std::min(std::uint64_t{count} << shift, n - from));
    };
}

}  // namespace

void write_packed_table(const std::filesystem::path& variant_dir, const SolvedValues& values, std::uint64_t checksum) {
    const std::filesystem::path file = packed_file(variant_dir, values.material, TableKind::dtw);
    maybe_fail(file);
    if (!values.whole()) throw std::logic_error("only whole tables are written packed");
    write_frames_file(file, packed_label(values.material, TableKind::dtw, checksum),
                      {values.positions_per_side, values.codes.size(), values.max_code},
                      packed_frames(values.codes.size()), frame_packer(values));
}

void write_packed_part(const std::filesystem::path& variant_dir, const SolvedValues& values, std::uint64_t checksum,
                       int member, int members) {
    const std::filesystem::path file = part_file(variant_dir, values.material, member, members);
    maybe_fail(file);
    write_frames_file(file, packed_label(values.material, TableKind::dtw, checksum),
                      {values.positions_per_side, values.positions(), values.max_code, values.first,
                       values.codes.size()},
                      packed_frames(values.codes.size()), frame_packer(values));
}

void write_packed_rules(const std::filesystem::path& variant_dir, const RuleValues& values, std::uint64_t checksum) {
    const std::filesystem::path file = packed_file(variant_dir, values.material, TableKind::rul);
    maybe_fail(file);
    write_packed_file(file, packed_label(values.material, TableKind::rul, checksum), {values.codes, values.after_road});
}

namespace {

// Positions [a, b) of `into` from `read`, the packed form of positions
// [from, from + n) of its table: the frames that hold them read and unpacked
// into it frames_at_once at a time; a frame cut by a or b is unpacked alone
// aside, and its part copied.
void unpack_into(const FramesFileReader& read, std::uint64_t from, std::uint64_t n, SolvedValues& into,
                 std::uint64_t a, std::uint64_t b, const std::filesystem::path& file) {
    constexpr int shift = PackedRange::frame_shift;
    const std::span<const std::uint64_t> sizes = read.frame_bytes();
    if (sizes.size() != packed_frames(n)) throw std::runtime_error(file.string() + ": frames missing");
    const std::size_t f0 = (a - from) >> shift, f1 = ((b - 1 - from) >> shift) + 1;
    const auto starts = [&](std::size_t f) { return from + (std::uint64_t{f} << shift); };
    for (std::size_t g = f0, k = 0; g < f1; g += k) {
        // A frame that holds positions on either side of [a, b) is read alone (unpacked aside, then copied).
        const bool last_cut = b < std::min(starts(f1), from + n);
        k = a > starts(g) ? 1 : std::min(frames_at_once, f1 - g);
        if (last_cut && g + k == f1 && k > 1) --k;
        const std::vector<std::byte> bytes = read.read(g, k);
        const std::uint64_t first = starts(g), end = std::min(starts(g + k), from + n);
        const std::uint64_t lo = std::max(a, first), hi = std::min(b, end);
        if (lo == first && hi == end) {
            unpack_range(bytes, sizes.subspan(g, k), into, first, end - first, file.string());
            continue;
        }
        SolvedValues frames(into.material, into.positions_per_side, first, end - first);
        unpack_range(bytes, sizes.subspan(g, k), frames, first, end - first, file.string());
        std::copy(frames.codes.begin() + static_cast<std::ptrdiff_t>(lo - first),
                  frames.codes.begin() + static_cast<std::ptrdiff_t>(hi - first),
                  into.codes.begin() + static_cast<std::ptrdiff_t>(lo - into.first));
        // lo is a multiple of 64, and hi too unless it ends the table.
        std::copy_n(frames.capture.begin() + static_cast<std::ptrdiff_t>((lo - first) / 64), (hi - lo + 63) / 64,
                    into.capture.begin() + static_cast<std::ptrdiff_t>((lo - into.first) / 64));
    }
}

}  // namespace

std::optional<PackedRange> read_packed_frames(const std::filesystem::path& variant_dir, const Material& m,
                                              std::uint64_t checksum, std::uint64_t first, std::uint64_t count) {
    constexpr int shift = PackedRange::frame_shift;
    const std::filesystem::path file = packed_file(variant_dir, m, TableKind::dtw);
    std::error_code error;
    if (count == 0 || first % (std::uint64_t{1} << shift) != 0 || !std::filesystem::exists(file, error))
        return std::nullopt;
    const FramesFileReader read(file, packed_label(m, TableKind::dtw, checksum));
    const std::vector<std::uint64_t>& words = read.words();
    if (words.size() != 3 || read.frames() != packed_frames(words[1]) || first + count > words[1])
        throw std::runtime_error(file.string() + ": not the values of " + m.name() + " (a packed file of the build's)");
    if (count % (std::uint64_t{1} << shift) != 0 && first + count != words[1]) return std::nullopt;
    const std::size_t f0 = first >> shift, n = packed_frames(count);
    PackedRange frames;
    frames.bytes = read.read(f0, n);
    frames.frame_bytes.assign(read.frame_bytes().begin() + static_cast<std::ptrdiff_t>(f0),
                              read.frame_bytes().begin() + static_cast<std::ptrdiff_t>(f0 + n));
    return frames;
}

void read_packed_range(const std::filesystem::path& variant_dir, std::uint64_t checksum, SolvedValues& into) {
    const Material& m = into.material;
    const std::uint64_t positions = into.positions(), a = into.first, b = into.first + into.codes.size();
    const std::string label = packed_label(m, TableKind::dtw, checksum);
    const auto foreign = [&](const std::filesystem::path& file) {
        return std::runtime_error(file.string() + ": not the values of " + m.name() + " (a packed file of the build's)");
    };
    const auto check = [&](const FramesFileReader& read, std::size_t words, const std::filesystem::path& file) {
        const std::vector<std::uint64_t>& w = read.words();
        if (w.size() != words || w[0] != into.positions_per_side || w[1] != positions || w[2] > 0xffff)
            throw foreign(file);
        into.max_code = static_cast<std::uint32_t>(w[2]);
    };
    if (a >= b) return;
    const std::filesystem::path whole = packed_file(variant_dir, m, TableKind::dtw);
    std::error_code error;
    if (std::filesystem::exists(whole, error)) {
        const FramesFileReader read(whole, label);
        check(read, 3, whole);
        unpack_into(read, 0, positions, into, a, b, whole);
        return;
    }
    // A team's parts: every member's, their ranges one after another; those
    // that hold some of [a, b) unpacked.
    const auto parts = packed_parts(variant_dir, m);
    if (parts.empty()) throw std::runtime_error(whole.string() + ": missing (no packed form of " + m.name() + ")");
    const int members = parts.begin()->second.second;
    std::uint64_t next = 0;
    for (int j = 0; j < members && next < b; ++j) {
        const auto it = parts.find(j);
        if (it == parts.end() || it->second.second != members)
            throw std::runtime_error(fmt::format("{}: the packed form of {} lacks member {}'s part of {}",
                                                 packed_directory(variant_dir).string(), m.name(), j, members));
        const std::filesystem::path& file = it->second.first;
        const FramesFileReader read(file, label);
        check(read, 5, file);
        const std::uint64_t from = read.words()[3], n = read.words()[4];
        if (from != next || n > positions - next) throw foreign(file);
        if (from + n > a && n > 0) unpack_into(read, from, n, into, std::max(a, from), std::min(b, from + n), file);
        next += n;
    }
    if (next < b) throw foreign(parts.begin()->second.first);
}

SolvedValues read_packed_table(const std::filesystem::path& variant_dir, const Material& m, std::uint64_t per_side,
                               std::uint64_t checksum) {
    SolvedValues values(m, per_side);
    read_packed_range(variant_dir, checksum, values);
    return values;
}

bool has_packed(const std::filesystem::path& variant_dir, const Material& m, TableKind kind) {
    std::error_code error;
    return std::filesystem::exists(packed_file(variant_dir, m, kind), error) ||
           (kind == TableKind::dtw && !packed_parts(variant_dir, m).empty());
}

void remove_packed(const std::filesystem::path& variant_dir, const Material& m, TableKind kind) {
    std::error_code ignored;
    std::filesystem::remove(packed_file(variant_dir, m, kind), ignored);
    if (kind == TableKind::dtw)
        for (const auto& [member, part] : packed_parts(variant_dir, m)) std::filesystem::remove(part.first, ignored);
}

void keep_packed(const std::filesystem::path& variant_dir, const std::set<std::pair<Material, TableKind>>& needed) {
    const std::filesystem::path dir = packed_directory(variant_dir);
    std::error_code error;
    if (!std::filesystem::is_directory(dir, error)) return;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, error)) files.push_back(entry.path());
    for (const std::filesystem::path& f : files) {
        bool keep = false;
        const auto [material, kind_name] = packed_of(f);
        for (const auto& [m, kind] : needed)
            keep |= material == m.name() && kind_name == (kind == TableKind::rul ? "rul" : "dtw");
        std::error_code ignored;
        if (!keep) std::filesystem::remove(f, ignored);
    }
    std::error_code ignored;
    std::filesystem::remove(dir, ignored);  // only if empty
}

}  // namespace dtb
