// The errors the probe library reports: a table that is missing or damaged,
// a position that no table can hold, and (values under the move-count draw
// rules, docs/rules.md) a material whose value needs more than one count,
// and counts of a game that cannot be.
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

// A material whose value under the draw rules needs more than one number
// (Russian 7.2.5 with 7.2.6, 7.2.7 with men; docs/rules.md): no table of it
// is built, and a probe of it names the articles.
class RulesRefused : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A count of a game in progress that cannot be (negative, past its limit,
// larger than a count it cannot exceed) or that the position or variant does
// not have. count() names it: 'K' (plies since the last man move or
// capture), 'E' (since the lone-king ending arose), 'T' (since the lone king
// first stood alone on the main road).
class CountError : public std::invalid_argument {
public:
    CountError(char count, const std::string& reason) : std::invalid_argument(reason), count_(count) {}
    char count() const noexcept { return count_; }

private:
    char count_;
};

}  // namespace dtb
