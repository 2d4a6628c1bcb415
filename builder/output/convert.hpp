// `dtb convert`: a set's tables of older format versions rewritten in the
// current format without solving again (docs/format.md, "Versions"). A
// `.dtw` or `.rul` of version 1 becomes one of version 2 (one side to move
// where the table allows it, the .wld's draws left to it) holding the same
// values; a `.wld` of version 1 becomes one of the version dtb build
// writes (TableSpec::wld_version), if that is another, or the one asked
// for: 4, compact (the positions a probe's one-ply search answers left
// out, docs/probing.md), from 1 or 3; 3, full again, from 1 or 4 (the
// positions left out found by that search). Each file is
// written under a temporary name and renamed into place, and the manifest's
// entry (its size and checksum) rewritten at once, so an interrupted
// conversion leaves every table whole, converted or not, and runs on.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace dtb {

struct ConvertOptions {
    std::filesystem::path dir;  // the tables of variant V are in dir/V
    std::string material;       // empty: every table of the set
    int wld_compression_level = 12;  // the defaults of dtb build's writer
    int dtw_compression_level = 9;
    int rul_compression_level = 9;
    // The .wld's version asked for: 3 or 4 (every .wld of another version
    // rewritten in it); none, dtb build's (a .wld of version 1 rewritten,
    // compact ones left so).
    std::optional<std::uint32_t> wld_version;
};

// One file: converted, or already of the current format.
struct ConvertedFile {
    std::filesystem::path path;
    bool converted = false;
    std::uint64_t bytes_before = 0, bytes_after = 0;
    std::uint32_t version_before = 0, version_after = 0;  // format versions
};

struct ConvertReport {
    int converted = 0, current = 0;
    std::uint64_t bytes_before = 0, bytes_after = 0;  // of the files converted
};

// Converts, telling `each` every .wld, .dtw and .rul file as it is done. Throws
// draughts::UnknownVariant, TableError (a missing directory, a damaged
// table: its blocks are checked as they are read) and std::runtime_error (a
// .wld missing or damaged beside a file of version 1, which stays; a file
// that cannot be written).
ConvertReport convert_tables(const std::string& variant, const ConvertOptions& options,
                             const std::function<void(const ConvertedFile&)>& each);

}  // namespace dtb
