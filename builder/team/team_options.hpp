// How a team of ranks shares a material's work: the knobs of the
// distributed solver (BuildOptions::team; tests change them).
#pragma once

#include <cstdint>

namespace dtb {

// How a team shares the work (docs/design.md, "Distributed build").
struct TeamOptions {
    // A level with fewer men configurations than this many per member has
    // every pair split over the team; otherwise each member takes whole pairs.
    std::uint64_t configurations_per_member = 8;
    // Pairs of fewer positions are never split (tests lower it to split small pairs).
    std::uint64_t min_split_positions = 1 << 12;
    // Positions whose lookups are exchanged at once, and settled positions
    // of a split queue sent at once: they bound the messages and their memory.
    std::uint64_t lookup_positions = 1 << 20;
    std::uint64_t update_positions = 1 << 16;
    // A level of whole pairs is solved in stages of at most this many of the
    // member's positions, each stage's exchanges beside the next's solving.
    std::uint64_t stage_positions = 1 << 18;
    // Whole pairs of at least this many positions are solved one at a time
    // with all threads (as SolverOptions::big_pair_positions; tests lower it).
    std::uint64_t shared_pair_positions = 1 << 15;
    // A team of k holds a table of P' positions whole (every member a copy)
    // only if k P' <= held_ratio x P, P the positions of the material it
    // solves: each member receives the whole table, against 1/k of it when
    // it is shared out, so in a big team only small tables are worth a copy
    // (docs/scaling.md). 0: every table shared out.
    double held_ratio = 4;
};

}  // namespace dtb
