#include "probe/table_format.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include <xxhash.h>

#include "draughts/variant.hpp"

namespace dtb {

namespace {

constexpr std::size_t variant_field = 16;
constexpr char wld_magic[8] = {'D', 'T', 'B', '.', 'W', 'L', 'D', '\0'};
constexpr char dtw_magic[8] = {'D', 'T', 'B', '.', 'D', 'T', 'W', '\0'};
constexpr char rul_magic[8] = {'D', 'T', 'B', '.', 'R', 'U', 'L', '\0'};

const char* magic_of(TableKind kind) noexcept {
    return kind == TableKind::wld ? wld_magic : kind == TableKind::dtw ? dtw_magic : rul_magic;
}

int board_of_variant(std::string_view name) {
    try {
        return draughts::with_variant_or_test_board(name, []<class V>() { return V::board_size; });
    } catch (const draughts::UnknownVariant&) {
        return 0;
    }
}

}  // namespace

std::string_view extension(TableKind kind) noexcept {
    return kind == TableKind::wld ? "wld" : kind == TableKind::dtw ? "dtw" : "rul";
}

std::string table_file_name(const Material& m, TableKind kind) {
    return m.name() + "." + std::string(extension(kind));
}

std::string_view to_string(TableErrorKind kind) noexcept {
    switch (kind) {
        case TableErrorKind::missing: return "missing table";
        case TableErrorKind::foreign: return "wrong table";
        case TableErrorKind::unsupported: return "unsupported table";
        case TableErrorKind::truncated: return "truncated table";
        case TableErrorKind::corrupted: return "corrupted table";
        case TableErrorKind::io: return "unreadable table";
    }
    return "table error";
}

TableError::TableError(TableErrorKind kind, const std::filesystem::path& file, const std::string& reason)
    : std::runtime_error(std::string(to_string(kind)) + " " + file.string() + ": " + reason), kind_(kind), file_(file) {}

std::uint64_t TableHeader::block_values(std::uint64_t block) const noexcept {
    const std::uint64_t first = block_first(block);
    return std::min(((first >> block_shift) + 1) << block_shift, stored_end()) - first;
}

std::size_t TableHeader::block_bytes(std::uint64_t block) const noexcept {
    return static_cast<std::size_t>((block_values(block) * static_cast<std::uint64_t>(value_bits) + 7) / 8);
}

int sides_of(const Material& m) noexcept { return m == m.mirrored() ? 1 : 2; }

std::uint32_t load_u32(const std::byte* p) noexcept {
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | std::to_integer<std::uint32_t>(p[i]);
    return v;
}

void store_u32(std::byte* p, std::uint32_t v) noexcept {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}

std::uint64_t load_u64(const std::byte* p) noexcept {
    return load_u32(p) | static_cast<std::uint64_t>(load_u32(p + 4)) << 32;
}

void store_u64(std::byte* p, std::uint64_t v) noexcept {
    store_u32(p, static_cast<std::uint32_t>(v));
    store_u32(p + 4, static_cast<std::uint32_t>(v >> 32));
}

std::uint64_t checksum(std::span<const std::byte> bytes) noexcept { return XXH3_64bits(bytes.data(), bytes.size()); }

std::vector<std::byte> encode_header(TableHeader& h) {
    const std::size_t size = (h.provenance_offset() + h.provenance.size() + 7) / 8 * 8;
    std::vector<std::byte> out(size);
    std::memcpy(out.data(), magic_of(h.kind), 8);
    h.header_size = static_cast<std::uint32_t>(size);
    store_u32(&out[8], h.version);
    store_u32(&out[12], h.header_size);
    std::memcpy(&out[16], h.variant.data(), std::min(h.variant.size(), variant_field));
    out[32] = static_cast<std::byte>(h.board_size);
    const Material& m = h.material;
    out[33] = static_cast<std::byte>(m.white_men);
    out[34] = static_cast<std::byte>(m.white_kings);
    out[35] = static_cast<std::byte>(m.black_men);
    out[36] = static_cast<std::byte>(m.black_kings);
    out[37] = static_cast<std::byte>(h.sides);
    out[38] = static_cast<std::byte>(h.value_bits);
    out[39] = static_cast<std::byte>(h.stored);
    store_u32(&out[40], index_scheme);
    store_u32(&out[44], static_cast<std::uint32_t>(h.block_positions()));
    store_u64(&out[48], h.positions_per_side);
    store_u64(&out[56], h.block_count());
    store_u32(&out[64], static_cast<std::uint32_t>(h.provenance.size()));
    if (h.kind == TableKind::rul) {
        std::byte* r = &out[fixed_header_bytes];
        std::memcpy(r, h.rules.profile.data(), std::min(h.rules.profile.size(), profile_field));
        r[16] = static_cast<std::byte>(h.rules.count_kind);
        r[17] = static_cast<std::byte>(h.rules.limit);
        r[18] = static_cast<std::byte>(h.rules.road_limit);
        r[19] = static_cast<std::byte>(h.rules.literal_road);
    }
    std::memcpy(&out[h.provenance_offset()], h.provenance.data(), h.provenance.size());
    return out;
}

DecodedTable decode_table(std::span<const std::byte> file, const std::filesystem::path& name) {
    auto fail = [&](TableErrorKind kind, const std::string& reason) { throw TableError(kind, name, reason); };
    const std::byte* p = file.data();
    // A file shorter than the magic that starts like one was cut short.
    const std::size_t head = std::min<std::size_t>(file.size(), 8);
    const auto starts_magic = [&](const char* magic) { return head == 0 || std::memcmp(p, magic, head) == 0; };
    if (!starts_magic(wld_magic) && !starts_magic(dtw_magic) && !starts_magic(rul_magic))
        fail(TableErrorKind::foreign, "not a dtb table file (the magic bytes DTB.WLD, DTB.DTW or DTB.RUL are missing)");
    TableHeader h;
    h.kind = head < 8 || p[4] == std::byte{'W'} ? TableKind::wld : p[4] == std::byte{'D'} ? TableKind::dtw : TableKind::rul;
    if (file.size() < h.provenance_offset())
        fail(TableErrorKind::truncated, "the file ends inside its header (" + std::to_string(file.size()) + " bytes)");
    const std::uint32_t version = load_u32(p + 8);
    if (version < 1 || version > format_version)
        fail(version > format_version ? TableErrorKind::unsupported : TableErrorKind::corrupted,
             "format version " + std::to_string(version) + ", this reader reads versions 1 to " +
                 std::to_string(format_version) + (version > format_version ? ": update dtb" : ""));
    if (version >= 3 && h.kind != TableKind::wld)
        fail(TableErrorKind::corrupted, "format version " + std::to_string(version) + " is a .wld's, not a ." +
                                            std::string(extension(h.kind)) + "'s");
    h.version = version;
    h.header_size = load_u32(p + 12);
    const std::uint32_t provenance_size = load_u32(p + 64);
    if (h.header_size % 8 != 0 || h.header_size < h.provenance_offset() || h.header_size > max_header_bytes ||
        provenance_size > h.header_size - h.provenance_offset())
        fail(TableErrorKind::corrupted, "impossible header size " + std::to_string(h.header_size) +
                                            " or provenance size " + std::to_string(provenance_size));
    const std::uint64_t block_count = load_u64(p + 56);
    // Enough room for the offsets and checksums? Divide, and never add to
    // block_count: any value of it must fail here rather than wrap round.
    const std::uint64_t room = file.size() < h.header_size ? 0 : file.size() - h.header_size;
    if (block_count >= room / 16)
        fail(TableErrorKind::truncated, "the file (" + std::to_string(file.size()) +
                                            " bytes) is shorter than its header says: the file is truncated or "
                                            "its header is damaged");
    const std::size_t tables_end = h.header_size + 16 * (block_count + 1);
    const std::uint64_t stored_checksum = load_u64(p + tables_end - 8);
    if (checksum(file.first(tables_end - 8)) != stored_checksum)
        fail(TableErrorKind::corrupted, "the checksum of the header and block offsets does not match");

    // The checksum holds, so the fields are as written; check they make sense.
    const char* variant = reinterpret_cast<const char*>(p + 16);
    h.variant.assign(variant, strnlen(variant, variant_field));
    h.board_size = std::to_integer<int>(p[32]);
    h.material = {std::to_integer<int>(p[33]), std::to_integer<int>(p[34]), std::to_integer<int>(p[35]),
                  std::to_integer<int>(p[36])};
    h.sides = std::to_integer<int>(p[37]);
    h.value_bits = std::to_integer<int>(p[38]);
    const int stored = std::to_integer<int>(p[39]);
    const std::uint32_t scheme = load_u32(p + 40);
    const std::uint32_t block_positions = load_u32(p + 44);
    h.positions_per_side = load_u64(p + 48);
    h.provenance.assign(reinterpret_cast<const char*>(p + h.provenance_offset()), provenance_size);
    if (h.kind == TableKind::rul) {
        const std::byte* r = p + fixed_header_bytes;
        const char* profile = reinterpret_cast<const char*>(r);
        h.rules.profile.assign(profile, strnlen(profile, profile_field));
        h.rules.count_kind = std::to_integer<int>(r[16]);
        h.rules.limit = std::to_integer<int>(r[17]);
        h.rules.road_limit = std::to_integer<int>(r[18]);
        h.rules.literal_road = std::to_integer<int>(r[19]);
        const bool zeros = std::all_of(r + 20, r + rule_record_bytes, [](std::byte b) { return b == std::byte{0}; });
        if (h.rules.profile.empty() || h.rules.count_kind > 1 || h.rules.limit < 1 || h.rules.limit > 126 ||
            h.rules.road_limit > h.rules.limit || h.rules.literal_road > 1 || !zeros)
            fail(TableErrorKind::corrupted, "impossible rules: profile '" + h.rules.profile + "', count " +
                                                std::to_string(h.rules.count_kind) + ", limit " +
                                                std::to_string(h.rules.limit) + ", road limit " +
                                                std::to_string(h.rules.road_limit));
    }
    if (scheme != index_scheme)
        fail(scheme > index_scheme ? TableErrorKind::unsupported : TableErrorKind::corrupted,
             "index scheme " + std::to_string(scheme) + ", this reader knows scheme " + std::to_string(index_scheme));
    const int board = board_of_variant(h.variant);
    if (board == 0 || board != h.board_size)
        fail(TableErrorKind::corrupted, "unknown variant '" + h.variant + "' or board size " +
                                            std::to_string(h.board_size) + " that does not match it");
    if (h.material.white_pieces() == 0 || h.material.black_pieces() == 0 || !h.material.is_canonical())
        fail(TableErrorKind::corrupted, "material " + h.material.name() + " is not a canonical material");
    if (h.sides != sides_of(h.material))
        fail(TableErrorKind::corrupted, "sides = " + std::to_string(h.sides) + " does not fit material " +
                                            h.material.name());
    const bool bits_fit = h.kind == TableKind::wld   ? h.value_bits == 2
                          : h.kind == TableKind::rul ? h.value_bits == 8
                                                     : (h.value_bits == 8 || h.value_bits == 16);
    if (!bits_fit)
        fail(TableErrorKind::corrupted, "value_bits = " + std::to_string(h.value_bits) + " does not fit a ." +
                                            std::string(extension(h.kind)) + " file");
    // Version 1 has a zero there; one half is stored only in version 2, of a
    // .dtw or .rul of two sides and one value array.
    const bool one_half_allowed = version >= 2 && h.kind != TableKind::wld && h.sides == 2 &&
                                  (h.kind != TableKind::rul || h.rules.arrays() == 1);
    if (stored > 2 || (stored != 0 && !one_half_allowed))
        fail(TableErrorKind::corrupted, "stored half " + std::to_string(stored) + " does not fit a version " +
                                            std::to_string(version) + " ." + std::string(extension(h.kind)) +
                                            " file of " + h.material.name());
    h.stored = static_cast<StoredHalf>(stored);
    if (!std::has_single_bit(block_positions) || block_positions < (1u << min_block_shift) ||
        block_positions > (1u << max_block_shift))
        fail(TableErrorKind::corrupted, "block size " + std::to_string(block_positions) +
                                            " is not a power of two from 2^10 to 2^24");
    h.block_shift = std::countr_zero(block_positions);
    if (h.positions_per_side == 0 || h.positions_per_side > (~std::uint64_t{0} >> 2) - (std::uint64_t{1} << max_block_shift) ||
        h.block_count() != block_count)
        fail(TableErrorKind::corrupted, "block count " + std::to_string(block_count) + " does not fit " +
                                            std::to_string(h.positions_per_side) + " positions per side");

    DecodedTable t{h, file.subspan(h.header_size, 8 * (block_count + 1)),
                   file.subspan(h.header_size + 8 * (block_count + 1), 8 * block_count)};
    std::uint64_t previous = load_u64(t.offsets.data());
    if (previous != h.blocks_start())
        fail(TableErrorKind::corrupted, "the first block does not start right after the block offsets");
    for (std::uint64_t i = 1; i <= block_count; ++i) {
        const std::uint64_t next = load_u64(t.offsets.data() + 8 * i);
        if (next <= previous)
            fail(TableErrorKind::corrupted, "the block offsets do not increase at block " + std::to_string(i - 1));
        previous = next;
    }
    if (previous > file.size())
        fail(TableErrorKind::truncated, "the blocks end at byte " + std::to_string(previous) + " but the file has " +
                                            std::to_string(file.size()) + " bytes");
    if (previous < file.size())
        fail(TableErrorKind::corrupted, std::to_string(file.size() - previous) + " bytes follow the last block");
    return t;
}

}  // namespace dtb
