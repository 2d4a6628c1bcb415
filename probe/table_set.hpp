// The tables of one variant in a directory (DIR/VARIANT, docs/design.md, "Table files and the build's directory"): which
// materials are there, each file opened on first use (an atomic pointer per
// file and one mutex, so that probes never lock once a file is open), and the
// stored value of a position read through the shared block cache.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "probe/block_cache.hpp"
#include "probe/table_file.hpp"
#include "probe/value.hpp"

namespace dtb {

inline constexpr std::size_t default_cache_bytes = std::size_t{64} << 20;

// The command that builds, in the tables directory `dir`, the tables of
// `variant` that `what` names ("--material KKvK", "--pieces 4", "--material
// KKvK --rules"), to paste as it is: `dtb build --variant V --dir DIR WHAT`,
// DIR quoted for the shell where it needs it.
std::string build_command(std::string_view variant, const std::filesystem::path& dir, std::string_view what);

class TableSet {
public:
    // Checks a file of a canonical material once it is opened and its header
    // read (its index size; a .rul's rules): throws TableError if it is not
    // the table expected.
    using CheckFile = std::function<void(const Material&, const TableFile&)>;

    // Lists the tables in `dir`/`variant`. Throws TableError (missing) if that
    // directory does not exist.
    TableSet(std::string variant, const std::filesystem::path& dir, CheckFile check_file,
             std::size_t cache_bytes = default_cache_bytes);
    ~TableSet();

    const std::string& variant() const noexcept { return variant_; }
    const std::filesystem::path& directory() const noexcept { return directory_; }
    std::filesystem::path path_of(const Material& m, TableKind kind) const;
    // The command that builds material m's tables here (dtb::build_command).
    std::string build_command(const Material& m, bool rules = false) const {
        return dtb::build_command(variant_, directory_.parent_path(),
                                  "--material " + m.canonical().name() + (rules ? " --rules" : ""));
    }

    // The tables holding material m, in either orientation: slot -1 if there
    // are none; `mirrored` if m is the mirror of the stored (canonical) material.
    struct Found {
        int slot = -1;
        bool mirrored = false;
    };
    Found find(const Material& m) const noexcept {
        const std::uint32_t key = key_of(m);
        for (std::size_t i = hash(key);; i = (i + 1) & lookup_mask_) {
            const Lookup& e = lookup_[i];
            if (e.key == key) return e.found;
            if (e.key == empty_key) return {};
        }
    }
    // The canonical materials present, in name order, and whether each file is.
    const std::vector<Material>& materials() const noexcept { return materials_; }
    bool has(int slot, TableKind kind) const noexcept { return slots_[slot].present[static_cast<int>(kind)]; }
    static constexpr int kinds = 3;  // .wld, .dtw, .rul

    // The file, opened and checked on first use. Throws TableError, the
    // same one every time for a file that failed (until the set is reopened).
    const TableFile& file(int slot, TableKind kind) const;

    // Stored values of position g of a table (docs/format.md): the win/draw/loss
    // (from the .wld file, else from a .dtw file of version 1) and the DTW
    // code, of a position its file stores (TableHeader::stores(); in a .dtw
    // of version 2 the code of a draw is a filler). They throw TableError if
    // the file needed is missing or damaged.
    Wdl stored_wdl(int slot, std::uint64_t g) const;
    std::uint32_t stored_dtw_code(int slot, std::uint64_t g) const;
    // The rule code (probe/rule_count.hpp) of value g of a .rul file: its
    // value arrays one after the other (docs/format.md, "Rule tables").
    std::uint32_t stored_rule_code(int slot, std::uint64_t g) const;

    BlockCache& cache() const noexcept { return cache_; }

private:
    struct Slot {
        Material material;
        std::array<bool, kinds> present{};
        std::array<std::atomic<const TableFile*>, kinds> open{};
        std::array<std::unique_ptr<TableFile>, kinds> storage;
        // Why a file could not be opened: kept, so that probes of a damaged
        // table do not map and check it again each time.
        std::array<std::exception_ptr, kinds> failure;
    };

    // Open addressing over the packed counts: no division, no allocation.
    struct Lookup {
        std::uint32_t key;
        Found found;
    };
    static constexpr std::uint32_t empty_key = ~std::uint32_t{0};
    static std::uint32_t key_of(const Material& m) noexcept { return material_key(m); }  // never empty_key
    std::size_t hash(std::uint32_t key) const noexcept {
        return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> 40) & lookup_mask_;
    }
    // Stored value g of a file, read through the cache.
    std::uint32_t stored_code(int slot, TableKind kind, std::uint64_t g) const;

    std::string variant_;
    std::filesystem::path directory_;
    CheckFile check_file_;
    std::vector<Material> materials_;
    std::unique_ptr<Slot[]> slots_;
    std::vector<Lookup> lookup_;
    std::size_t lookup_mask_ = 0;
    mutable std::mutex open_mutex_;
    mutable BlockCache cache_;
};

}  // namespace dtb
