// The errors the probe library reports: a table that is missing or damaged,
// and a position that no table can hold.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dtb {

enum class TableErrorKind {
    missing,      // no such file or directory
    foreign,      // a dtb table, but of another variant, material or kind; or not a dtb table at all
    unsupported,  // a later format or index scheme than this reader knows
    truncated,    // shorter than its header says
    corrupted,    // a checksum or a structural check failed
    io,           // the operating system refused to read it
};

std::string_view to_string(TableErrorKind kind) noexcept;

// What went wrong with which file; what() reads "corrupted table FILE: REASON".
class TableError : public std::runtime_error {
public:
    TableError(TableErrorKind kind, const std::filesystem::path& file, const std::string& reason);
    TableErrorKind kind() const noexcept { return kind_; }
    const std::filesystem::path& file() const noexcept { return file_; }

private:
    TableErrorKind kind_;
    std::filesystem::path file_;
};

// A position that no table can hold: pieces off the board or on one square,
// a man on its own promotion row, or the side not to move without pieces.
class PositionError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

}  // namespace dtb
