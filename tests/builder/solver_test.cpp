// dtb build against the brute-force solver written in the tests
// (tests/probe/brute_force.hpp: forward fixpoint iteration, sharing only the
// move generator with the builder): every position of every material built,
// either side to move, read back from the written tables through the probe
// library, must have the brute-force value and distance.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "builder/driver/build.hpp"
#include "builder/driver/executor.hpp"
#include "builder/driver/material_job.hpp"
#include "draughts/notation.hpp"
#include "draughts/variant.hpp"
#include "probe/prober.hpp"
#include "tests/builder/big_pairs.hpp"
#include "tests/probe/brute_force.hpp"
#include "tests/test_size.hpp"

namespace dtb {
namespace {

// Builds every material of up to `pieces` pieces with `memory` bytes for
// solved tables (0: the default; small: dependencies read from the files)
// and the solver's options, and compares every position with the
// brute-force solver.
template <class V>
void check_build(int pieces, std::uint64_t memory = 0, const SolverOptions& solver = {}) {
    constexpr int N = V::board_size;
    const std::vector<Material> targets = materials_up_to(pieces);
    const test::BruteForce<V> truth(targets);
    const test::TemporaryDirectory dir{"solver-" + std::string(V::name)};
    BuildOptions o;
    o.variant = std::string(V::name);
    o.targets = targets;
    o.dir = dir.path();
    o.memory_bytes = memory;
    o.solver = solver;
    o.block_shift = 10;
    o.wld_compression_level = 3;
    o.output = BuildOptions::Output::quiet;
    const BuildReport report = build_tables_of<V>(o);
    ASSERT_EQ(report.materials.size(), build_order(targets).size());

    const Prober<V> prober(dir.path());
    std::uint64_t positions = 0, wins = 0, draws = 0;
    for (const Material& c : build_order(targets)) {
        const Index<N> own(c), mirror(c.mirrored());
        const std::uint64_t size = static_cast<std::uint64_t>(sides_of(c)) * own.size();
        for (std::uint64_t g = 0; g < size; ++g) {
            const auto p = test::position_of(own, mirror, g);
            const test::Score s = truth.score(p);
            const Value v = prober.value(p);
            ASSERT_EQ(static_cast<int>(v.wdl), s.wdl) << c.name() << " " << draughts::to_fen(p);
            ASSERT_EQ(v.plies, s.plies) << c.name() << " " << draughts::to_fen(p);
            ++positions;
            wins += s.wdl == 1;
            draws += s.wdl == 0;
        }
    }
    // Each kind of value occurs, so that the comparison means something.
    EXPECT_GT(wins, 0u);
    EXPECT_GT(draws, 0u);
    std::printf("%s up to %d pieces: %llu positions agree (%llu wins, %llu draws)\n", std::string(V::name).c_str(),
                pieces, static_cast<unsigned long long>(positions), static_cast<unsigned long long>(wins),
                static_cast<unsigned long long>(draws));
}

TEST(Solver, AmericanUpTo3) { check_build<draughts::American>(3); }
TEST(Solver, BrazilianUpTo3) { check_build<draughts::Brazilian>(3); }
TEST(Solver, RussianUpTo3) { check_build<draughts::Russian>(3); }
TEST(Solver, InternationalUpTo3) { check_build<draughts::International>(3); }
TEST(Solver, CanadianUpTo3) { check_build<draughts::Canadian>(3); }
// Up to 4 pieces in the sanitizer builds (test_size.hpp).
TEST(Solver, International6UpTo5) { check_build<draughts::International6>(test::full_or_small(5, 4)); }
TEST(Solver, American6UpTo5) { check_build<draughts::American6>(test::full_or_small(5, 4)); }
// Dependencies read back from their files (the probe cache), not kept in memory.
TEST(Solver, DependenciesFromDisk) { check_build<draughts::Brazilian>(3, 1); }

// A job that reads tables through their files holds its prober's block
// cache in the build's count while the prober is open: the probe library's
// 64 MiB, or a sixteenth of the budget where that is less, at least 1 MiB;
// halved while it does not fit beside what is held (not below 1 MiB).
TEST(Solver, ProbeCacheOfAJobIsCounted) {
    const test::TemporaryDirectory dir{"job-prober"};
    std::filesystem::create_directories(dir.path() / "brazilian");
    constexpr std::uint64_t mib = 1 << 20;
    for (const auto& [budget, cache] : {std::pair{std::uint64_t{8} << 30, 64 * mib}, std::pair{32 * mib, 2 * mib},
                                        std::pair{std::uint64_t{1}, mib}}) {
        KeptTables kept(budget);
        {
            const JobProber<draughts::Brazilian> prober(dir.path(), &kept);
            EXPECT_EQ(kept.bytes(), cache) << budget;
        }
        EXPECT_EQ(kept.bytes(), 0u);
        EXPECT_EQ(kept.counts().peak_bytes, cache);
    }
    KeptTables kept(std::uint64_t{1} << 30);
    kept.hold((std::uint64_t{1} << 30) - 20 * mib);  // a job's working set: 20 MiB left
    {
        const JobProber<draughts::Brazilian> prober(dir.path(), &kept);
        EXPECT_EQ(kept.bytes(), (std::uint64_t{1} << 30) - 20 * mib + 16 * mib);
    }
    kept.hold(20 * mib);  // none left
    {
        const JobProber<draughts::Brazilian> prober(dir.path(), &kept);
        EXPECT_EQ(kept.bytes(), (std::uint64_t{1} << 30) + mib);
    }
}
// A kept table let go of to make room (packed first, its packed form on
// disk) is read from its packed form when a later job reads it whole; with
// its packed form gone (as when the disk was full), from its table file, its
// capture positions solved again. Both give the values solved, and each
// way is counted. (cli.build runs whole builds at budgets that let tables
// go; which tables are read again, and how, depends there on which jobs
// happen to run at once.)
TEST(Solver, LetGoTablesAreReadAgain) {
    using V = draughts::Brazilian;
    const test::TemporaryDirectory dir{"let-go"};
    BuildOptions o;
    o.variant = "brazilian";
    o.dir = dir.path();
    o.targets = {Material::parse("KMvK")};  // KKvK's successors, and the materials they lead to
    o.output = BuildOptions::Output::quiet;
    build_tables_of<V>(o);
    const Material m = Material::parse("KKvK");
    const std::vector<Material> readers = {Material::parse("KKvKK")}, others = {Material::parse("MvM")};
    const KeptTables::Reads reads{readers, TableKind::dtw}, other{others, TableKind::dtw};
    constexpr std::uint64_t budget = std::uint64_t{64} << 20;
    Executor<V> executor(o, budget, true);
    KeptTables& kept = executor.kept();
    kept.add_use(m, TableKind::dtw);  // a later job reads it
    Executor<V>::Job job;
    job.pack = true;
    job.hold = true;
    executor.solve_plain(m, job);
    const HugePagedVector<std::uint16_t> solved = kept.find_whole(m)->codes;
    ASSERT_EQ(solved.size(), Index<8>(m).size() * 2);
    // Its successors were read back from their files for the solve, and kept.
    const std::shared_ptr<const SolvedValues> successor = kept.find_whole(Material::parse("KvK"));
    ASSERT_TRUE(successor);
    const TableStoreCounts before = executor.store().counts();
    EXPECT_EQ(before.read_packed, 0);

    const auto let_go = [&] {
        ASSERT_TRUE(kept.make_room(budget - successor->bytes(), &other));  // for a job that does not read m
        EXPECT_EQ(kept.bytes(), successor->bytes());  // held by this test, not let go
        EXPECT_FALSE(kept.find_whole(m));
    };
    let_go();
    EXPECT_EQ(kept.counts().let_go, 1);
    std::shared_ptr<const SolvedValues> values = executor.store().whole(m, reads);
    ASSERT_TRUE(values);
    EXPECT_EQ(values->codes, solved);
    EXPECT_EQ(executor.store().counts().read_packed, 1);
    EXPECT_EQ(executor.store().counts().read_back.tables, before.read_back.tables);

    values.reset();
    let_go();
    EXPECT_EQ(kept.counts().let_go, 2);
    std::filesystem::remove(packed_file(dir.path() / "brazilian", m, TableKind::dtw));
    values = executor.store().whole(m, reads);
    ASSERT_TRUE(values);
    EXPECT_EQ(values->codes, solved);
    EXPECT_EQ(executor.store().counts().read_packed, 1);
    EXPECT_EQ(executor.store().counts().read_back.tables, before.read_back.tables + 1);
}

// Every pair of 16 positions or more solved as a big one (block order), on
// one thread beside the others (plain states), or with every thread inside
// (atomic states, buckets in parallel chunks): the pairs of these boards are
// too small to be big otherwise. Three threads, more than the cores, to mix
// the pairs and the chunks.
TEST(Solver, BigPairsOneAThread) {
    const tbb::global_control threads(tbb::global_control::max_allowed_parallelism, 3);
    check_build<draughts::International6>(4, 0, test::big_pairs(16, 1));
    check_build<draughts::American>(3, 0, test::big_pairs(16, 1));
}
TEST(Solver, BigPairsWithEveryThread) {
    const tbb::global_control threads(tbb::global_control::max_allowed_parallelism, 3);
    check_build<draughts::International6>(4, 0, test::big_pairs(16, ~std::uint64_t{0}));
    check_build<draughts::American>(3, 0, test::big_pairs(16, ~std::uint64_t{0}));
}

// Every material held a level at a time (LevelValues: the level being solved
// and the one above as codes, the levels left behind packed in bands of the
// table and put together at the end): materials of few and of many king
// placements a men configuration, symmetric ones, big pairs on one thread
// and with every thread inside, and the 12x12 board's 128-bit squares; the
// tables written, kept and read again from their packed form.
// International 6x6 up to 4 pieces in the sanitizer builds.
TEST(Solver, LevelByLevel) {
    SolverOptions levels;
    levels.levels_from_positions = 0;
    check_build<draughts::International6>(test::full_or_small(5, 4), 0, levels);
    check_build<draughts::Canadian>(2, 0, levels);
    check_build<draughts::Brazilian>(3, 1, levels);  // kept packed, then read from the packed forms on disk
    const tbb::global_control threads(tbb::global_control::max_allowed_parallelism, 3);
    check_build<draughts::American>(3, 0, test::big_pairs(16, 1, 0));
    check_build<draughts::International6>(4, 0, test::big_pairs(16, ~std::uint64_t{0}, 0));
}

// The tables of a build of `variant` up to `pieces` pieces in a folder of
// its own (SOURCE_DATE_EPOCH set: the provenance's date fixed).
std::unique_ptr<test::TemporaryDirectory> build_in(const std::string& variant, int pieces, const char* name,
                                                   const SolverOptions& solver = {}, std::uint64_t memory = 0,
                                                   bool rules = false) {
    auto dir = std::make_unique<test::TemporaryDirectory>(name);
    BuildOptions o;
    o.variant = variant;
    o.targets = materials_up_to(pieces);
    o.dir = dir->path();
    o.solver = solver;
    o.memory_bytes = memory;
    o.rules = rules;
    o.output = BuildOptions::Output::quiet;
    build_tables(o);
    return dir;
}

// The files of `variant` with these extensions in `a`, each compared byte
// for byte with its namesake in `b`: how many.
int expect_same_files(const std::filesystem::path& a, const std::filesystem::path& b, const std::string& variant,
                      const std::vector<std::string>& extensions) {
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(a / variant)) {
        if (std::find(extensions.begin(), extensions.end(), entry.path().extension().string()) == extensions.end())
            continue;
        EXPECT_TRUE(test::file_bytes(entry.path()) == test::file_bytes(b / variant / entry.path().filename())) << entry.path().filename();
        ++files;
    }
    return files;
}

// The materials of up to 4 pieces, one colour of each pair that are each
// other's mirror image: 3 of two pieces (a king or a man a side, a king
// against a man counted once), 6 of three (a side of two: KK, KM or MM,
// against K or M), 8 of three against one and 6 of two against two. The
// sanitizer builds (test_size.hpp) build up to 3 pieces.
constexpr int test_pieces = test::full_or_small(4, 3);
constexpr int test_materials = test::full_or_small(3 + 6 + 8 + 6, 3 + 6);

// By levels the tables come out byte for byte as from the whole material,
// here with bands of 2^12 positions, so that the table is put together in
// windows of one frame and bands cross from one window to the next. Every
// .wld and .dtw of International up to 4 (42.8 million positions, its
// largest materials 2.8 million, 126 king placements a configuration and
// more) is compared; up to 3 in the sanitizer builds.
TEST(Solver, LevelByLevelGivesTheSameBytes) {
    ASSERT_EQ(setenv("SOURCE_DATE_EPOCH", "1767225600", 1), 0);
    SolverOptions levels;
    levels.levels_from_positions = 0;
    levels.level_band_positions = std::uint64_t{1} << 12;
    const auto whole = build_in("international", test_pieces, "levels-whole");
    const auto by_levels = build_in("international", test_pieces, "levels-by-levels", levels);
    EXPECT_EQ(expect_same_files(whole->path(), by_levels->path(), "international", {".wld", ".dtw"}),
              2 * test_materials);
    unsetenv("SOURCE_DATE_EPOCH");
}

// The rule solves by levels too (RuleSolver, LevelValues with rule codes):
// every .rul of International up to 4 (flying kings; all its materials
// have one; up to 3 in the sanitizer builds) and of Russian up to 4 (KKKvK, with its main
// road, held whole; some materials refused by the rules, the same ones
// either way) byte for byte as whole, with bands of 2^12 positions.
TEST(Solver, RulesLevelByLevelGiveTheSameBytes) {
    ASSERT_EQ(setenv("SOURCE_DATE_EPOCH", "1767225600", 1), 0);
    SolverOptions levels;
    levels.levels_from_positions = 0;
    levels.level_band_positions = std::uint64_t{1} << 12;
    for (const std::string variant : {"international", "russian"}) {
        const int pieces = variant == "international" ? test_pieces : 4;  // Russian: KKKvK
        const auto whole = build_in(variant, pieces, "rules-whole", {}, 0, true);
        const auto by_levels = build_in(variant, pieces, "rules-by-levels", levels, 0, true);
        const int files = expect_same_files(whole->path(), by_levels->path(), variant, {".rul"});
        EXPECT_EQ(expect_same_files(by_levels->path(), whole->path(), variant, {".rul"}), files) << variant;
        if (variant == "international") {
            EXPECT_EQ(files, test_materials);
        }
        EXPECT_GT(files, 1) << variant;  // KKKvK and more
    }
    unsetenv("SOURCE_DATE_EPOCH");
}

// A rule job never needs more than the plain job of its material at its
// least (what `dtb info` prints and `--memory` is refused below): whole
// where the plain job is whole, by levels in the plain job's levels, and
// with no budget at all (every rule solve as small as it goes). Every
// material of Canadian and Russian (a main road) up to 6 pieces that the
// rules do not refuse.
// Returns how many rule jobs go by levels.
template <class V>
int expect_rules_within_plain(int pieces) {
    int by_levels = 0;
    for (const Material& target : materials_up_to(pieces)) {
        const Material m = target.canonical();
        try {
            governing_count<typename V::draw_rules>(m);
        } catch (const RulesRefused&) {
            continue;  // no rule job
        }
        const WorkingSet plain = plain_working_set<V>(m, 1, 0, SolverOptions{});
        const WorkingSet rules = rule_working_set<V>(m, 0, SolverOptions{});
        EXPECT_LE(rules.bytes, plain.bytes) << m.name();
        by_levels += rules.options.levels_from_positions == 0;
    }
    return by_levels;
}
TEST(Solver, RuleJobsWithinThePlainWorkingSet) {
    EXPECT_GT(expect_rules_within_plain<draughts::Canadian>(6), 0);
    expect_rules_within_plain<draughts::Russian>(6);  // small boards: every rule job whole
}

// With 1 KB of memory (less than `dtb build` allows; the library runs over
// it where it must) no rule values are kept: the rule solves read those
// they lead to through the probe from their .rul files. The same .rul
// files as with the default memory, Brazilian up to 4 (3 in the sanitizer
// builds).
TEST(Solver, RulesWithLittleMemory) {
    ASSERT_EQ(setenv("SOURCE_DATE_EPOCH", "1767225600", 1), 0);
    const auto plenty = build_in("brazilian", test_pieces, "rules-plenty", {}, 0, true);
    const auto little = build_in("brazilian", test_pieces, "rules-little", {}, 1024, true);
    EXPECT_EQ(expect_same_files(plenty->path(), little->path(), "brazilian", {".rul", ".wld", ".dtw"}),
              3 * test_materials);
    unsetenv("SOURCE_DATE_EPOCH");
}

// Published endgame theory, Russian draughts: three kings against a lone king
// that is not on the main road (the long diagonal a1-h8, squares 29, 25, 22,
// 18, 15, 11, 8, 4) and attacks none of them always win, and are never forced to take more than 13
// moves (Petrov's triangle; A. D. Petrov, 1827, and the Russian manuals that
// teach it): with White to move, every such position is a win in at most
// 2 x 13 - 1 = 25 plies, and some need all 13 moves. A lone king on the main
// road draws: Black to move from d4 (18) against kings on c1, e1, g1.
TEST(PublishedResults, RussianThreeKingsAgainstOne) {
    using V = draughts::Russian;
    const test::TemporaryDirectory dir{"published-russian"};
    BuildOptions o;
    o.variant = "russian";
    o.targets = {Material::parse("KKKvK")};
    o.dir = dir.path();
    o.output = BuildOptions::Output::quiet;
    build_tables(o);
    const Prober<V> prober(dir.path());
    const std::uint64_t main_road = [] {
        std::uint64_t b = 0;
        for (int square : {29, 25, 22, 18, 15, 11, 8, 4})
            b |= draughts::bit<std::uint64_t>(V::geometry::bit_of_square(square - 1));
        return b;
    }();
    const Index<8> index(Material::parse("KKKvK"));
    int longest = 0;
    std::uint64_t off_road = 0;
    for (std::uint64_t i = 0; i < index.size(); ++i) {
        const auto p = index.unrank(i);
        if (p.black & main_road) continue;
        // Not when the lone king attacks a king: the theory starts from
        // positions where no king hangs (a fork of two kings draws).
        auto threat = p;
        threat.side_to_move = draughts::Color::black;
        if (draughts::has_capture<V>(threat)) continue;
        const Value v = prober.value(p);
        ASSERT_EQ(v.wdl, Wdl::win) << draughts::to_fen(p);
        longest = std::max(longest, v.plies);
        ++off_road;
    }
    EXPECT_EQ(longest, 25);
    EXPECT_GT(off_road, 50000u);  // of 143,840 placements
    // Petrov's own position: kings a1, c1, e1 against f8.
    const Value petrov = prober.value(draughts::parse_fen<8>("W:WK29,K30,K31:BK3"));
    EXPECT_EQ(petrov.wdl, Wdl::win);
    EXPECT_LE(petrov.plies, 25);
    EXPECT_EQ(prober.value(draughts::parse_fen<8>("B:WK30,K31,K32:BK18")).wdl, Wdl::draw);
}

}  // namespace
}  // namespace dtb
