// The probe under the move-count draw rules through the C interface (dtb.h)
// and the C++ one (dtb.hpp): values at counts on each side of a limit, the
// best move inside the count, and every bad count, refused material and
// missing table answered by its status and a message naming it.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "builder/driver/build.hpp"
#include "dtb.h"
#include "dtb.hpp"
#include "tests/probe/synthetic_tables.hpp"

namespace dtb {
namespace {

// Tables of `variant` for `materials` with their rule tables, in `dir`.
void build_with_rules(const std::string& variant, const std::filesystem::path& dir,
                      std::initializer_list<const char*> materials) {
    BuildOptions o;
    o.variant = variant;
    o.dir = dir;
    for (const char* m : materials) o.targets.push_back(Material::parse(m));
    o.rules = true;
    o.output = BuildOptions::Output::quiet;
    build_tables(o);
}

struct Opened {
    dtb_tablebase* tb = nullptr;
    Opened(const char* variant, const std::filesystem::path& dir) {
        EXPECT_EQ(dtb_open(variant, dir.c_str(), 0, &tb), DTB_OK) << dtb_last_error();
    }
    ~Opened() { dtb_close(tb); }
};

dtb_position fen(const Opened& o, const char* text) {
    dtb_position p{};
    EXPECT_EQ(dtb_parse_fen(o.tb, text, &p), DTB_OK) << dtb_last_error();
    return p;
}

// FMJD 6.5 (one king against one: 5 moves each) by hand: White's king on 28
// takes Black's on 23, which ends the game, a win in 1 ply. With 9 plies of
// the ending counted White still moves inside the count: won. With 10 the
// count is full and White has a move: drawn, a cursed win (the plain value
// is a win in 1).
TEST(RuleProbe, CInterfaceOnEachSideOfTheLimit) {
    const test::TemporaryDirectory dir{"rule-probe"};
    build_with_rules("international", dir.path(), {"KvK"});
    const Opened o("international", dir.path());
    const dtb_position p = fen(o, "W:WK28:BK23");

    dtb_counts counts{DTB_COUNT_UNSET, 9, DTB_COUNT_UNSET};
    dtb_rule_value v{};
    ASSERT_EQ(dtb_probe_rules(o.tb, &p, &counts, &v), DTB_OK) << dtb_last_error();
    EXPECT_EQ(v.wdl, DTB_WIN);
    EXPECT_EQ(v.rule_class, DTB_CLASS_WIN);
    EXPECT_EQ(v.distance.wdl, DTB_WIN);
    EXPECT_EQ(v.distance.plies, 1);
    EXPECT_EQ(v.plies_left, 1);
    EXPECT_NE(std::string(v.article).find("FMJD 6.5"), std::string::npos) << v.article;
    EXPECT_STREQ(v.road_article, "");
    EXPECT_EQ(v.dtw.wdl, DTB_WIN);
    EXPECT_EQ(v.dtw.plies, 1);

    dtb_move move{};
    int has_move = 0;
    dtb_counts after{};
    dtb_rule_value after_value{};
    ASSERT_EQ(dtb_best_move_rules(o.tb, &p, &counts, &move, &has_move, &after, &after_value), DTB_OK)
        << dtb_last_error();
    EXPECT_EQ(has_move, 1);
    EXPECT_EQ(move.from, 28);
    EXPECT_NE(move.captured[0] & (std::uint64_t{1} << 22), 0u);  // square 23 taken
    EXPECT_EQ(after.kings_only, 0);  // a capture starts K again; no ending is left
    EXPECT_EQ(after.ending, DTB_COUNT_UNSET);
    EXPECT_EQ(after_value.wdl, DTB_LOSS);

    counts.ending = 10;
    ASSERT_EQ(dtb_probe_rules(o.tb, &p, &counts, &v), DTB_OK) << dtb_last_error();
    EXPECT_EQ(v.wdl, DTB_DRAW);
    EXPECT_EQ(v.rule_class, DTB_CLASS_CURSED_WIN);
    EXPECT_EQ(v.plies_left, 0);
    ASSERT_EQ(dtb_best_move_rules(o.tb, &p, &counts, &move, &has_move, &after, &after_value), DTB_OK);
    EXPECT_EQ(has_move, 0);  // the count has drawn the game

    // The counts from now (NULL): the same win, 10 plies left.
    ASSERT_EQ(dtb_probe_rules(o.tb, &p, nullptr, &v), DTB_OK) << dtb_last_error();
    EXPECT_EQ(v.wdl, DTB_WIN);
    EXPECT_EQ(v.plies_left, 10);

    // Bad counts: a status and a message naming the count.
    const struct {
        dtb_counts counts;
        const char* says;
    } bad[] = {
        {{-5, DTB_COUNT_UNSET, DTB_COUNT_UNSET}, "K=-5"},
        {{DTB_COUNT_UNSET, 11, DTB_COUNT_UNSET}, "E=11 is past the limit"},
        {{DTB_COUNT_UNSET, DTB_COUNT_UNSET, 0}, "no main-road count"},
        {{4, 3, DTB_COUNT_UNSET}, "K=4 is larger than E=3"},
        {{51, DTB_COUNT_UNSET, DTB_COUNT_UNSET}, "K=51 is past the limit of FMJD 6.3"},
    };
    for (const auto& b : bad) {
        EXPECT_EQ(dtb_probe_rules(o.tb, &p, &b.counts, &v), DTB_INVALID_COUNT) << b.says;
        EXPECT_NE(std::string(dtb_last_error()).find(b.says), std::string::npos) << dtb_last_error();
    }
    EXPECT_STREQ(dtb_status_name(DTB_INVALID_COUNT), "invalid count");

    // The rule table gone: a missing table, named, with what to do.
    std::filesystem::remove(dir.path() / "international" / "KvK.rul");
    const Opened again("international", dir.path());
    const dtb_position quiet = fen(again, "W:WK1:BK5");
    EXPECT_EQ(dtb_probe_rules(again.tb, &quiet, nullptr, &v), DTB_MISSING_TABLE);
    EXPECT_NE(std::string(dtb_last_error()).find("KvK.rul"), std::string::npos) << dtb_last_error();
    EXPECT_NE(std::string(dtb_last_error()).find("--rules"), std::string::npos) << dtb_last_error();
}

// Russian: the main-road count against the ending's, and a material the
// rules refuse (7.2.7 with a man), through the C++ interface and the C one.
TEST(RuleProbe, RussianRoadCountsAndRefusal) {
    const test::TemporaryDirectory dir{"rule-probe-russian"};
    build_with_rules("russian", dir.path(), {"KKKvK"});
    const Tablebase tb("russian", dir.path());
    const dtb_position p = tb.parse_fen("W:WK1,K3,K5:BK29");
    RuleCounts counts;
    counts.ending = 3;
    counts.road = 4;
    try {
        (void)tb.rule_value(p, counts);
        ADD_FAILURE() << "T=4 with E=3 was not refused";
    } catch (const CountError& e) {
        EXPECT_EQ(e.count(), 'T');
        EXPECT_NE(std::string(e.what()).find("T=4 is larger than E=3"), std::string::npos) << e.what();
    }
    counts.ending = 20;
    counts.road = 2;
    const RuleValue v = tb.rule_value(p, counts);
    EXPECT_EQ(v.plies_left, 8);  // the smaller of 30 - 20 and 10 - 2
    EXPECT_NE(std::string(v.road_article).find("7.2.7"), std::string::npos);

    const dtb_position refused = tb.parse_fen("W:WK1,K3,10:BK29");
    EXPECT_THROW((void)tb.rule_value(refused), RulesRefused);
    const Opened o("russian", dir.path());
    dtb_rule_value c{};
    EXPECT_EQ(dtb_probe_rules(o.tb, &refused, nullptr, &c), DTB_RULES_REFUSED);
    EXPECT_NE(std::string(dtb_last_error()).find("7.2.7"), std::string::npos) << dtb_last_error();
}

}  // namespace
}  // namespace dtb
