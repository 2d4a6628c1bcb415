// The rule solver (builder/solver/rule_solver.hpp) against the brute-force player
// of the draw rules (tests/builder/rule_brute_force.hpp): every position of
// every material solved, either side to move, at every count from 0 to the
// limit, must be won, drawn or lost as the rule distance says.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include <tbb/global_control.h>

#include "builder/solver/rule_solver.hpp"
#include "builder/output/table_writer.hpp"
#include "builder/output/convert.hpp"
#include "builder/output/verify.hpp"
#include "probe/rule_prober.hpp"
#include "probe/table_file.hpp"
#include "draughts/notation.hpp"
#include "draughts/variant.hpp"
#include "tests/builder/big_pairs.hpp"
#include "tests/builder/rule_brute_force.hpp"
#include "tests/probe/brute_force.hpp"
#include "tests/probe/synthetic_tables.hpp"

namespace dtb {
namespace {

// Whether a position whose count stands at c (budget limit - c) is won (+1), lost (-1) or drawn.
int under_rules(Value v, int budget) {
    if (v.wdl == Wdl::draw || v.plies > budget) return 0;
    return v.wdl == Wdl::win ? 1 : -1;
}

struct Tally {
    std::uint64_t positions = 0, compared = 0, twins = 0, wins = 0, losses = 0, draws = 0, refused = 0;
};

// Solves the rule values of every material of `targets` and all they lead to
// (materials the rules refuse, and those leading to them, left out) and
// compares each with the brute force.
template <class V>
void check_rules(const std::vector<Material>& targets, Tally& tally, bool literal_road = false) {
    constexpr int N = V::board_size;
    RuleSuccessors<V> held;
    test::RuleBruteForce<V> truth(literal_road);
    std::set<Material> refused;
    for (const Material& c : build_order(targets)) {
        bool leads_to_refused = false;
        for (const Material& s : successors(c)) leads_to_refused |= refused.count(s) > 0;
        if (leads_to_refused) {
            refused.insert(c);
            ++tally.refused;
            continue;
        }
        std::shared_ptr<RuleValues> values;
        try {
            values = std::make_shared<RuleValues>(std::get<RuleValues>(RuleSolver<V>(c, held, literal_road).solve()));
        } catch (const RulesRefused&) {
            refused.insert(c);
            ++tally.refused;
            continue;
        }
        const Index<N> own(c), mirror(c.mirrored());
        const std::uint64_t size = static_cast<std::uint64_t>(sides_of(c)) * own.size();
        const GoverningCount& count = values->count;
        for (std::uint64_t g = 0; g < size; ++g) {
            auto p = test::position_of(own, mirror, g);
            if (g >= own.size()) p = p.flipped();  // Black to move, as on the board
            const Value v = value_of_rule_code(values->codes[g]);
            ++tally.positions;
            tally.wins += v.wdl == Wdl::win;
            tally.losses += v.wdl == Wdl::loss;
            tally.draws += v.wdl == Wdl::draw;
            for (int c0 = 0; c0 <= count.limit; ++c0) {
                const int expected = truth.value(p, truth.counts_at(p, c0));
                ASSERT_EQ(under_rules(v, count.limit - c0), expected)
                    << c.name() << " " << draughts::to_fen(p) << " count " << c0 << " rule value " << to_string(v);
                ++tally.compared;
                // The colour-swapped twin (the board turned round, the other
                // side to move), played by the brute force on its own.
                if (c0 == 0 || c0 == count.limit / 2) {
                    const auto twin = p.flipped();
                    ASSERT_EQ(truth.value(twin, truth.counts_at(twin, c0)), expected)
                        << c.name() << " " << draughts::to_fen(p) << " and its twin " << draughts::to_fen(twin)
                        << " count " << c0;
                    ++tally.twins;
                }
            }
            if (!count.has_road()) continue;
            // After the road: both counts running, the budget the smaller of what each leaves.
            const Value a = value_of_rule_code(values->after_road[g]);
            for (int t = 0; t <= count.road_limit; ++t)
                for (const int e : {t, std::min(count.limit, t + 20)}) {
                    typename test::RuleBruteForce<V>::Counts n;
                    n.k = e;
                    n.e = e;
                    n.t = t;
                    n.p = test::RuleBruteForce<V>::balance_limit(p) ? e : -1;
                    const int budget = std::min(count.limit - e, count.road_limit - t);
                    ASSERT_EQ(under_rules(a, budget), truth.value(p, n))
                        << c.name() << " " << draughts::to_fen(p) << " after the road, counts " << e << "/" << t
                        << " rule value " << to_string(a);
                    ++tally.compared;
                }
        }
        held.add(values);
    }
    std::printf("%s: %llu positions, %llu (position, count) pairs agree, %llu with the colour-swapped twin; %llu wins, %llu draws, %llu losses at "
                "count 0; %llu materials refused; %zu brute-force states\n",
                std::string(V::name).c_str(), static_cast<unsigned long long>(tally.positions),
                static_cast<unsigned long long>(tally.compared), static_cast<unsigned long long>(tally.twins),
                static_cast<unsigned long long>(tally.wins),
                static_cast<unsigned long long>(tally.draws), static_cast<unsigned long long>(tally.losses),
                static_cast<unsigned long long>(tally.refused), truth.states());
}

std::vector<Material> parse_all(std::initializer_list<const char*> names) {
    std::vector<Material> m;
    for (const char* n : names) m.push_back(Material::parse(n));
    return m;
}

// Each variant's rules on 6x6, materials chosen so that every count is met:
// lone-king endings with men and a capture from a 16- into a 5-move ending
// (KKMvK), the kings-only counts with kings on both sides and a man (KKvKM;
// Russian: KKvKK, as a man with kings on both sides is refused there),
// the Russian main road under both readings (KKKvK).
TEST(RuleSolver, International6) {
    Tally t;
    check_rules<draughts::International6>(parse_all({"KKMvK", "KKvKM"}), t);
    EXPECT_GT(t.wins, 0u);
    EXPECT_GT(t.losses, 0u);
    EXPECT_EQ(t.refused, 0u);
}

TEST(RuleSolver, Brazilian6) {
    Tally t;
    check_rules<draughts::Brazilian6>(parse_all({"KKvKM"}), t);
    EXPECT_GT(t.wins, 0u);
}

TEST(RuleSolver, American6) {
    Tally t;
    check_rules<draughts::American6>(parse_all({"KKvKM"}), t);
    EXPECT_GT(t.wins, 0u);
}

TEST(RuleSolver, Russian6) {
    Tally t;
    check_rules<draughts::Russian6>(parse_all({"KKKvK", "KMvM", "KKvKK"}), t);
    EXPECT_GT(t.wins, 0u);
    Tally literal;
    check_rules<draughts::Russian6>(parse_all({"KKKvK"}), literal, true);
    EXPECT_GT(literal.wins, 0u);
}

// The same on 8x8, each variant's own board: the lone-king endings of one
// and two pieces against a king (FMJD 6.5 as Brazilian takes it; Russian
// 7.2.8) with a man, and American's 40-move count with a man.
TEST(RuleSolver, EightByEight) {
    Tally brazilian, russian, american;
    check_rules<draughts::Brazilian>(parse_all({"KMvK", "KKvK"}), brazilian);
    check_rules<draughts::Russian>(parse_all({"KMvK", "KKvK"}), russian);
    check_rules<draughts::American>(parse_all({"KMvK", "KKvK"}), american);
    EXPECT_GT(brazilian.wins, 0u);
    EXPECT_GT(russian.wins, 0u);
    EXPECT_GT(american.wins, 0u);
}

// Big block pairs are solved with every thread inside (atomic states and
// codes, each bucket in parallel chunks, wins and losses in one bucket)
// where a level has fewer than the threads: forced on every pair here, the
// codes must be those of every pair solved one a thread, the way the tests
// above check small pairs against the brute force. Four threads, more than
// the cores, to mix the chunks.
const SolverOptions every_pair_shared = test::big_pairs(0, ~std::uint64_t{0});
const SolverOptions every_pair_alone = test::big_pairs(0, 1);

template <class V>
std::uint64_t same_with_shared_pairs(std::initializer_list<const char*> names, bool literal_road = false) {
    const tbb::global_control threads(tbb::global_control::max_allowed_parallelism, 4);
    RuleSuccessors<V> alone, shared;
    std::uint64_t compared = 0;
    for (const Material& c : build_order(parse_all(names))) {
        auto a = std::make_shared<const RuleValues>(std::get<RuleValues>(RuleSolver<V>(c, alone, literal_road, every_pair_alone).solve()));
        auto b = std::make_shared<const RuleValues>(std::get<RuleValues>(RuleSolver<V>(c, shared, literal_road, every_pair_shared).solve()));
        EXPECT_EQ(a->codes, b->codes) << c.name();
        EXPECT_EQ(a->after_road, b->after_road) << c.name();
        compared += a->codes.size() + a->after_road.size();
        alone.add(a);
        shared.add(b);
    }
    return compared;
}

TEST(RuleSolver, BigPairsWithEveryThread) {
    std::uint64_t compared = same_with_shared_pairs<draughts::International6>({"KKMvK", "KKvKM"});
    compared += same_with_shared_pairs<draughts::Russian6>({"KKKvK", "KKvKK"});
    compared += same_with_shared_pairs<draughts::Russian6>({"KKKvK"}, true);
    compared += same_with_shared_pairs<draughts::American>({"KKvKM"});
    compared += same_with_shared_pairs<draughts::Brazilian>({"KKKvK", "KKMvK"});
    std::printf("%llu rule codes the same with big pairs shared\n", static_cast<unsigned long long>(compared));
}

// Materials where two counts with different resets decide are refused, by
// a typed error naming the articles, and so are the materials leading to them.
TEST(RuleSolver, RussianTwoCountsRefused) {
    for (const char* name : {"KMvKM", "KKvKM", "KKMvK", "KMMvK"}) {
        try {
            (void)governing_count<draughts::RussianDrawRules>(Material::parse(name));
            ADD_FAILURE() << name << " was not refused";
        } catch (const RulesRefused& e) {
            EXPECT_NE(std::string(e.what()).find("7.2.5"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(governing_count<draughts::RussianDrawRules>(Material::parse("KKKMvK")).limit, 30);  // 7.2.4, read literally
    EXPECT_TRUE(governing_count<draughts::RussianDrawRules>(Material::parse("KKKvK")).has_road());
    Tally t;
    check_rules<draughts::Russian6>(parse_all({"KKMvM"}), t);  // its promotion leads to KKMvK
    EXPECT_EQ(t.refused, 2u);
}

// The rules switched off (a kings-only count longer than any game here, no
// other count): the value at count zero is the plain value of every
// position (the brute-force solver of the pure rules).
struct NoCountRules {
    [[maybe_unused]] static constexpr std::string_view profile = "none";
    static constexpr draughts::KingsOnlyCount kings_only{120, "none"};
    static constexpr std::array<draughts::LoneKingCount, 0> lone_king{};
    static constexpr std::array<draughts::MainRoadCount, 0> main_road{};
    static constexpr std::array<draughts::BalanceCount, 0> balance{};
};
struct International6Free : draughts::Variant<draughts::InternationalRules, 6, NoCountRules> {
    [[maybe_unused]] static constexpr std::string_view name = "international6";
};

TEST(RuleSolver, RulesOffGiveThePlainValues) {
    using V = International6Free;
    const std::vector<Material> targets = parse_all({"KKvK", "KMvK", "KvKM", "KMvKM", "KKvKK"});
    const test::BruteForce<V> plain(targets);
    RuleSuccessors<V> held;
    std::uint64_t compared = 0;
    for (const Material& c : build_order(targets)) {
        auto values = std::make_shared<RuleValues>(std::get<RuleValues>(RuleSolver<V>(c, held).solve()));
        const Index<6> own(c), mirror(c.mirrored());
        for (std::uint64_t g = 0; g < values->codes.size(); ++g) {
            auto p = test::position_of(own, mirror, g);
            if (g >= own.size()) p = p.flipped();
            const Value v = value_of_rule_code(values->codes[g]);
            ASSERT_EQ(static_cast<int>(v.wdl), plain.score(p).wdl) << c.name() << " " << draughts::to_fen(p);
            ++compared;
        }
        held.add(values);
    }
    EXPECT_GT(compared, 100000u);
}

// Hand-made, FMJD 6.5 (one king against one king: 5 moves each). White's
// king on 28 takes Black's on 23 (landing on 19 or beyond): a win in one ply
// under the pure rules, and under the count a win in 1 (the capture ends
// the game). With 9 plies of the ending played it is White's 5th move if
// White moved first in it, and the capture still comes before the count is
// full: won. With 10 played the count is at its limit and White has a move:
// drawn.
TEST(RuleSolver, FmjdFiveMovesOnTheLastPly) {
    using V = draughts::International;
    RuleSuccessors<V> held;
    for (const Material& c : build_order({Material::parse("KvK")}))
        held.add(std::make_shared<RuleValues>(std::get<RuleValues>(RuleSolver<V>(c, held).solve())));
    const auto p = draughts::parse_fen<10>("W:WK28:BK23");
    const auto [count, v] = held.find(p);
    EXPECT_EQ(count.limit, 10);
    EXPECT_EQ(v, Value::win(1));
    EXPECT_EQ(under_rules(v, 10 - 9), 1);
    EXPECT_EQ(under_rules(v, 10 - 10), 0);
}

// A .rul file holds the rule codes (capture positions left to the writer)
// and the rules they were built under; a damaged rules record is refused.
TEST(RuleTable, RoundTripAndDamage) {
    using V = draughts::Russian;
    RuleSuccessors<V> held;
    std::shared_ptr<RuleValues> values;
    for (const Material& c : build_order({Material::parse("KKKvK")})) {
        values = std::make_shared<RuleValues>(std::get<RuleValues>(RuleSolver<V>(c, held).solve()));
        held.add(values);
    }
    const Material& m = values->material;
    const test::TemporaryDirectory dir{"rule-table"};
    TableSpec spec = test::test_table_spec<V>(m, 10);
    spec.rul_version = 1;  // alone in its directory, without a .wld
    RuleRecord rules = rule_record<V::draw_rules>(values->count, false);
    const std::uint64_t per_array = values->codes.size();
    const ValueSource source = rule_file_source(*values);
    auto code_of = [&](std::uint64_t g) {
        std::uint32_t c = 0;
        source(g, std::span<std::uint32_t>(&c, 1));
        return c;
    };
    const WrittenTable written = write_rule_table(dir.path(), spec, rules, source);
    const TableFile file = TableFile::open(written.path, {V::name, m, TableKind::rul});
    const TableHeader& h = file.header();
    EXPECT_EQ(h.rules, rules);
    ASSERT_EQ(h.positions(), 2 * per_array);  // before and after the main road
    std::uint64_t compared = 0;
    for (std::uint64_t b = 0; b < h.block_count(); ++b) {
        std::vector<std::byte> block(h.block_bytes(b));
        file.read_block(b, block);
        for (std::uint64_t k = 0; k < h.block_values(b); ++k) {
            const std::uint64_t g = (b << h.block_shift) + k;
            if (code_of(g) == dont_care) continue;
            const auto& array = g < per_array ? values->codes : values->after_road;
            ASSERT_EQ(value_at(block, 8, k), array[g % per_array]) << g;
            ++compared;
        }
    }
    EXPECT_GT(compared, per_array);
    EXPECT_THROW(TableFile::open(written.path, {V::name, m, TableKind::dtw}), TableError);
    // One byte of the rules record changed: the table checksum no longer holds.
    std::vector<std::byte> bytes(std::filesystem::file_size(written.path));
    {
        std::ifstream in(written.path, std::ios::binary);
        in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    bytes[fixed_header_bytes + 17] ^= std::byte{1};
    try {
        (void)TableFile::from_bytes(bytes, written.path);
        ADD_FAILURE() << "a damaged rules record was read";
    } catch (const TableError& e) {
        EXPECT_EQ(e.kind(), TableErrorKind::corrupted) << e.what();
    }
}

// Figures given with issue 19, found apart from this code. Brazilian three
// kings against one, White to move: 132,240 wins, all within the 16-move
// count from its start; 8,144 no longer within it 13 plies in, 53,400 29
// plies in; the longest win under the rules 22 plies.
TEST(RuleSolver, BrazilianThreeKingsAgainstOne) {
    using V = draughts::Brazilian;
    RuleSuccessors<V> held;
    std::shared_ptr<const RuleValues> values;
    for (const Material& c : build_order({Material::parse("KKKvK")})) {
        values = std::make_shared<const RuleValues>(std::get<RuleValues>(RuleSolver<V>(c, held).solve()));
        held.add(values);
    }
    ASSERT_EQ(values->material, Material::parse("KKKvK"));
    std::uint64_t wins = 0, at13 = 0, at29 = 0;
    int longest = 0;
    for (std::uint64_t g = 0; g < values->positions_per_side; ++g) {
        const Value v = value_of_rule_code(values->codes[g]);
        if (v.wdl != Wdl::win) continue;
        ++wins;
        at13 += v.plies > 32 - 13;
        at29 += v.plies > 32 - 29;
        longest = std::max(longest, v.plies);
    }
    EXPECT_EQ(wins, 132240u);
    EXPECT_EQ(at13, 8144u);
    EXPECT_EQ(at29, 53400u);
    EXPECT_EQ(longest, 22);
}

// Russian three kings against one, the lone king to move, under the literal
// reading of 7.2.7: of the 56,518 positions lost under the pure rules (the
// brute-force solver of the tests), 2,796 are not lost when the ending has
// just arisen.
TEST(RuleSolver, RussianThreeKingsAgainstOneOnTheRoad) {
    using V = draughts::Russian;
    const Material kkkvk = Material::parse("KKKvK");
    RuleSuccessors<V> held;
    std::shared_ptr<RuleValues> values;
    for (const Material& c : build_order({kkkvk})) {
        values = std::make_shared<RuleValues>(std::get<RuleValues>(RuleSolver<V>(c, held, true).solve()));
        held.add(values);
    }
    ASSERT_EQ(values->material, kkkvk);
    const test::BruteForce<V> plain({kkkvk});
    const Index<8> mirror(kkkvk.mirrored());
    std::uint64_t lost = 0, saved = 0;
    for (std::uint64_t i = 0; i < mirror.size(); ++i) {
        const auto p = mirror.unrank(i).flipped();  // Black, the lone king, to move
        if (plain.score(p).wdl != -1) continue;
        ++lost;
        saved += value_of_rule_code(values->codes[values->positions_per_side + i]).wdl != Wdl::loss;
    }
    EXPECT_EQ(lost, 56518u);
    EXPECT_EQ(saved, 2796u);
}

// The .rul of format 2 (docs/format.md, "Versions"): the .wld's draws left
// to it, and where the table has one value array one half stored (the
// smaller), the other found by the probe's search. Every position's rule
// distance (in both arrays of a main road) and best move at the counts from
// zero are those of a version 1 set written from the same values, and
// verify --full passes. `dtb convert` of the version 1 set writes the
// files of today's versions byte for byte (the .wld's 3 too).
template <class V>
void check_one_sided_rules(const Material& target) {
    constexpr int N = V::board_size;
    const test::BruteForce<V> truth({target});
    const test::TemporaryDirectory two{"rul2"}, one{"rul1"};
    test::write_true_tables(truth, {target}, two.path());
    test::write_true_tables(truth, {target}, one.path(), 1, 1);
    RuleSuccessors<V> held;
    for (const Material& c : build_order({target})) {
        auto values = std::make_shared<const RuleValues>(std::get<RuleValues>(RuleSolver<V>(c, held).solve()));
        held.add(values);
        for (const std::uint32_t version : {2u, 1u}) {
            TableSpec spec = test::test_table_spec<V>(c, 10);
            spec.rul_version = version;
            write_rule_table((version == 2 ? two : one).path() / std::string(V::name), spec,
                             rule_record<typename V::draw_rules>(values->count, false), rule_file_source(*values));
        }
    }
    const Prober<V> plain_two(two.path()), plain_one(one.path());
    const RuleProber<V> after(plain_two), before(plain_one);
    std::uint64_t not_stored = 0;
    for (const Material& c : build_order({target})) {
        const TableHeader& h = plain_two.tables().file(plain_two.tables().find(c).slot, TableKind::rul).header();
        EXPECT_EQ(h.version, 2u) << c.name();
        EXPECT_EQ(h.stored == StoredHalf::both, c == c.mirrored() || h.rules.arrays() == 2) << c.name();
        for (const Material& m : {c, c.mirrored()}) {
            const Index<N> index(m);
            for (std::uint64_t i = 0; i < index.size(); ++i)
                for (const auto& p : {index.unrank(i), index.unrank(i).flipped()}) {
                    not_stored += !h.stores(plain_two.locate(p).g);
                    for (const bool road : {false, true})
                        ASSERT_EQ(after.distance(p, road), before.distance(p, road))
                            << draughts::to_fen(p) << " plain " << to_string(plain_two.value(p)) << " stored "
                            << h.stores(plain_two.locate(p).g) << " searched " << to_string(after.searched(p, road))
                            << " / " << to_string(before.searched(p, road));
                    const auto a = after.best_move(p), b = before.best_move(p);
                    ASSERT_EQ(a.has_value(), b.has_value()) << draughts::to_fen(p);
                    if (!a) continue;
                    EXPECT_EQ(a->move, b->move) << draughts::to_fen(p);
                    EXPECT_EQ(a->after.distance, b->after.distance) << draughts::to_fen(p);
                }
        }
    }
    EXPECT_GT(not_stored, 0u);
    VerifyOptions o;
    o.dir = two.path();
    o.full = true;
    std::vector<std::string> failed;
    const VerifyReport r = verify_tables(std::string(V::name), o, [&](const TableCheck& c) {
        if (!c.ok) failed.push_back(c.text);
    });
    EXPECT_EQ(r.failed, 0) << (failed.empty() ? "" : failed.front());
    EXPECT_GT(r.materials_checked, 0u);

    ConvertOptions c;
    c.dir = one.path();
    c.dtw_compression_level = test::test_table_spec<V>(target, 10).dtw_compression_level;
    c.wld_compression_level = test::test_table_spec<V>(target, 10).wld_compression_level;
    const auto each = [](const ConvertedFile&) {};
    const ConvertReport converted = convert_tables(std::string(V::name), c, each);
    EXPECT_EQ(converted.converted, 3 * static_cast<int>(build_order({target}).size()));
    EXPECT_EQ(converted.current, 0);
    for (const Material& m : build_order({target}))
        for (const TableKind kind : {TableKind::wld, TableKind::dtw, TableKind::rul})
            EXPECT_TRUE(test::file_bytes(plain_one.tables().path_of(m, kind)) ==
                        test::file_bytes(plain_two.tables().path_of(m, kind)))
                << plain_one.tables().path_of(m, kind);
    const ConvertReport again = convert_tables(std::string(V::name), c, each);
    EXPECT_EQ(again.converted, 0);
    EXPECT_EQ(again.current, converted.converted);
}

TEST(RuleTable, OneSidedAgainstVersion1) { check_one_sided_rules<draughts::Brazilian>(Material::parse("KMvK")); }
// A main road (Russian three kings against one): two value arrays, both sides kept, the draws still left out.
TEST(RuleTable, RoadKeepsBothSidesAgainstVersion1) {
    check_one_sided_rules<draughts::Russian>(Material::parse("KKKvK"));
}

}  // namespace
}  // namespace dtb
