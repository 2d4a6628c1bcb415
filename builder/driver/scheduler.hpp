// Who builds what in a distributed build (docs/design.md,
// "Distributed build"): a policy with no MPI in it, driven by the MPI
// coordinator with real events and by the scaling projection with simulated
// ones.
//
// A unit (a material's plain tables, or its .rul) gets a share of the ranks
// in proportion to its share of the work (positions) ready or running, at
// least one rank and at most one for every team_positions of its positions
// (one for a unit that must be alone): when many units are ready each goes
// to one rank, and a big one that is alone gets many. Rank r runs up to
// slots[r] one-rank units at once, a one-rank unit going where most of the
// tables it reads were solved (a rank keeps those in memory, and reading
// them back from their files costs a solve of their capture positions, or
// a probe a position for rule values), else where most slots are free; a team takes ranks with
// nothing running. Ready materials are taken in order of priority, the longest path
// of work from them to the end of the build first (critical path). When the
// first of them cannot have its team yet, the ranks it waits for drain and it
// starts as soon as they have; meanwhile nothing of lower priority starts.
// If the caller gives the time, two things change:
// - the team starts at once on the ranks free now if it is expected to end
//   sooner so than on its whole team once that has drained;
// - else a unit of lower priority starts if the team is not expected to
//   start later for it: it ends first, or takes ranks the team will not need
//   (backfilling, as batch systems do).
// A unit is expected to take its positions over its ranks times the seconds
// a position over a rank that the units finished so far took together.
#pragma once

#include <cstdint>
#include <vector>

namespace dtb {

class Scheduler {
public:
    struct Unit {
        std::uint64_t positions = 0;
        std::vector<int> waits_for;  // units that must be finished before this one starts
        // Of those, the ones whose results it reads: a one-rank unit goes
        // where most of them (by positions) were solved.
        std::vector<int> reads;
        bool alone = false;  // one rank, however big (a rule table: its solver has no team)
    };
    struct Assignment {
        int unit;
        std::vector<int> team;  // ranks; the first writes the tables
    };

    // `largest_teams`: every unit waits for its largest team, however much
    // else is ready (a test hook, DTB_TEST_LARGEST_TEAMS: to measure what
    // teams cost over a whole build).
    Scheduler(std::vector<Unit> units, std::vector<int> slots, std::uint64_t team_positions,
              bool largest_teams = false);

    // The most ranks a unit may have, and the ranks it was given (once assigned).
    int max_team_size(int unit) const noexcept { return max_team_[unit]; }
    int team_size(int unit) const noexcept { return team_size_[unit]; }

    // The units to start now, given the ranks' state. `now`: seconds on the
    // caller's clock, or negative if there is none (no backfilling).
    std::vector<Assignment> assign(double now = -1);
    // Rank `rank` finished its part of `unit` (for a team, each member reports).
    void released(int unit, int rank);
    // `unit` is finished: its tables are written (reported by the team's
    // first rank). `now` as for assign(): what it took teaches the estimates.
    void finished(int unit, double now = -1);

    // For the projection's what-if of teams that grow (bench/studies/scaling_projection):
    // the ranks running nothing, whether a unit is ready to start, and a
    // rank joining the running team of `unit`.
    std::vector<int> idle_ranks() const {
        std::vector<int> out;
        for (int r = 0; r < static_cast<int>(in_team_.size()); ++r)
            if (idle(r)) out.push_back(r);
        return out;
    }
    bool any_ready() const noexcept { return !ready_.empty(); }
    void join(int unit, int rank) {
        in_team_[rank] = true;
        ++team_size_[unit];
    }

    bool all_finished() const noexcept { return finished_ == static_cast<int>(units_.size()); }
    // Whether nothing runs, nothing is ready and units are left: the plan
    // cannot finish (a bug).
    bool stuck() const noexcept;

private:
    // Whether rank r runs nothing (a team may take it).
    bool idle(int r) const noexcept { return !in_team_[r] && running_on_[r] == 0; }
    double free_at(int r, double now) const;
    static double shadow(std::vector<double> free, int n);
    double expected_seconds(int unit, int ranks) const;

    std::vector<Unit> units_;
    std::vector<std::vector<int>> dependents_;
    std::vector<int> pending_;  // unfinished units each one waits for
    std::vector<int> max_team_;
    std::vector<int> team_size_;
    std::vector<double> priority_;
    std::vector<int> ready_;  // units whose dependencies are finished, not started
    std::vector<int> solved_by_;  // per unit: the rank that solved it alone, or -1
    std::vector<double> started_at_;  // per unit: when it started on the caller's clock, or -1
    std::vector<int> running_on_;  // per rank: units of one rank running on it
    std::vector<bool> in_team_;    // per rank: working in a team
    std::vector<std::vector<int>> on_rank_;  // per rank: the unfinished units it works on
    std::vector<int> slots_;
    bool largest_teams_;
    int finished_ = 0;
    int running_ = 0;
    double running_positions_ = 0;
    double timed_seconds_ = 0, timed_work_ = 0;  // finished units: seconds, and positions over ranks
};

}  // namespace dtb
