// The tables of one variant in a directory (DIR/VARIANT, DESIGN.md §7): which
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
#include <unordered_map>
#include <vector>

#include "probe/block_cache.hpp"
#include "probe/table_file.hpp"
#include "probe/value.hpp"

namespace dtb {

inline constexpr std::size_t default_cache_bytes = std::size_t{64} << 20;

class TableSet {
public:
    // The index size of a canonical material: a file whose header disagrees is refused.
    using IndexSize = std::function<std::uint64_t(const Material&)>;

    // Lists the tables in `dir`/`variant`. Throws TableError (missing) if that
    // directory does not exist.
    TableSet(std::string variant, const std::filesystem::path& dir, IndexSize index_size,
             std::size_t cache_bytes = default_cache_bytes);
    ~TableSet();

    const std::string& variant() const noexcept { return variant_; }
    const std::filesystem::path& directory() const noexcept { return directory_; }
    std::filesystem::path path_of(const Material& m, TableKind kind) const;

    // The number of a canonical material's tables, or -1 if it has neither file.
    int find(const Material& canonical) const noexcept {
        const auto it = slots_by_key_.find(key_of(canonical));
        return it == slots_by_key_.end() ? -1 : it->second;
    }
    // The canonical materials present, in name order, and whether each file is.
    const std::vector<Material>& materials() const noexcept { return materials_; }
    bool has(int slot, TableKind kind) const noexcept { return slots_[slot].present[static_cast<int>(kind)]; }

    // The file, opened and checked on first use. Throws TableError.
    const TableFile& file(int slot, TableKind kind) const;

    // Stored values of position g of a table (docs/format.md): the win/draw/loss
    // (from the .wld file, else from the .dtw file) and the DTW code. They throw
    // TableError if the file needed is missing or damaged.
    Wdl stored_wdl(int slot, std::uint64_t g) const;
    std::uint32_t stored_dtw_code(int slot, std::uint64_t g) const;

    BlockCache& cache() const noexcept { return cache_; }

private:
    struct Slot {
        Material material;
        std::array<bool, 2> present{};
        std::array<std::atomic<const TableFile*>, 2> open{};
        std::array<std::unique_ptr<TableFile>, 2> storage;
    };

    static std::uint32_t key_of(const Material& m) noexcept {
        return static_cast<std::uint32_t>(m.white_men) | static_cast<std::uint32_t>(m.white_kings) << 8 |
               static_cast<std::uint32_t>(m.black_men) << 16 | static_cast<std::uint32_t>(m.black_kings) << 24;
    }
    template <class Decode>
    auto read_value(int slot, TableKind kind, std::uint64_t g, Decode&& decode) const;

    std::string variant_;
    std::filesystem::path directory_;
    IndexSize index_size_;
    std::vector<Material> materials_;
    std::unique_ptr<Slot[]> slots_;
    std::unordered_map<std::uint32_t, int> slots_by_key_;
    mutable std::mutex open_mutex_;
    mutable BlockCache cache_;
};

}  // namespace dtb
