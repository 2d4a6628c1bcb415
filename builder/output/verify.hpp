// The checks of `dtb verify`, for the command line and the tests: every
// block of every table of a variant's set (or of one material's tables)
// read and its checksums, header and values checked, and with `full` every
// stored value checked against the position's moves, a forward pass written
// apart from the solver: the value of a position without a capture must be
// the best over its moves of the values the tables give after them; for a
// .rul table (docs/rules.md), every rule distance the best over its moves
// under its count.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace dtb {

struct VerifyOptions {
    std::filesystem::path dir;  // the tables of variant V are in dir/V
    std::string material;       // empty: every table of the set
    bool full = false;          // the values against the moves too
    int threads = 0;            // for `full`; 0: every core
};

// One file's or one material's check: whether it holds, and a line naming it
// with what was found (a file's blocks and positions, what is wrong with it,
// or the first position whose value disagrees with its moves, as a FEN).
struct TableCheck {
    bool ok;
    std::string text;
};

struct VerifyReport {
    std::size_t files = 0;               // table files read
    std::uint64_t materials_checked = 0;  // tables whose values were checked against the moves
    int failed = 0;                      // files and materials that did not hold
};

// Runs the checks, telling `each` every file's and material's result as it
// comes. Throws draughts::UnknownVariant for an unknown variant and
// std::runtime_error (TableError) for a missing directory or a set without
// tables; a damaged table is a failed check, not an exception.
VerifyReport verify_tables(const std::string& variant, const VerifyOptions& options,
                           const std::function<void(const TableCheck&)>& each);

}  // namespace dtb
