// How a team of ranks shares a material's work: the knobs of the
// distributed solver (BuildOptions::team; tests change them).
#pragma once

#include <cstdint>

namespace dtb {

// How a team shares the work (docs/design.md, "Distributed build").
struct TeamOptions {
    // A level whose men configurations deal out to the members evenly
    // enough (level_dealt_whole()) is shared by whole pairs; otherwise as
    // many as deal out evenly are, and the rest are split over the team
    // (configurations_dealt_whole()). The member dealt most may have this
    // much more than the mean (0.125: any level of at least 8 configurations
    // a member; a negative value splits every level).
    double uneven_deal = 0.125;
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
    // (docs/scaling.md, "What teams send, packed": 1 sends a quarter to
    // a third less than 4 did, at the same processor time). 0: every
    // table shared out.
    double held_ratio = 1;
};

// Whether a level of `configurations` men configurations (each one pair of
// as many positions) is dealt to a team of `members` as whole pairs: every
// member gets one at least, and the member with most, ceil(c / k), has at
// most `uneven` more than the mean c / k. A split level costs more processor
// time than a level of whole pairs (docs/scaling.md, "A team on one
// material"); a deal left uneven costs the others' waiting.
constexpr bool level_dealt_whole(std::uint64_t configurations, std::uint64_t members, double uneven) noexcept {
    if (configurations < members || uneven < 0) return false;
    const std::uint64_t most = (configurations + members - 1) / members;
    return static_cast<double>(most * members) <= (1 + uneven) * static_cast<double>(configurations);
}

// How many of a level's men configurations are dealt as whole pairs, the
// level's first ones: all where level_dealt_whole(); else the most that deal
// out evenly, a multiple of `members` (4 on 3 members: 3, one each), whose
// pairs the team solves first, the rest then split over the team; none with
// a negative slack. Pairs of one level lead to each other by no move, so the
// two parts are solved one after the other as two levels would be.
constexpr std::uint64_t configurations_dealt_whole(std::uint64_t configurations, std::uint64_t members,
                                                   double uneven) noexcept {
    if (level_dealt_whole(configurations, members, uneven)) return configurations;
    return uneven < 0 ? 0 : configurations / members * members;
}

}  // namespace dtb
