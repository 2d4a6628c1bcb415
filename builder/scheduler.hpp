// Who builds what in a distributed build (DESIGN.md §9; docs/design.md,
// "Distributed build"): a policy with no MPI in it, driven by the MPI
// coordinator with real events and by the scaling projection with simulated
// ones.
//
// A material of P positions gets a team of ceil(P / team_positions) ranks, at
// most every rank: small materials go to one rank each, and rank r runs up to
// slots[r] of those at once; a team takes ranks with nothing running. Ready
// materials are taken in order of priority, the longest path of work from
// them to the end of the build first (critical path). When the first of them
// cannot have its team yet, nothing of lower priority starts: the ranks it
// waits for drain and it starts as soon as they have.
#pragma once

#include <cstdint>
#include <vector>

namespace dtb {

class Scheduler {
public:
    struct Unit {
        std::uint64_t positions = 0;
        std::vector<int> waits_for;  // units that must be finished before this one starts
    };
    struct Assignment {
        int unit;
        std::vector<int> team;  // ranks; the first writes the tables
    };

    Scheduler(std::vector<Unit> units, std::vector<int> slots, std::uint64_t team_positions);

    int team_size(int unit) const noexcept { return team_size_[unit]; }

    // The units to start now, given the ranks' state.
    std::vector<Assignment> assign();
    // Rank `rank` finished its part of `unit` (for a team, each member reports).
    void released(int unit, int rank);
    // `unit` is finished: its tables are written (reported by the team's first rank).
    void finished(int unit);

    bool all_finished() const noexcept { return finished_ == static_cast<int>(units_.size()); }
    // Whether nothing runs, nothing is ready and units are left: the plan
    // cannot finish (a bug).
    bool stuck() const noexcept;

private:
    std::vector<Unit> units_;
    std::vector<std::vector<int>> dependents_;
    std::vector<int> pending_;  // unfinished units each one waits for
    std::vector<int> team_size_;
    std::vector<double> priority_;
    std::vector<int> ready_;  // units whose dependencies are finished, not started
    std::vector<int> running_on_;  // per rank: units of one rank running on it
    std::vector<bool> in_team_;    // per rank: working in a team
    std::vector<int> slots_;
    int finished_ = 0;
    int running_ = 0;
};

}  // namespace dtb
