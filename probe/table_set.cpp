#include "probe/table_set.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <string_view>
#include <map>
#include <stdexcept>

namespace dtb {

TableSet::TableSet(std::string variant, const std::filesystem::path& dir, CheckFile check_file,
                   std::size_t cache_bytes)
    : variant_(std::move(variant)), directory_(dir / variant_), check_file_(std::move(check_file)),
      cache_(cache_bytes) {
    std::error_code error;
    if (!std::filesystem::is_directory(directory_, error))
        throw TableError(TableErrorKind::missing, directory_,
                         "no such directory: the tables of variant " + variant_ + " belong in DIR/" + variant_ +
                             " (give --dir DIR, the folder that holds it)");
    // Canonical materials by name; files with other names (the manifest,
    // temporary files of a build) are not tables.
    std::map<std::string, std::array<bool, kinds>> found;
    for (const auto& entry : std::filesystem::directory_iterator(directory_, error)) {
        const std::filesystem::path& p = entry.path();
        const std::string ext = p.extension().string();
        // ".wld" against "wld": compared in place (GCC 12 warns of a false
        // overlap, -Wrestrict, in "." + std::string(...)).
        const auto is_kind = [&](int k) {
            const std::string_view e = extension(static_cast<TableKind>(k));
            return ext.size() == e.size() + 1 && ext[0] == '.' && std::string_view(ext).substr(1) == e;
        };
        int kind = 0;
        while (kind < kinds && !is_kind(kind)) ++kind;
        if (kind == kinds) continue;
        try {
            const Material m = Material::parse(p.stem().string());
            if (!m.is_canonical() || m.name() != p.stem().string()) continue;
            found[m.name()][kind] = true;
        } catch (const MaterialError&) {
        }
    }
    if (error) throw TableError(TableErrorKind::io, directory_, error.message());
    slots_ = std::make_unique<Slot[]>(found.size());
    lookup_mask_ = std::bit_ceil(4 * found.size() + 1) - 1;  // both orientations, at most half full
    lookup_.assign(lookup_mask_ + 1, Lookup{empty_key, {}});
    auto add = [&](const Material& m, Found f) {
        std::size_t i = hash(key_of(m));
        while (lookup_[i].key != empty_key && lookup_[i].key != key_of(m)) i = (i + 1) & lookup_mask_;
        lookup_[i] = {key_of(m), f};
    };
    int slot = 0;
    for (const auto& [name, present] : found) {
        const Material m = Material::parse(name);
        materials_.push_back(m);
        slots_[slot].material = m;
        slots_[slot].present = present;
        add(m.mirrored(), {slot, true});
        add(m, {slot, false});  // after the mirror: a symmetric material is not mirrored
        ++slot;
    }
}

TableSet::~TableSet() = default;

std::filesystem::path TableSet::path_of(const Material& m, TableKind kind) const {
    return directory_ / table_file_name(m, kind);
}

std::string build_command(std::string_view variant, const std::filesystem::path& dir, std::string_view what) {
    const std::string path = dir.string();
    const bool plain = !path.empty() && std::all_of(path.begin(), path.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("/._-+,:=@%").find(c) != std::string_view::npos;
    });
    std::string quoted = "'";
    for (const char c : path) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    quoted += "'";
    return "dtb build --variant " + std::string(variant) + " --dir " + (plain ? path : quoted) + " " +
           std::string(what);
}

const TableFile& TableSet::file(int slot, TableKind kind) const {
    Slot& s = slots_[slot];
    const int k = static_cast<int>(kind);
    if (const TableFile* f = s.open[k].load(std::memory_order_acquire)) return *f;
    std::lock_guard lock(open_mutex_);
    if (const TableFile* f = s.open[k].load(std::memory_order_relaxed)) return *f;
    if (s.failure[k]) std::rethrow_exception(s.failure[k]);
    const std::filesystem::path path = path_of(s.material, kind);
    if (!s.present[k])
        throw TableError(TableErrorKind::missing, path,
                         "no such file (build it with " + build_command(s.material, kind == TableKind::rul) + ")");
    try {
        auto table = std::make_unique<TableFile>(TableFile::open(path, {variant_, s.material, kind}));
        check_file_(s.material, *table);
        s.storage[k] = std::move(table);
    } catch (const TableError&) {
        s.failure[k] = std::current_exception();
        throw;
    }
    s.open[k].store(s.storage[k].get(), std::memory_order_release);
    return *s.storage[k];
}

std::uint32_t TableSet::stored_code(int slot, TableKind kind, std::uint64_t g) const {
    const TableFile& f = file(slot, kind);
    const TableHeader& h = f.header();
    if (!h.stores(g))
        throw std::logic_error("position " + std::to_string(g) + " of " + f.path().string() + " is not stored there");
    const TableHeader::Place at = h.place_of(g);
    const std::uint64_t block = at.block, k = at.k;
    const BlockCache::Key key{static_cast<std::uint32_t>(kinds * slot + static_cast<int>(kind)), block};
    return cache_.with_block(
        key, h.block_bytes(block), [&](std::span<std::byte> out) { f.read_block(block, out); },
        [&](std::span<const std::byte> bytes) { return value_at(bytes, h.value_bits, k); });
}

Wdl TableSet::stored_wdl(int slot, std::uint64_t g) const {
    if (!has(slot, TableKind::wld)) {
        // A .dtw of version 1 holds every result too; one of version 2 does not.
        if (file(slot, TableKind::dtw).header().draws_left_out())
            throw TableError(TableErrorKind::missing, path_of(slots_[slot].material, TableKind::wld),
                             "no such file, and the .dtw beside it leaves draws and one side to move to it (build it "
                             "with " + build_command(slots_[slot].material) + ")");
        return value_of_dtw_code(stored_dtw_code(slot, g)).wdl;
    }
    const std::uint32_t code = stored_code(slot, TableKind::wld, g);
    if (code == wld_unwritten)
        throw TableError(TableErrorKind::corrupted, path_of(slots_[slot].material, TableKind::wld),
                         "position " + std::to_string(g) + " holds the value never written");
    return wdl_of_wld_code(code);
}

std::uint32_t TableSet::stored_dtw_code(int slot, std::uint64_t g) const {
    return stored_code(slot, TableKind::dtw, g);
}

std::uint32_t TableSet::stored_rule_code(int slot, std::uint64_t g) const {
    return stored_code(slot, TableKind::rul, g);
}

}  // namespace dtb
