// Solver options that force the big pairs' ways of solving, set by name.
#pragma once

#include <cstdint>

#include "builder/solver/solver_options.hpp"

namespace dtb::test {

// Options with big pairs from `big` positions, solved one a thread from
// `alone` of them a level, and a material solved a level at a time from
// `levels_from` positions.
inline SolverOptions big_pairs(std::uint64_t big, std::uint64_t alone,
                               std::uint64_t levels_from = ~std::uint64_t{0}) {
    SolverOptions options;
    options.big_pair_positions = big;
    options.big_pairs_alone_from = alone;
    options.levels_from_positions = levels_from;
    return options;
}

}  // namespace dtb::test
