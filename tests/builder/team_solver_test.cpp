// The distributed solver (a team of members, builder/solver.hpp) against the
// brute-force solver written in the tests (tests/probe/brute_force.hpp), with
// the team's members as threads of this process (thread_team.hpp): every
// position of every material solved by the team, gathered from the members'
// ranges, must have the brute-force value and distance. The options force
// every way the team shares work: pairs split over all members (their queues
// worked in step), whole pairs shared out, lookups and updates in many small
// rounds. The tables the team writes must be byte for byte those of the
// one-process build.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "builder/build.hpp"
#include "builder/solver.hpp"
#include "builder/material_job.hpp"
#include "builder/team_tables.hpp"
#include "draughts/variant.hpp"
#include "tests/builder/thread_team.hpp"
#include "tests/probe/brute_force.hpp"

namespace dtb {
namespace {

// Builds every material up to `pieces` in one process (so that a team finds
// the tables it reads), then solves each material again with a team of
// `members`, and compares every position with the brute-force solver.
template <class V>
void check_team(int pieces, int members, const TeamOptions& options, int block_shift = 10) {
    constexpr int N = V::board_size;
    const std::vector<Material> targets = materials_up_to(pieces);
    const test::BruteForce<V> truth(targets);
    const test::TemporaryDirectory dir{"team-" + std::string(V::name)};
    BuildOptions o;
    o.variant = std::string(V::name);
    o.targets = targets;
    o.dir = dir.path();
    o.block_shift = block_shift;
    o.wld_compression_level = 1;
    o.dtw_compression_level = 1;
    o.output = BuildOptions::Output::quiet;
    build_tables(o);

    const std::filesystem::path variant_dir = dir.path() / std::string(V::name);
    const test::TemporaryDirectory written{"team-written-" + std::string(V::name)};
    std::uint64_t positions = 0;
    for (const Material& m : build_order(targets)) {
        std::vector<SolvedValues> parts(members);
        test::ThreadTeams::run(members, [&](Team& team) {
            const Prober<V> prober(dir.path());
            TeamTables<V> tables(team, m, block_shift, successors(m), variant_dir, prober);
            const SolvedValues& part = parts[team.rank()] = MaterialSolver<V>(m, team, tables, options).solve();
            // The same tables as the one-process build's, provenance included.
            TableSpec spec = table_spec(o, N, m, part.positions_per_side, part.max_code);
            spec.provenance = open_dtw_table<V>(variant_dir, m).header().provenance;
            write_tables(team, written.path(), spec, part.first, part.codes.size(), value_source(part));
        });
        for (TableKind kind : {TableKind::wld, TableKind::dtw}) {
            auto bytes = [](const std::filesystem::path& file) {
                std::ifstream in(file, std::ios::binary);
                return std::string(std::istreambuf_iterator<char>(in), {});
            };
            const std::string name = table_file_name(m, kind);
            ASSERT_TRUE(bytes(written.path() / name) == bytes(variant_dir / name)) << name << " differs";
        }
        const Index<N> own(m), mirror(m.mirrored());
        const std::uint64_t size = static_cast<std::uint64_t>(sides_of(m)) * own.size();
        std::uint64_t covered = 0;
        std::uint32_t max_code = 0;
        for (int j = 0; j < members; ++j) {
            const SolvedValues& part = parts[j];
            ASSERT_EQ(part.first, covered) << m.name() << ": member " << j << "'s range";
            ASSERT_EQ(part.max_code, parts[0].max_code) << m.name();
            for (std::uint64_t g = part.first; g < part.first + part.codes.size(); ++g) {
                const auto p = test::position_of(own, mirror, g);
                ASSERT_EQ(part.code(g), truth.code(m, g)) << m.name() << " " << draughts::to_fen(p);
                ASSERT_EQ(part.has_capture(g), draughts::has_capture<V>(p)) << m.name() << " " << draughts::to_fen(p);
                if (!part.has_capture(g)) max_code = std::max<std::uint32_t>(max_code, part.code(g));
            }
            covered += part.codes.size();
        }
        ASSERT_EQ(covered, size) << m.name();
        EXPECT_EQ(parts[0].max_code, max_code) << m.name();
        positions += size;
    }
    std::printf("%s up to %d pieces, a team of %d: %llu positions agree\n", std::string(V::name).c_str(), pieces,
                members, static_cast<unsigned long long>(positions));
}

// Every pair split over the team, lookups and updates a few at a time.
TeamOptions split_everything() {
    TeamOptions o;
    o.configurations_per_member = ~std::uint64_t{0} >> 8;
    o.min_split_positions = 1;
    o.lookup_positions = 300;
    o.update_positions = 40;
    return o;
}

// Whole pairs shared out (the default when a level has many).
TeamOptions whole_pairs() {
    TeamOptions o;
    o.configurations_per_member = 1;
    o.lookup_positions = 5000;
    return o;
}

// Whole pairs shared out and solved with all threads each (small pairs count as big).
TeamOptions whole_shared_pairs() {
    TeamOptions o = whole_pairs();
    o.shared_pair_positions = 16;
    o.lookup_positions = 700;
    return o;
}

TEST(TeamSolver, BrazilianSplit2) { check_team<draughts::Brazilian>(3, 2, split_everything()); }
TEST(TeamSolver, BrazilianWhole3) { check_team<draughts::Brazilian>(3, 3, whole_pairs()); }
TEST(TeamSolver, AmericanSplit3) { check_team<draughts::American>(3, 3, split_everything()); }
TEST(TeamSolver, RussianWhole2) { check_team<draughts::Russian>(3, 2, whole_pairs()); }
TEST(TeamSolver, InternationalDefault3) { check_team<draughts::International>(3, 3, TeamOptions{}); }
TEST(TeamSolver, CanadianSplit2) { check_team<draughts::Canadian>(3, 2, split_everything()); }
TEST(TeamSolver, International6Split3) { check_team<draughts::International6>(4, 3, split_everything()); }
TEST(TeamSolver, International6Whole2) { check_team<draughts::International6>(4, 2, whole_pairs()); }
TEST(TeamSolver, InternationalWholeShared2) { check_team<draughts::International>(3, 2, whole_shared_pairs()); }
TEST(TeamSolver, American6WholeShared3) { check_team<draughts::American6>(4, 3, whole_shared_pairs()); }
TEST(TeamSolver, American6Default4) { check_team<draughts::American6>(4, 4, TeamOptions{}); }

}  // namespace
}  // namespace dtb
