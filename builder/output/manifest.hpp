// The manifest of a tables directory (docs/design.md, "Table files and the
// build's directory"): DIR/VARIANT/manifest.json lists every finished table
// with its size and table checksum, and the statistics of its material. A build
// adds a material only once both of its files are in place, and rewrites the
// manifest under a temporary name that is flushed and renamed, so a killed
// build leaves either the old manifest or the new one; what it lists is
// finished.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "probe/material.hpp"

namespace dtb {

// A material's .rul table (docs/rules.md), once `dtb build --rules` wrote it.
struct RuleEntry {
    std::uint64_t bytes = 0, checksum = 0;  // the file's size and table checksum
    std::string profile;                     // the draw rules (draw_rules.hpp)
    int limit = 0, road_limit = 0;           // of the governing count, plies
    bool literal_road = false;
    // With the count from zero, every position (captures included), both
    // sides to move; the plain counts less these are the cursed wins and
    // the blessed losses.
    std::uint64_t wins = 0, draws = 0, losses = 0;
    int longest_win = -1;  // the longest rule distance of a win, plies; -1 if none
    double seconds = 0;    // to solve and write
    friend bool operator==(const RuleEntry&, const RuleEntry&) = default;
};

struct ManifestEntry {
    Material material;  // canonical
    std::uint64_t positions = 0;  // both sides to move
    std::uint64_t wld_bytes = 0, dtw_bytes = 0;
    std::uint64_t wld_checksum = 0, dtw_checksum = 0;  // the files' table checksums
    std::uint64_t wins = 0, draws = 0, losses = 0;     // every position, captures included
    int longest_win = -1;  // plies; -1 if there is no win
    double seconds = 0;    // to solve and write
    std::optional<RuleEntry> rules;  // its .rul, if built
};

// One entry as JSON text (the manifest's form of it), and back. entry_from_json
// throws std::invalid_argument on a text that is not an entry.
std::string to_json(const ManifestEntry& e);
ManifestEntry entry_from_json(std::string_view text);

class Manifest {
public:
    static constexpr const char* file_name = "manifest.json";

    // Reads `file`; an absent file is an empty manifest. Throws
    // std::runtime_error naming the file if it is not a dtb manifest of `variant`.
    static Manifest load(const std::filesystem::path& file, const std::string& variant);

    const std::map<std::string, ManifestEntry>& entries() const noexcept { return entries_; }
    const ManifestEntry* find(const Material& m) const;
    void put(const ManifestEntry& entry) { entries_[entry.material.name()] = entry; }

    // Writes `file` atomically (temporary name, flush, rename).
    void save(const std::filesystem::path& file) const;

private:
    std::string variant_;
    std::map<std::string, ManifestEntry> entries_;
};

}  // namespace dtb
