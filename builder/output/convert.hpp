// `dtb convert`: a set's tables of format version 1 rewritten in the
// current format without solving again (docs/format.md, "Versions"). A
// `.dtw` or `.rul` of version 1 becomes one of version 2 (one side to move
// where the table allows it, the .wld's draws left to it) holding the same
// values; a `.wld` is the same in both versions and stays. Each file is
// written under a temporary name and renamed into place, and the manifest's
// entry (its size and checksum) rewritten at once, so an interrupted
// conversion leaves every table whole, converted or not, and runs on.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace dtb {

struct ConvertOptions {
    std::filesystem::path dir;  // the tables of variant V are in dir/V
    std::string material;       // empty: every table of the set
    int dtw_compression_level = 9;  // the defaults of dtb build's writer
    int rul_compression_level = 9;
};

// One file: converted, or already of the current format.
struct ConvertedFile {
    std::filesystem::path path;
    bool converted = false;
    std::uint64_t bytes_before = 0, bytes_after = 0;
};

struct ConvertReport {
    int converted = 0, current = 0;
    std::uint64_t bytes_before = 0, bytes_after = 0;  // of the files converted
};

// Converts, telling `each` every .dtw and .rul file as it is done. Throws
// draughts::UnknownVariant, TableError (a missing directory, a damaged
// table: its blocks are checked as they are read) and std::runtime_error (a
// .wld missing or damaged beside a file of version 1, which stays; a file
// that cannot be written).
ConvertReport convert_tables(const std::string& variant, const ConvertOptions& options,
                             const std::function<void(const ConvertedFile&)>& each);

}  // namespace dtb
