// The distributed solver (a team of members, builder/solver/material_solver.hpp) against the
// brute-force solver written in the tests (tests/probe/brute_force.hpp), with
// the team's members as threads of this process (thread_team.hpp). Teams
// build every material in dependency order into a directory of their own,
// each team reading the tables earlier teams wrote (solve_in_team, as the
// MPI driver calls it); then every position of every table, probed, must
// have the brute-force value and distance, and every file must be byte for
// byte the one-process build's. The options force every way a team shares
// work: pairs split over all members (their queues worked in step), whole
// pairs shared out, lookups and updates in many small rounds, the tables a
// material leads to shared out, held whole by every member, or some of each.
// share_packed(), the way members pass tables, is checked on its own in many
// rounds.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>

#include "builder/driver/build.hpp"
#include "builder/driver/material_job.hpp"
#include "builder/values/table_loader.hpp"
#include "builder/team/team_options.hpp"
#include "builder/team/team_tables.hpp"
#include "builder/values/kept_tables.hpp"
#include "draughts/variant.hpp"
#include "tests/builder/thread_team.hpp"
#include "tests/probe/brute_force.hpp"
#include "tests/test_size.hpp"

namespace dtb {
namespace {

// Which tables a material leads to every member holds whole: none, all,
// those that fit a small cache, or all with member 0 the only one to have
// them at first (half of them kept from before, half fetched from
// elsewhere), sending them to the others.
enum class Held { none, all, some, passed };

template <class V>
void check_team(int pieces, int members, const TeamOptions& options, Held held = Held::none) {
    constexpr int N = V::board_size;
    setenv("SOURCE_DATE_EPOCH", "1767225600", 1);  // the same provenance in both builds
    const std::vector<Material> targets = materials_up_to(pieces);
    const test::BruteForce<V> truth(targets);
    BuildOptions o;
    o.variant = std::string(V::name);
    o.targets = targets;
    o.block_shift = 10;
    o.wld_compression_level = 1;
    o.dtw_compression_level = 1;
    o.output = BuildOptions::Output::quiet;
    o.team = options;
    const test::TemporaryDirectory reference{"team-reference-" + std::string(V::name)};
    o.dir = reference.path();
    build_tables_of<V>(o);

    const test::TemporaryDirectory teams{"team-" + std::string(V::name)};
    o.dir = teams.path();
    const std::filesystem::path variant_dir = teams.path() / std::string(V::name);
    std::filesystem::create_directories(variant_dir);
    int index = 0;
    // Each member's kept tables, from material to material as a rank keeps them.
    std::vector<std::unique_ptr<KeptTables>> caches;
    for (int j = 0; j < members; ++j)
        caches.push_back(std::make_unique<KeptTables>(held == Held::some ? 200000 : ~std::uint64_t{0}));
    for (const Material& m : build_order(targets)) {
        TableSources fetch;
        if (held == Held::passed) {
            const Prober<V> reference_tables(reference.path());
            for (auto& c : caches) c = std::make_unique<KeptTables>(~std::uint64_t{0});
            auto from_reference = [&](const Material& s) {
                const TableFile file = open_dtw_table<V>(reference.path() / std::string(V::name), s);
                return std::make_shared<const SolvedValues>(load_solved_values<V>(
                    file, Successors<V>({}, &reference_tables), 0, file.header().table_blocks()));
            };
            for (const Material& s : successors(m))
                if (s.pieces() % 2 == 1) caches[0]->keep(from_reference(s));
            fetch.whole = [&](const Material& s) -> std::shared_ptr<const SolvedValues> {
                return s.pieces() % 2 == 0 ? from_reference(s) : nullptr;
            };
            test::ThreadTeams::run(members, [&](Team& team) {
                solve_in_team<V>(team, o, variant_dir, m, caches[team.rank()].get(),
                                 team.rank() == 0 ? fetch : TableSources{});
            });
        } else {
            test::ThreadTeams::run(members, [&](Team& team) {
                solve_in_team<V>(team, o, variant_dir, m, held == Held::none ? nullptr : caches[team.rank()].get());
            });
        }
        for (TableKind kind : {TableKind::wld, TableKind::dtw}) {
            const std::string name = table_file_name(m, kind);
            ASSERT_TRUE(test::file_bytes(variant_dir / name) == test::file_bytes(reference.path() / std::string(V::name) / name))
                << name << " written by the team differs from the one-process build's";
        }
        ++index;
    }

    const Prober<V> prober(teams.path());
    std::uint64_t positions = 0;
    for (const Material& m : build_order(targets)) {
        const Index<N> own(m), mirror(m.mirrored());
        const std::uint64_t size = static_cast<std::uint64_t>(sides_of(m)) * own.size();
        for (std::uint64_t g = 0; g < size; ++g) {
            const auto p = test::position_of(own, mirror, g);
            const test::Score s = truth.score(p);
            const Value v = prober.value(p);
            ASSERT_EQ(static_cast<int>(v.wdl), s.wdl) << m.name() << " " << draughts::to_fen(p);
            ASSERT_EQ(v.plies, s.plies) << m.name() << " " << draughts::to_fen(p);
        }
        positions += size;
    }
    std::printf("%s up to %d pieces, teams of %d: %d materials, %llu positions agree\n", std::string(V::name).c_str(),
                pieces, members, index, static_cast<unsigned long long>(positions));
}

// Every pair split over the team, lookups and updates a few at a time.
TeamOptions split_everything() {
    TeamOptions o;
    o.uneven_deal = -1;
    o.min_split_positions = 1;
    o.lookup_positions = 300;
    o.update_positions = 40;
    return o;
}

// Whole pairs shared out (the default when a level has many), a level in
// many stages.
TeamOptions whole_pairs() {
    TeamOptions o;
    o.uneven_deal = 1e9;
    o.lookup_positions = 5000;
    o.stage_positions = 2000;
    return o;
}

// Whole pairs shared out and solved with all threads each (small pairs count as big).
TeamOptions whole_shared_pairs() {
    TeamOptions o = whole_pairs();
    o.shared_pair_positions = 16;
    o.lookup_positions = 700;
    return o;
}

// Every table that fits held whole, however big against the material.
TeamOptions hold_all(TeamOptions o) {
    o.held_ratio = 1e30;
    return o;
}

TEST(TeamSolver, BrazilianSplit2) { check_team<draughts::Brazilian>(3, 2, split_everything()); }
TEST(TeamSolver, BrazilianWhole3HeldSome) { check_team<draughts::Brazilian>(3, 3, whole_pairs(), Held::some); }
TEST(TeamSolver, AmericanSplit3HeldAll) { check_team<draughts::American>(3, 3, hold_all(split_everything()), Held::all); }
TEST(TeamSolver, RussianWhole2) { check_team<draughts::Russian>(3, 2, whole_pairs()); }
TEST(TeamSolver, InternationalDefault3HeldAll) { check_team<draughts::International>(3, 3, TeamOptions{}, Held::all); }
TEST(TeamSolver, CanadianSplit2HeldSome) { check_team<draughts::Canadian>(3, 2, split_everything(), Held::some); }
TEST(TeamSolver, International6Split3) { check_team<draughts::International6>(4, 3, split_everything()); }
TEST(TeamSolver, International6Whole2HeldSome) {
    check_team<draughts::International6>(4, 2, whole_pairs(), Held::some);
}
TEST(TeamSolver, InternationalWholeShared2) { check_team<draughts::International>(3, 2, whole_shared_pairs()); }
TEST(TeamSolver, American6WholeShared3HeldAll) {
    check_team<draughts::American6>(4, 3, hold_all(whole_shared_pairs()), Held::all);
}
TEST(TeamSolver, American6Default4) { check_team<draughts::American6>(4, 4, TeamOptions{}); }
// The default deal on 2 members: Brazilian materials of one man and kings
// have 4 men configurations a level, dealt 2 each as whole pairs (before
// TeamOptions::uneven_deal, split: fewer than 8 a member). Up to 3 pieces
// in the sanitizer builds (KMvK, KKvM).
TEST(TeamSolver, BrazilianDefault2) { check_team<draughts::Brazilian>(test::full_or_small(4, 3), 2, TeamOptions{}); }
// The default deal on 3 members with small pairs split too: a level of 4
// configurations (Brazilian materials of one man and kings) is solved as 3
// whole pairs, one a member, then 1 split over the team; a level of fewer
// configurations than members is split whole.
TEST(TeamSolver, BrazilianDefault3WholeThenSplit) {
    TeamOptions o;
    o.min_split_positions = 1;
    o.lookup_positions = 300;
    o.update_positions = 40;
    check_team<draughts::Brazilian>(test::full_or_small(4, 3), 3, o);
}
TEST(TeamSolver, BrazilianWhole3Passed) { check_team<draughts::Brazilian>(3, 3, hold_all(whole_pairs()), Held::passed); }
TEST(TeamSolver, International6Split2Passed) {
    check_team<draughts::International6>(4, 2, hold_all(split_everything()), Held::passed);
}

// How a level is dealt (TeamOptions::uneven_deal): whole pairs where the
// member dealt most has at most an eighth more than the mean, worked by
// hand: 4 configurations on 2 members are 2 each; on 3 the most is 2 against
// a mean of 4/3; 17 on 2 are 9 against 8.5 (1.06); 15 on 2, 8 against 7.5
// (1.07); 9 on 4, 3 against 2.25; 32 on 4, 8 each; fewer configurations
// than members, or a negative slack, split.
TEST(TeamOptions, LevelsDealtWholeWhereEvenEnough) {
    constexpr double slack = TeamOptions{}.uneven_deal;
    EXPECT_TRUE(level_dealt_whole(4, 2, slack));
    EXPECT_FALSE(level_dealt_whole(4, 3, slack));
    EXPECT_TRUE(level_dealt_whole(17, 2, slack));
    EXPECT_TRUE(level_dealt_whole(15, 2, slack));
    EXPECT_FALSE(level_dealt_whole(9, 4, slack));
    EXPECT_TRUE(level_dealt_whole(32, 4, slack));
    EXPECT_FALSE(level_dealt_whole(1, 2, slack));
    EXPECT_FALSE(level_dealt_whole(4, 2, -1));
    EXPECT_TRUE(level_dealt_whole(5, 4, 1e9));
}

// Where a level is not dealt whole, the configurations that deal out evenly
// are (a multiple of the members, worked by hand), and the rest are split.
TEST(TeamOptions, ConfigurationsDealtWholeAreWhatDealsEvenly) {
    constexpr double slack = TeamOptions{}.uneven_deal;
    EXPECT_EQ(configurations_dealt_whole(4, 2, slack), 4u);
    EXPECT_EQ(configurations_dealt_whole(4, 3, slack), 3u);
    EXPECT_EQ(configurations_dealt_whole(5, 3, slack), 3u);
    EXPECT_EQ(configurations_dealt_whole(9, 4, slack), 8u);
    EXPECT_EQ(configurations_dealt_whole(17, 2, slack), 17u);
    EXPECT_EQ(configurations_dealt_whole(2, 3, slack), 0u);
    EXPECT_EQ(configurations_dealt_whole(1, 2, slack), 0u);
    EXPECT_EQ(configurations_dealt_whole(4, 3, -1), 0u);
}

// TeamTables::TurnedChildren, which finds where a position with Black to
// move is through the men configurations last met, against
// Successors::held_code() and TeamTables::locate(), which turn the position
// round and rank it whole: every child of every position of the table of a
// material that men and kings make (each with White to move), its
// captures' and promotions' children in successors held whole (every other
// one) or shared out (the rest).
TEST(TeamTables, TurnedChildrenAgreeWithHeldCodeAndLocate) {
    using V = draughts::Brazilian;
    constexpr int N = V::board_size;
    BuildOptions o;
    o.variant = std::string(V::name);
    o.targets = materials_up_to(4);
    o.output = BuildOptions::Output::quiet;
    const test::TemporaryDirectory dir{"turned-children"};
    o.dir = dir.path();
    build_tables(o);
    const std::filesystem::path variant_dir = dir.path() / std::string(V::name);
    const Prober<V> prober(dir.path());
    const Successors<V> loading({}, &prober);
    for (const char* name : {"KMvKM", "MMvKK"}) {
        const Material m = Material::parse(name).canonical();
        std::vector<std::shared_ptr<const SolvedValues>> whole;
        std::vector<Material> shared;
        for (const Material& s : successors(m)) {
            if (shared.size() > whole.size()) {
                const TableFile file = open_dtw_table<V>(variant_dir, s);
                whole.push_back(std::make_shared<SolvedValues>(
                    load_solved_values<V>(file, loading, 0, file.header().table_blocks())));
            } else {
                shared.push_back(s);
            }
        }
        ASSERT_FALSE(whole.empty()) << name;
        const Successors<V> held(whole, nullptr);
        test::ThreadTeams::run(2, [&](Team& team) {
            const TeamTables<V> tables(team, m, 10, shared, variant_dir, loading);
            typename TeamTables<V>::TurnedChildren turned(tables, held);
            const Index<N> own(m), mirror(m.mirrored());
            std::uint64_t children = 0, in_held = 0, in_shared = 0;
            for (std::uint64_t g = team.rank(); g < table_positions<N>(m); g += 2) {
                const draughts::Position<N> p = test::position_of(own, mirror, g);
                draughts::MoveList<N> moves;
                draughts::generate_moves<V>(p, moves);
                for (const draughts::Move<N>& move : moves) {
                    draughts::Position<N> child = p;
                    draughts::make_move(child, move);
                    const auto c = turned.find(child);
                    ++children;
                    if (const std::uint16_t* code = held.held_code(child)) {
                        ASSERT_EQ(c.code, code) << name << " " << draughts::to_fen(child);
                        in_held += child.black != 0;
                    } else {
                        ASSERT_EQ(c.code, nullptr) << name << " " << draughts::to_fen(child);
                        ASSERT_EQ(c.word, tables.locate(child)) << name << " " << draughts::to_fen(child);
                        in_shared += material_of(white_to_move(child)).canonical() != m;
                    }
                }
            }
            EXPECT_GT(in_held, 0u) << name;
            EXPECT_GT(in_shared, 0u) << name;
            EXPECT_GT(children, in_held + in_shared) << name;
        });
    }
}

// Every member's range, shared packed in parts of 192 positions (many
// rounds; members with more parts than others, one with none, a last range
// that ends inside a capture word), reaches every member code for code and
// mark for mark; so does one member's whole table.
TEST(SharePacked, EveryRangeReachesEveryMember) {
    const Material m = Material::parse("KKvK").canonical();
    const std::uint64_t per_side = 1000;  // 2000 positions
    SolvedValues expected(m, per_side);
    std::mt19937_64 random(11);
    for (std::uint64_t g = 0; g < expected.codes.size(); ++g) {
        expected.codes[g] = static_cast<std::uint16_t>(g / 7 % 5 == 0 ? random() : g / 50);
        if (random() % 9 == 0) expected.mark_capture(g);
    }
    const std::vector<std::uint64_t> first{0, 640, 640, 1024}, count{640, 0, 384, 976};
    test::ThreadTeams::run(4, [&](Team& team) {
        SolvedValues whole(m, per_side);
        const int me = team.rank();
        for (std::uint64_t g = first[me]; g < first[me] + count[me]; ++g) {
            whole.codes[g] = expected.codes[g];
            if (expected.has_capture(g)) whole.mark_capture(g);
        }
        share_packed(team, whole, first, count, 192);
        EXPECT_EQ(whole.codes, expected.codes) << "member " << me;
        EXPECT_EQ(whole.capture, expected.capture) << "member " << me;
        // Member 2 has it all and sends it to the others.
        const auto source = std::make_shared<const SolvedValues>(expected);
        const auto got = send_whole_in_team(team, 2, me == 2 ? source : nullptr, m, per_side);
        EXPECT_EQ(got->codes, expected.codes) << "member " << me;
        EXPECT_EQ(got->capture, expected.capture) << "member " << me;
    });
}

}  // namespace
}  // namespace dtb
