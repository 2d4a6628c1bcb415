// Which jobs of a build run when, and where (docs/design.md, "One graph of
// jobs" and "Distributed build"): a policy with no MPI in it, driven by the
// one-process build (one rank), by the MPI coordinator with real events and
// by the scaling projection with simulated ones.
//
// A unit (a material's plain tables, or its .rul) gets a share of the ranks
// in proportion to its share of the work (positions) ready or running, at
// least one rank and at most one for every team_positions of its positions
// (one for a unit that must be alone): when many units are ready each goes
// to one rank, and a big one that is alone gets many. It takes that share
// only if it is expected to end the build sooner than one rank: a team
// shortens the longest path through the unit, and costs the work its
// members add (a team of k does f(k) times a rank's work: team_overhead()),
// which delays the rest of the work; so a unit whose path is shorter than
// the work ready or running over all ranks is solved by one rank, and a
// team forms where the critical path gains more than the team costs
// (team_worth_having()). Memory sets the fewest: a unit whose working set
// does not fit the smallest rank's memory gets at least the ranks whose
// shares fit it (Memory below), whatever it costs. Rank r runs up
// to slots[r] one-rank units at once while their working sets fit its
// memory (one in any case when nothing runs on it), a one-rank unit going where most of the
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
#include <functional>
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
        // Bytes a rank holds while it runs the unit alone (its working set),
        // and a team member's bytes a position of its share: a team of k
        // needs member_bytes * positions / k a member. 0: not counted.
        std::uint64_t bytes = 0;
        double member_bytes = 0;
    };
    // What the ranks' memory allows.
    struct Memory {
        std::vector<std::uint64_t> ranks;  // per rank: bytes for working sets (empty: no bound)
        // Whether rank r can hold `bytes` of working sets in all (those of
        // the units running on it and of the one to start), asked before a
        // unit starts beside others: the one process gives up room of its
        // kept tables for it. Empty: whether they fit ranks[r].
        std::function<bool(int rank, std::uint64_t bytes)> room;
    };
    struct Assignment {
        int unit;
        std::vector<int> team;  // ranks; the first writes the tables
    };

    // `largest_teams`: every unit waits for its largest team, however much
    // else is ready (a test hook, DTB_TEST_LARGEST_TEAMS: to measure what
    // teams cost over a whole build).
    Scheduler(std::vector<Unit> units, std::vector<int> slots, std::uint64_t team_positions,
              bool largest_teams = false, Memory memory = {});

    // The processor time a team of 2 spends on a material over one rank's
    // (f(2), measured on Canadian materials: docs/scaling.md, "A team on
    // one material"); a team of k is taken to spend f(k) = 1 + (f(2) - 1)
    // 2 (k - 1) / k, its share of lookups that cross ranks growing with k.
    static constexpr double measured_team_overhead = 1.07;
    void set_team_overhead(double f2) noexcept { team_overhead_ = f2; }
    double team_overhead(int k) const noexcept { return 1 + (team_overhead_ - 1) * 2 * (k - 1) / k; }

    // The fewest and the most ranks a unit may have, and the ranks it was
    // given (once assigned); whether even its largest team's members
    // need more than the smallest rank's memory.
    int min_team_size(int unit) const noexcept { return min_team_[unit]; }
    int max_team_size(int unit) const noexcept { return max_team_[unit]; }
    bool over_memory(int unit) const noexcept;
    // What a rank holds while it runs `unit` on a team of `ranks`: its
    // working set alone, a member's share (Unit::member_bytes) in a team.
    std::uint64_t member_bytes(int unit, int ranks) const noexcept;
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
    int team_worth_having(int unit, int team, double active) const;
    bool room_on(int rank, int unit) const;
    std::uint64_t least_memory() const noexcept;

    std::vector<Unit> units_;
    std::vector<std::vector<int>> dependents_;
    std::vector<int> pending_;  // unfinished units each one waits for
    std::vector<int> min_team_;
    std::vector<int> max_team_;
    std::vector<int> team_size_;
    std::vector<double> priority_;
    std::vector<double> after_;  // per unit: the longest path of work after it (priority_ less its own)
    double team_overhead_ = measured_team_overhead;
    std::vector<int> ready_;  // units whose dependencies are finished, not started
    std::vector<int> solved_by_;  // per unit: the rank that solved it alone, or -1
    std::vector<double> started_at_;  // per unit: when it started on the caller's clock, or -1
    std::vector<int> running_on_;  // per rank: units of one rank running on it
    std::vector<bool> in_team_;    // per rank: working in a team
    std::vector<std::vector<int>> on_rank_;  // per rank: the unfinished units it works on
    std::vector<int> slots_;
    Memory memory_;
    std::vector<std::uint64_t> held_;  // per rank: working sets of its one-rank units running
    bool largest_teams_;
    int finished_ = 0;
    int running_ = 0;
    double running_positions_ = 0;
    double timed_seconds_ = 0, timed_work_ = 0;  // finished units: seconds, and positions over ranks
};

}  // namespace dtb
