// The values a build keeps (builder/values/kept_tables.hpp): within its
// budget, those not in use are packed to make room, the fewest uses left
// first and then the least recently used, and come back code for code and
// mark for mark; those in use are neither packed nor let go; for a job,
// rule values and packed tables it does not read are let go, packed ones
// only if that makes the room, those on disk first; those no job reads are
// let go of, whether a coordinator says so or their uses run out.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>

#include "builder/values/kept_tables.hpp"

namespace dtb {
namespace {

// A table of material `name` (its size made up): runs of codes, a capture
// mark every 7 positions, from position `first` on.
std::shared_ptr<const SolvedValues> table(const char* name, std::uint64_t first = 0, std::uint64_t count = 0) {
    const Material m = Material::parse(name);
    const std::uint64_t per_side = 50000;
    auto v = count ? std::make_shared<SolvedValues>(m, per_side, first, count)
                   : std::make_shared<SolvedValues>(m, per_side);
    for (std::uint64_t i = 0; i < v->codes.size(); ++i) {
        v->codes[i] = static_cast<std::uint16_t>(i / 300 % 40 + (i % 1000 == 0 ? 900 : 0));
        if ((v->first + i) % 7 == 0) v->mark_capture(v->first + i);
    }
    v->max_code = 939;
    return v;
}

void expect_same(const SolvedValues& a, const SolvedValues& b) {
    EXPECT_EQ(a.material, b.material);
    EXPECT_EQ(a.first, b.first);
    EXPECT_EQ(a.positions_per_side, b.positions_per_side);
    EXPECT_EQ(a.max_code, b.max_code);
    EXPECT_TRUE(a.codes == b.codes);
    EXPECT_TRUE(a.capture == b.capture);
}

const Material KMvK = Material::parse("KMvK"), KKvM = Material::parse("KKvM"), KMvM = Material::parse("KMvM"),
               KKvK = Material::parse("KKvK");

// Rule values of material `name`, of `bytes` bytes.
std::shared_ptr<const RuleValues> rules(const char* name, std::uint64_t bytes) {
    auto r = std::make_shared<RuleValues>();
    r->material = Material::parse(name);
    r->codes.assign(bytes, 3);
    return r;
}

TEST(KeptTables, PacksWhatIsNotInUseAndUnpacksItFound) {
    const auto a = table("KMvK"), b = table("KKvM"), range = table("KMvM", 64 * 100, 30000);
    KeptTables kept(a->bytes() + b->bytes() / 2);  // room for one table and some packed ones
    kept.keep(table("KMvK"));
    kept.keep(table("KKvM"));  // KMvK, the least recently used, packed to make room
    EXPECT_EQ(kept.counts().packed, 1);
    auto found = kept.find(KMvK);  // KKvM packed in turn
    ASSERT_TRUE(found);
    expect_same(*found, *a);
    EXPECT_EQ(kept.counts().packed, 2);
    EXPECT_EQ(kept.counts().unpacked, 1);
    // A range (a team member's share) too; KMvK is in use (`found`), so stays.
    kept.keep(table("KMvM", 64 * 100, 30000));
    auto kmvm = kept.find(KMvM);
    ASSERT_TRUE(kmvm);
    expect_same(*kmvm, *range);
    EXPECT_TRUE(kept.find_whole(KMvK));
    EXPECT_FALSE(kept.find_whole(KMvM));
    EXPECT_FALSE(kept.find(KKvM));  // no room while the others are in use
    // No longer in use, KMvK, the least recently used, gives up its room
    // for KKvM without a second packing: its frames stayed beside it.
    found.reset();
    kmvm.reset();
    const auto kkvm = kept.find(KKvM);
    ASSERT_TRUE(kkvm);
    expect_same(*kkvm, *b);
    EXPECT_EQ(kept.counts().packed, 2);
    EXPECT_EQ(kept.counts().unpacked, 2);
    EXPECT_LE(kept.bytes(), kept.budget());
}

TEST(KeptTables, FewestUsesLeftGiveUpTheirRoomFirst) {
    const auto a = table("KMvK");
    KeptTables kept(2 * a->bytes() + a->bytes() / 2);  // two tables, and packed ones beside them
    kept.add_use(KMvK, TableKind::dtw);
    kept.add_use(KMvK, TableKind::dtw);
    kept.add_use(KKvM, TableKind::dtw);
    kept.keep(table("KMvK"));  // two jobs left read it
    kept.keep(table("KKvM"));  // one
    kept.keep(table("KKvK"));  // none: packed first though it is the most recently used
    EXPECT_EQ(kept.counts().packed, 1);
    EXPECT_EQ(kept.counts().unpacked, 0);
    kept.keep(table("KMvM"));  // then KKvM, with one use left, before KMvK with two
    EXPECT_EQ(kept.counts().packed, 2);
    EXPECT_EQ(kept.counts().unpacked, 0);
    ASSERT_TRUE(kept.find(KMvK));  // still in memory
    EXPECT_EQ(kept.counts().unpacked, 0);
    // Its last reader done, a table is let go of; one with uses left is not.
    EXPECT_FALSE(kept.used(KMvK, TableKind::dtw));
    EXPECT_TRUE(kept.find(KMvK));
    EXPECT_TRUE(kept.used(KMvK, TableKind::dtw));
    EXPECT_FALSE(kept.find(KMvK));
    EXPECT_EQ(kept.uses(KMvK, TableKind::dtw), 0);
    EXPECT_EQ(kept.uses(KKvM, TableKind::dtw), 1);
}

// Room made for a job lets go of the rule values and packed tables it does
// not read, packed ones only if that makes the room, those on disk first;
// never what it reads, nor what is in use.
TEST(KeptTables, LetsGoForAJobOfWhatItDoesNotRead) {
    const auto a = table("KMvK");
    KeptTables kept(a->bytes() + a->bytes() / 8);  // one table, and packed ones beside it
    kept.keep(table("KMvK"));
    kept.keep(table("KKvM"));  // KMvK packed
    kept.keep(table("KKvK"));  // KKvM packed
    kept.on_disk(KKvM);
    ASSERT_EQ(kept.counts().packed, 2);
    const auto kkvk = kept.find(KKvK);  // in use
    ASSERT_TRUE(kkvk);
    const std::uint64_t left = kept.budget() - kept.bytes();
    const std::vector<Material> reads_kmvk{KMvK}, reads_kmvm{KMvM};
    const KeptTables::Reads reader{reads_kmvk, TableKind::dtw}, other{reads_kmvm, TableKind::dtw};
    // Packing alone makes no room; nor does letting go of all that may go: nothing is let go.
    EXPECT_FALSE(kept.make_room(left + 1));
    EXPECT_FALSE(kept.make_room(a->bytes(), &other));
    EXPECT_EQ(kept.counts().let_go, 0);
    // Room that letting go of one packed table makes: KKvM's, on disk, goes first.
    EXPECT_TRUE(kept.make_room(left + 1, &other));
    EXPECT_EQ(kept.counts().let_go, 1);
    EXPECT_FALSE(kept.find(KKvM, &other));
    // What the job reads stays: KMvK, packed, is not let go for its reader.
    EXPECT_FALSE(kept.make_room(kept.budget() - kept.bytes() + 1, &reader));
    EXPECT_EQ(kept.counts().let_go, 1);
    // Rule values: kept where they fit once plain values are packed (never
    // letting go of any), let go for a job that does not read them.
    kept.keep(rules("KMvM", 100));
    ASSERT_TRUE(kept.find_rules(KMvM));
    kept.keep(rules("KKvM", kept.budget()));  // does not fit
    EXPECT_FALSE(kept.find_rules(KKvM));
    // A rule job that reads them: packed KMvK goes instead (no plain table is read by it).
    const KeptTables::Reads rule_reader{reads_kmvm, TableKind::rul};
    EXPECT_TRUE(kept.make_room(kept.budget() - kept.bytes() + 50, &rule_reader));
    EXPECT_TRUE(kept.find_rules(KMvM));
    EXPECT_EQ(kept.counts().let_go, 2);
    // A plain job: rule values go before packed tables.
    EXPECT_TRUE(kept.make_room(kept.budget() - kept.bytes() + 50, &other));
    EXPECT_FALSE(kept.find_rules(KMvM));
    EXPECT_EQ(kept.counts().let_go, 2);
}

// Held working sets count against the budget and make room as they start.
TEST(KeptTables, WorkingSetsCountAgainstTheBudget) {
    const auto a = table("KMvK");
    KeptTables kept(a->bytes() + a->bytes() / 2);
    kept.keep(table("KMvK"));
    {
        const KeptTables::Held working(kept, a->bytes() / 2 + 1);  // KMvK packed for it
        EXPECT_EQ(kept.counts().packed, 1);
        EXPECT_FALSE(kept.make_room(a->bytes()));
    }
    EXPECT_TRUE(kept.make_room(a->bytes()));
    EXPECT_GE(kept.counts().peak_bytes, a->bytes() / 2 + 1);
}

// Once solved, a job holds only what its values take (shrink_to), or adopts
// that from the caller who held its working set, which lets go of the rest;
// kept, the values are counted once: never beside the working set.
TEST(KeptTables, SolvedValuesAreCountedOnce) {
    const auto a = table("KMvK");
    const std::uint64_t working = 3 * a->bytes();
    KeptTables kept(4 * a->bytes());
    {
        std::optional<KeptTables::Held> held(std::in_place, kept, working);
        held->shrink_to(a->bytes());
        EXPECT_EQ(kept.bytes(), a->bytes());
        held->shrink_to(working);  // never more than it held
        EXPECT_EQ(kept.bytes(), a->bytes());
        held.reset();
        kept.keep(table("KMvK"));
    }
    EXPECT_EQ(kept.bytes(), a->bytes());
    EXPECT_EQ(kept.counts().peak_bytes, working);
    kept.hold(working);  // a caller holds a working set
    {
        const KeptTables::Held values(kept, a->bytes(), KeptTables::Held::adopt);
        EXPECT_EQ(kept.bytes(), a->bytes() + working);
        kept.free(working - a->bytes());  // the caller lets go of the rest
        EXPECT_EQ(kept.bytes(), 2 * a->bytes());
    }
    EXPECT_EQ(kept.bytes(), a->bytes());
    EXPECT_EQ(kept.counts().peak_bytes, working + a->bytes());
}

// A table no job reads any more is let go of, packed or not, and its room
// is free again; a job still holding it keeps its values.
TEST(KeptTables, LetGoOfFreesTheRoom) {
    const auto a = table("KMvK");
    KeptTables kept(2 * a->bytes() + a->bytes() / 2);  // two tables, and packed ones beside them
    kept.keep(table("KMvK"));
    const auto held = kept.find(KMvK);
    kept.keep(table("KKvM"));
    auto kkvm = kept.find(KKvM);  // both in use: neither packed nor let go
    EXPECT_FALSE(kept.make_room(a->bytes()));
    kept.let_go(KMvK, TableKind::dtw);
    EXPECT_FALSE(kept.find(KMvK));
    expect_same(*held, *a);
    EXPECT_TRUE(kept.make_room(a->bytes()));
    kept.keep(table("KMvM", 64 * 100, 30000));
    kept.let_go(KMvM, TableKind::dtw);  // a range likewise
    EXPECT_FALSE(kept.find(KMvM));
    // A packed one likewise: KKvM, no longer in use, packed to make room for KKvK.
    kkvm.reset();
    kept.keep(table("KMvK"));
    const auto kmvk = kept.find(KMvK);
    kept.keep(table("KKvK"));
    const auto kkvk = kept.find(KKvK);
    ASSERT_TRUE(kmvk && kkvk);
    ASSERT_EQ(kept.counts().packed, 1);
    kept.let_go(KKvM, TableKind::dtw);
    EXPECT_FALSE(kept.find(KKvM));
    EXPECT_EQ(kept.counts().unpacked, 0);  // let go of, not unpacked to be found
    // Rule values likewise, and only those of the kind named.
    kept.keep(rules("KMvK", 100));
    kept.let_go(KMvK, TableKind::rul);
    EXPECT_FALSE(kept.find_rules(KMvK));
    EXPECT_TRUE(kept.find(KMvK));
}

}  // namespace
}  // namespace dtb
