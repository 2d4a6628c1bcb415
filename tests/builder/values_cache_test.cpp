// The tables a rank of a distributed build keeps (builder/values/values_cache.hpp):
// within its budget, those not in use are packed to make room and come back
// code for code and mark for mark; those in use are neither packed nor
// dropped; packed ones are dropped when even they do not fit; those no job
// reads are let go of.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "builder/values/values_cache.hpp"

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

TEST(ValuesCache, PacksWhatIsNotInUseAndUnpacksItFound) {
    const auto a = table("KMvK"), b = table("KKvM"), range = table("KMvM", 64 * 100, 30000);
    ValuesCache cache(a->bytes() + b->bytes() / 2);  // room for one table and some packed ones
    cache.keep(table("KMvK"));
    cache.keep(table("KKvM"));  // KMvK packed to make room
    EXPECT_EQ(cache.packed(), 1u);
    const auto found = cache.find(Material::parse("KMvK"));  // KKvM packed in turn
    ASSERT_TRUE(found);
    expect_same(*found, *a);
    EXPECT_EQ(cache.packed(), 2u);
    EXPECT_EQ(cache.unpacked(), 1u);
    // A range (a team member's share) too; KMvK is in use (`found`), so stays.
    cache.keep(table("KMvM", 64 * 100, 30000));
    const auto kmvm = cache.find(Material::parse("KMvM"));
    ASSERT_TRUE(kmvm);
    expect_same(*kmvm, *range);
    EXPECT_TRUE(cache.find_whole(Material::parse("KMvK")));
    EXPECT_FALSE(cache.find_whole(Material::parse("KMvM")));
    const auto kkvm = cache.find(Material::parse("KKvM"));  // no room while the others are in use
    EXPECT_FALSE(kkvm);
}

TEST(ValuesCache, DropsPackedTablesWhenEvenTheyDoNotFit) {
    const auto a = table("KMvK");
    ValuesCache cache(a->bytes() + 64);  // one table, and nothing packed beside it
    cache.keep(table("KMvK"));
    cache.keep(table("KKvM"));
    EXPECT_EQ(cache.packed(), 1u);
    EXPECT_FALSE(cache.find(Material::parse("KMvK")));  // dropped: asked of others or read back instead
    const auto kkvm = cache.find(Material::parse("KKvM"));
    ASSERT_TRUE(kkvm);
    expect_same(*kkvm, *table("KKvM"));
    // In use, it is neither packed nor dropped: nothing else fits.
    EXPECT_FALSE(cache.room_for(1000));
    cache.keep(table("KMvK"));
    EXPECT_FALSE(cache.find(Material::parse("KMvK")));
    EXPECT_TRUE(cache.find(Material::parse("KKvM")));
}

// A table no job reads any more is let go of, packed or not, and its room
// is free again; a job still holding it keeps its values.
TEST(ValuesCache, LetGoOfFreesTheRoom) {
    const auto a = table("KMvK");
    ValuesCache cache(2 * a->bytes() + a->bytes() / 2);  // two tables, and packed ones beside them
    cache.keep(table("KMvK"));
    const auto held = cache.find(Material::parse("KMvK"));
    cache.keep(table("KKvM"));
    auto kkvm = cache.find(Material::parse("KKvM"));  // both in use: neither packed nor dropped
    EXPECT_FALSE(cache.room_for(a->bytes()));
    cache.let_go(Material::parse("KMvK"));
    EXPECT_FALSE(cache.find(Material::parse("KMvK")));
    expect_same(*held, *a);
    EXPECT_TRUE(cache.room_for(a->bytes()));
    cache.keep(table("KMvM", 64 * 100, 30000));
    cache.let_go(Material::parse("KMvM"));  // a range likewise
    EXPECT_FALSE(cache.find(Material::parse("KMvM")));
    // A packed one likewise: KKvM, no longer in use, packed to make room for KKvK.
    kkvm.reset();
    cache.keep(table("KMvK"));
    const auto kmvk = cache.find(Material::parse("KMvK"));
    cache.keep(table("KKvK"));
    const auto kkvk = cache.find(Material::parse("KKvK"));
    ASSERT_TRUE(kmvk && kkvk);
    ASSERT_EQ(cache.packed(), 1u);
    cache.let_go(Material::parse("KKvM"));
    EXPECT_FALSE(cache.find(Material::parse("KKvM")));
    EXPECT_EQ(cache.unpacked(), 0u);  // let go of, not unpacked to be found
}

}  // namespace
}  // namespace dtb
