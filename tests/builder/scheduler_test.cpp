// The distributed build's scheduler (builder/driver/scheduler.hpp), on small plans
// whose right decisions are worked out by hand in the comments; and the
// progress a build shows (builder/driver/progress.hpp).
#include <cstddef>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "builder/driver/progress.hpp"
#include "builder/driver/scheduler.hpp"

namespace dtb {
namespace {

using Unit = Scheduler::Unit;
using Teams = std::vector<std::pair<int, std::size_t>>;

// The units assigned and the sizes of their teams, in order.
Teams teams_of(const std::vector<Scheduler::Assignment>& assigned) {
    Teams teams;
    for (const Scheduler::Assignment& a : assigned) teams.emplace_back(a.unit, a.team.size());
    return teams;
}

// The unit of `a` finished, every member having reported it.
void finish(Scheduler& s, const Scheduler::Assignment& a) {
    for (int r : a.team) s.released(a.unit, r);
    s.finished(a.unit);
}

// Largest teams: ceil(positions / team_positions), at least 1, at most every rank.
TEST(Scheduler, LargestTeams) {
    const Scheduler s({{10, {}, {}}, {100, {}, {}}, {101, {}, {}}, {100000, {}, {}}}, {1, 1, 1, 1}, 100);
    EXPECT_EQ(s.max_team_size(0), 1);
    EXPECT_EQ(s.max_team_size(1), 1);
    EXPECT_EQ(s.max_team_size(2), 2);
    EXPECT_EQ(s.max_team_size(3), 4);  // 1000 ranks' worth, four ranks
}

// The test hook of largest teams: the same two units on 8 ranks; unit 0
// takes its 6 ranks, and unit 1, whose largest team is 2, finds 2 free.
// With units of 600 and 700, unit 1 (largest team 7) waits for unit 0.
TEST(Scheduler, LargestTeamsHook) {
    Scheduler s({{600, {}, {}}, {200, {}, {}}}, {1, 1, 1, 1, 1, 1, 1, 1}, 100, true);
    auto a = s.assign();
    ASSERT_EQ(a.size(), 2u);
    EXPECT_EQ(a[0].team.size(), 6u);
    EXPECT_EQ(a[1].team.size(), 2u);
    Scheduler t({{700, {}, {}}, {600, {}, {}}}, {1, 1, 1, 1, 1, 1, 1, 1}, 100, true);
    a = t.assign();
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].unit, 0);
    EXPECT_EQ(a[0].team.size(), 7u);
}

// Teams in proportion to the work: on 8 ranks, units of 600 and 200
// positions ready together (largest teams 6 and 2) get 6 and 2 ranks; alone,
// the unit of 600 would get its 6.
TEST(Scheduler, TeamsInProportion) {
    Scheduler s({{600, {}, {}}, {200, {}, {}}}, {1, 1, 1, 1, 1, 1, 1, 1}, 100);
    const auto a = s.assign();
    ASSERT_EQ(a.size(), 2u);
    EXPECT_EQ(a[0].unit, 0);
    EXPECT_EQ(a[0].team.size(), 6u);
    EXPECT_EQ(a[1].unit, 1);
    EXPECT_EQ(a[1].team.size(), 2u);
    EXPECT_EQ(s.team_size(0), 6);
}

// Ranks nothing else could use join a team on the critical path: on 8
// ranks, units 0 and 1 (1000 positions each; unit 2, 200 positions, waits
// for 1, and unit 3, 3000, for 2) start on 4 ranks each. When unit 1 ends,
// unit 2 is the only work ready: its share of all ranks by the work ready
// or running, 8 x 200 / 1200, is one rank, but the 4 ranks unit 1 left have
// nothing else to do, so it may have its largest team, 2. That team is
// worth having: the path through unit 2 is 200 + 3000 / 8 = 575 positions
// over a rank alone and 200 x 1.07 / 2 + 375 = 482 in the team, longer
// than the work ready or running over all ranks, (1000 + 200) / 8 = 150.
TEST(Scheduler, FreeRanksJoinTheReadyWork) {
    Scheduler s({{1000, {}, {}}, {1000, {}, {}}, {200, {1}, {1}}, {3000, {2}, {2}}}, {1, 1, 1, 1, 1, 1, 1, 1}, 100);
    s.set_team_overhead(1.07);
    const auto a = s.assign();
    EXPECT_EQ(teams_of(a), (Teams{{1, 4}, {0, 4}}));  // unit 1 first: the longer path
    finish(s, a[0]);
    EXPECT_EQ(teams_of(s.assign()), (Teams{{2, 2}}));
}

// No team where it gains nothing: on 8 ranks, units 0 (4000 positions) and
// 1 (1000) start on 6 and 2 ranks (8 x 4000 / 5000 = 6.4). When unit 1 ends,
// unit 2 (200, after unit 1, nothing after it) could have the 2 ranks unit
// 1 left, but the build waits for unit 0 (the work ready or running over
// all ranks, 4200 / 8 = 525 positions over a rank, is longer than unit 2's
// path, 200):
// a team would end unit 2 sooner and the build no sooner, at 7% more work,
// so it gets one rank.
TEST(Scheduler, NoTeamWhereItGainsNothing) {
    Scheduler s({{4000, {}, {}}, {1000, {}, {}}, {200, {1}, {1}}}, {1, 1, 1, 1, 1, 1, 1, 1}, 100);
    s.set_team_overhead(1.07);
    const auto a = s.assign();
    EXPECT_EQ(teams_of(a), (Teams{{0, 6}, {1, 2}}));
    finish(s, a[1]);
    EXPECT_EQ(teams_of(s.assign()), (Teams{{2, 1}}));
}

// Many units ready on few ranks: each gets one rank, none a team.
TEST(Scheduler, ManyUnitsOneRankEach) {
    Scheduler s({{300, {}, {}}, {300, {}, {}}, {300, {}, {}}, {300, {}, {}}}, {1, 1}, 100);
    const auto a = s.assign();
    ASSERT_EQ(a.size(), 2u);
    for (const auto& x : a) EXPECT_EQ(x.team.size(), 1u);
}

// Dependencies: a unit starts only after all it waits for are finished.
TEST(Scheduler, WaitsForDependencies) {
    // 0 <- 1 <- 2 (2 waits for 1, 1 for 0); one rank of one slot.
    Scheduler s({{5, {}, {}}, {5, {0}, {0}}, {5, {1}, {1}}}, {1}, 100);
    auto a = s.assign();
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].unit, 0);
    EXPECT_TRUE(s.assign().empty());  // the rank is busy and nothing else is ready
    s.released(0, 0);
    s.finished(0);
    a = s.assign();
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].unit, 1);
    s.released(1, 0);
    s.finished(1);
    a = s.assign();
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].unit, 2);
    EXPECT_FALSE(s.all_finished());
    s.released(2, 0);
    s.finished(2);
    EXPECT_TRUE(s.all_finished());
}

// Slots: a rank runs up to its slots of one-rank units at once, the rank
// with the most free slots first.
TEST(Scheduler, Slots) {
    Scheduler s({{1, {}, {}}, {1, {}, {}}, {1, {}, {}}, {1, {}, {}}, {1, {}, {}}}, {2, 1}, 100);
    const auto a = s.assign();
    ASSERT_EQ(a.size(), 3u);  // two on rank 0, one on rank 1; two wait
    int on0 = 0, on1 = 0;
    for (const auto& x : a) (x.team[0] == 0 ? on0 : on1) += 1;
    EXPECT_EQ(on0, 2);
    EXPECT_EQ(on1, 1);
    EXPECT_TRUE(s.assign().empty());
}

// Priority: the longest path of work to the end first. Unit 0 (10 positions)
// leads to unit 2 (1000 positions); unit 1 (500) leads nowhere. With one
// slot, unit 0 goes first although unit 1 is bigger: its path is 1010.
TEST(Scheduler, CriticalPathFirst) {
    Scheduler s({{10, {}, {}}, {500, {}, {}}, {1000, {0}, {0}}}, {1}, 10000);
    const auto a = s.assign();
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].unit, 0);
}

// The rank an assignment gave `unit` (one-rank units).
int rank_of(const std::vector<Scheduler::Assignment>& a, int unit) {
    for (const auto& x : a)
        if (x.unit == unit) return x.team[0];
    ADD_FAILURE() << "unit " << unit << " was not assigned";
    return -1;
}

// A team waits for its ranks to drain, and nothing of lower priority starts
// meanwhile. Two ranks of one slot, 100 positions a rank. Priorities (work
// to the end): unit 2 (200 positions, a team of 2) 100; unit 4 (5, after
// unit 1) 5; unit 3 (10, after unit 0) 10; unit 0: 100 + 100 = 200; unit 1:
// 50 + 100 = 150. Units 0 and 1 start; when 0 ends, 3 starts on its rank;
// when 1 ends, units 2 and 4 are ready, but 2 cannot have both ranks (3
// runs) and 4 must not take the free one: nothing starts until 3 ends, then 2.
TEST(Scheduler, TeamWaitsForRanks) {
    Scheduler s({{100, {}, {}}, {50, {}, {}}, {200, {0, 1}, {0, 1}}, {10, {0}, {0}}, {5, {1}, {1}}}, {1, 1}, 100);
    // (Unit 2, when ready, is alone but for unit 3 running and unit 4:
    // 2 x 200 / 215 rounds to 2 ranks.)
    auto a = s.assign();
    ASSERT_EQ(a.size(), 2u);
    const int rank0 = rank_of(a, 0), rank1 = rank_of(a, 1);
    s.released(0, rank0);
    s.finished(0);
    a = s.assign();
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].unit, 3);
    const int rank3 = a[0].team[0];
    EXPECT_EQ(rank3, rank0);
    s.released(1, rank1);
    s.finished(1);
    EXPECT_TRUE(s.assign().empty());
    s.released(3, rank3);
    s.finished(3);
    a = s.assign();
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].unit, 2);
    EXPECT_EQ(a[0].team.size(), 2u);
    for (int r : a[0].team) s.released(2, r);
    s.finished(2);
    a = s.assign();
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].unit, 4);
}

// A one-rank unit goes where the most of what it reads was solved: unit 2
// reads units 0 (big) and 1 (small), solved on different ranks; it goes to
// unit 0's rank although both are free.
TEST(Scheduler, AffinityToWhatItReads) {
    Scheduler s({{90, {}, {}}, {10, {}, {}}, {50, {0, 1}, {0, 1}}}, {1, 1}, 1000);
    const auto a = s.assign();
    ASSERT_EQ(a.size(), 2u);
    const int rank0 = rank_of(a, 0), rank1 = rank_of(a, 1);
    ASSERT_NE(rank0, rank1);
    s.released(1, rank1);
    s.finished(1);
    s.released(0, rank0);
    s.finished(0);
    const auto b = s.assign();
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b[0].team[0], rank0);
}

// What it waits for but does not read does not place it: unit 3 (a rule
// table) waits for units 0 (its material's plain tables, big) and 2 (a rule
// table it reads, small) and goes to unit 2's rank. And a unit that must be
// alone gets one rank however big it is and however many are free.
TEST(Scheduler, PlacedByWhatItReadsAlone) {
    Scheduler s({{90, {}, {}}, {10, {}, {}}, {10, {1}, {1}, true}, {100000, {0, 2}, {2}, true}}, {1, 1, 1}, 1000);
    EXPECT_EQ(s.max_team_size(3), 1);
    const auto a = s.assign();
    ASSERT_EQ(a.size(), 2u);
    const int rank0 = rank_of(a, 0), rank1 = rank_of(a, 1);
    s.released(1, rank1);
    s.finished(1);
    auto b = s.assign();
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b[0].unit, 2);
    EXPECT_EQ(b[0].team, std::vector<int>{rank1});  // where unit 1 was solved
    s.released(2, rank1);
    s.finished(2);
    s.released(0, rank0);
    s.finished(0);
    b = s.assign();
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b[0].unit, 3);
    EXPECT_EQ(b[0].team, std::vector<int>{rank1});
}

// With a clock, a unit of lower priority runs on a rank a waiting team
// drains if it is expected to end before the team can start (backfilling).
// Two ranks, 2000 positions a rank at most. Units 0 (100 positions) and 1
// (1000) start at 0 on one rank each. Unit 0 ends at 1 s: 0.01 s a position
// over a rank. Then 2 (10000, after 0: 2 x 10000 / 13000 of the ranks, a
// team of 2), 4 (1500) and 3 (500) are ready, in that order. Unit 1 is
// expected to end at 10: the team of 2 then ends at 10 + 50, against 1 + 100
// alone on the free rank, so it waits. Unit 4 would end at 16 and delay it;
// unit 3 ends at 6 and starts on the free rank. Without the clock nothing
// starts.
TEST(Scheduler, BackfillsWhatEndsBeforeTheTeamCanStart) {
    for (const bool clock : {true, false}) {
        Scheduler s({{100, {}, {}}, {1000, {}, {}}, {10000, {0}, {0}}, {500, {0}, {0}}, {1500, {0}, {0}}}, {1, 1}, 2000);
        auto a = s.assign(clock ? 0 : -1);
        ASSERT_EQ(a.size(), 2u);
        const int rank0 = rank_of(a, 0);
        s.released(0, rank0);
        s.finished(0, clock ? 1 : -1);
        a = s.assign(clock ? 1 : -1);
        if (!clock) {
            EXPECT_TRUE(a.empty());
            continue;
        }
        ASSERT_EQ(a.size(), 1u);
        EXPECT_EQ(a[0].unit, 3);
        EXPECT_EQ(a[0].team, std::vector<int>{rank0});
    }
}

// With a clock, a team starts on the ranks free now when it is expected to
// end sooner so than after waiting for its share. Four ranks, 3400
// positions a rank at most. Unit 1 (10000) starts at 0 on 3 ranks, unit 0
// (100) on the fourth, which it leaves at 1 s: 0.01 s a position over a
// rank. Unit 2 (6200, after 0) is then worth 4 x 6200 / 16200 ranks, a team
// of 2; unit 1 is expected to end at 33.3, so a team of 2 would end at 64.3
// and one rank now at 63: it starts on the free rank. The test hook of
// largest teams always waits.
TEST(Scheduler, StartsSmallerWhenThatEndsSooner) {
    for (const bool largest : {false, true}) {
        Scheduler s({{100, {}, {}}, {10000, {}, {}}, {6200, {0}, {0}}}, {1, 1, 1, 1}, 3400, largest);
        auto a = s.assign(0);
        ASSERT_EQ(a.size(), 2u);
        const int rank0 = rank_of(a, 0);
        s.released(0, rank0);
        s.finished(0, 1);
        a = s.assign(1);
        if (largest) {
            EXPECT_TRUE(a.empty());
            continue;
        }
        ASSERT_EQ(a.size(), 1u);
        EXPECT_EQ(a[0].unit, 2);
        EXPECT_EQ(a[0].team, std::vector<int>{rank0});
        EXPECT_EQ(s.team_size(2), 1);
    }
}

// A team's material reported finished by one member, before the other
// member has reported: that rank is free, whatever the estimate said. Three
// ranks, 1000 positions a rank at most. Unit 1 (10000) starts at 0 on 2
// ranks (3 x 10000 / 13000 of them), unit 0 (3000) on the third, which it
// leaves at 30 s: 0.01 s a position over a rank. Unit 1 ends at 31, far
// sooner than expected; one member has reported. Unit 2 (3000, after 1)
// wants all 3 ranks: at 0.007625 s a position over a rank, 7.6 s on 3 or
// 11.4 on the 2 free now. Were the last member's rank free only when unit 1
// was expected to end (38.1), 2 ranks now would end it sooner (42.4 against
// 45.7); it is free now, so unit 2 waits for it (38.6).
TEST(Scheduler, WaitsForARankWhoseMaterialHasFinished) {
    Scheduler s({{3000, {}, {}}, {10000, {}, {}}, {3000, {1}, {1}}}, {1, 1, 1}, 1000);
    auto a = s.assign(0);
    ASSERT_EQ(a.size(), 2u);
    std::vector<int> team1;
    for (const auto& x : a)
        if (x.unit == 1) team1 = x.team;
    ASSERT_EQ(team1.size(), 2u);
    s.released(0, rank_of(a, 0));
    s.finished(0, 30);
    EXPECT_TRUE(s.assign(30).empty());
    s.released(1, team1[0]);
    s.finished(1, 31);
    EXPECT_TRUE(s.assign(31).empty()) << "started on the ranks free now";
    s.released(1, team1[1]);
    a = s.assign(31);
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].unit, 2);
    EXPECT_EQ(a[0].team.size(), 3u);
}

// Nothing running and nothing that can start, yet units left: stuck (a bug in
// the plan), which the coordinator reports instead of waiting for ever.
TEST(Scheduler, Stuck) {
    Scheduler s({{1, {}, {}}}, {1}, 100);
    EXPECT_FALSE(s.stuck());
    const auto a = s.assign();
    ASSERT_EQ(a.size(), 1u);
    EXPECT_FALSE(s.stuck());
    s.released(0, 0);
    EXPECT_FALSE(s.stuck());  // released but not finished: its writer still works
    s.finished(0);
    EXPECT_FALSE(s.stuck());
    EXPECT_TRUE(s.all_finished());
}

// Memory sets the fewest ranks: a unit of 1000 positions whose working
// set (5000 bytes) does not fit ranks of 2000 bytes, a team member needing
// 4 bytes a position of its share, needs 2 ranks (4 x 1000 / 2 = 2000),
// however large team_positions. One needing 9 bytes a position would need
// 4.5 ranks: it gets all 4 and is over the memory.
TEST(Scheduler, MemorySetsTheFewestRanks) {
    const Scheduler::Memory memory{{2000, 2000, 2000, 2000}, {}};
    Scheduler s({{1000, {}, {}, false, 5000, 4.0}}, {1, 1, 1, 1}, 1000000, false, memory);
    EXPECT_EQ(s.min_team_size(0), 2);
    EXPECT_EQ(s.max_team_size(0), 2);
    EXPECT_FALSE(s.over_memory(0));
    const auto a = s.assign();
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].team.size(), 2u);
    const Scheduler t({{1000, {}, {}, false, 5000, 9.0}, {1000, {}, {}, true, 5000}}, {1, 1, 1, 1}, 1000000, false,
                      memory);
    EXPECT_EQ(t.min_team_size(0), 4);
    EXPECT_TRUE(t.over_memory(0));
    EXPECT_EQ(t.min_team_size(1), 1) << "a unit that must be alone stays alone";
    EXPECT_TRUE(t.over_memory(1));
}

// One-rank units side by side only while their working sets fit the rank's
// memory: on one rank of 4 slots and 100 bytes, units of 60 bytes run one at
// a time; the first starts on the idle rank whatever its size.
TEST(Scheduler, OneRankUnitsWithinMemory) {
    Scheduler s({{10, {}, {}, false, 60}, {10, {}, {}, false, 60}, {10, {}, {}, false, 30}, {10, {}, {}, false, 500}},
                {4}, 100, false, Scheduler::Memory{{100}, {}});
    auto a = s.assign();
    ASSERT_EQ(a.size(), 1u) << "the second waits for room, and nothing of lower priority passes it";
    s.released(a[0].unit, 0);
    s.finished(a[0].unit);
    a = s.assign();
    ASSERT_EQ(a.size(), 2u) << "60 and 30 bytes fit";
    for (const auto& x : a) {
        s.released(x.unit, 0);
        s.finished(x.unit);
    }
    a = s.assign();
    ASSERT_EQ(a.size(), 1u) << "the unit over the memory on the idle rank";
    EXPECT_EQ(a[0].unit, 3);
}

// The caller's own count of room (the one process gives up kept tables
// for it): asked with the working sets of the units on the rank and the
// one to start, only when another runs there.
TEST(Scheduler, CallersRoom) {
    std::vector<std::uint64_t> asked;
    bool room = false;
    Scheduler s({{10, {}, {}, false, 7}, {10, {}, {}, false, 5}}, {8}, 100, false,
                Scheduler::Memory{{}, [&](int rank, std::uint64_t bytes) {
                                      EXPECT_EQ(rank, 0);
                                      asked.push_back(bytes);
                                      return room;
                                  }});
    auto a = s.assign();
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(asked, std::vector<std::uint64_t>{12});
    room = true;
    a = s.assign();
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(asked.back(), 12u);
}

TEST(Scheduler, RefusesUnitsOutOfOrder) {
    EXPECT_THROW(Scheduler({{1, {1}, {1}}, {1, {}, {}}}, {1}, 100), std::logic_error);
}

// The progress shown: positions a resumed material restored from its
// checkpoint are no longer left, as those solved are not.
TEST(Progress, RestoredLevelsAreNotLeft) {
    Progress progress(BuildOptions::Output::quiet, 2, 1000);
    EXPECT_EQ(progress.left(), 1000u);
    progress.restored(300);
    progress.positions(100);
    EXPECT_EQ(progress.left(), 600u);
    progress.positions(700);
    EXPECT_EQ(progress.left(), 0u);
}

}  // namespace
}  // namespace dtb
