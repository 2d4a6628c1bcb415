// How the solvers cut a level's work (MaterialSolver, RuleSolver): which
// block pairs are big, when a level's big pairs go one to a thread, which
// materials are held a level at a time, and the threads they have.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>

#include <tbb/global_control.h>

namespace dtb {

struct SolverOptions {
    // Block pairs of at least this many positions are big: the plain solver
    // keeps their states and codes in block order (PairSpace::BlockOrder),
    // and both solve them with threads inside each unless a level has
    // enough of them (below). Tests lower it.
    std::uint64_t big_pair_positions = std::uint64_t{1} << 15;
    // A level with at least this many big pairs solves them one a thread,
    // side by side, with no atomic operation and no step to wait for; fewer,
    // side by side with threads inside each. 0: as many as there are
    // threads. Tests set it to force either way.
    std::uint64_t big_pairs_alone_from = 0;
    // A material of at least this many positions is solved a level at a
    // time (LevelValues): only the level being solved and the one above it
    // held as codes, the levels left behind packed in bands of the table,
    // the table handed on packed. Below it, a material is solved so only
    // where whole it does not fit the memory budget (plain_working_set()):
    // whole it takes about a tenth less processor time (docs/results.md).
    // Tests set 0.
    std::uint64_t levels_from_positions = ~std::uint64_t{0};
    // Positions of a band of the levels left behind (LevelValues), whole men
    // configurations of one side; sixteen bands are put together at once
    // at the end. Tests lower it.
    std::uint64_t level_band_positions = std::uint64_t{1} << 22;
    // Where a material solved a level at a time spills its packed levels and
    // its packed table (the build gives each such material a scratch folder
    // of its own, removed once its tables are written).
    std::filesystem::path level_folder;
};

// The threads the solvers' tasks run on: every core, or fewer where a
// tbb::global_control limits them (dtb build --threads).
inline std::size_t solver_threads() {
    return tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);
}

}  // namespace dtb
