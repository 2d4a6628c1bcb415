// Materials: names, mirrors, enumeration and build order, with the expected
// sets worked out by hand in the comments.
#include <gtest/gtest.h>

#include <algorithm>

#include "probe/material.hpp"

namespace dtb {
namespace {

std::vector<std::string> names(const std::vector<Material>& ms) {
    std::vector<std::string> v;
    for (const auto& m : ms) v.push_back(m.name());
    std::sort(v.begin(), v.end());
    return v;
}

TEST(Material, ParseAndName) {
    const auto m = Material::parse("KKKvK");
    EXPECT_EQ(m, (Material{0, 3, 0, 1}));
    EXPECT_EQ(m.name(), "KKKvK");
    EXPECT_EQ(Material::parse("MKMvMK").name(), "KMMvKM");  // kings first when printed
    EXPECT_EQ(Material::parse("KMMvKM").pieces(), 5);
}

TEST(Material, BadNamesAreRejectedWithTheReason) {
    for (const char* bad : {"KKK", "KvKvK", "KXvK", "KKv", "vK", ""})
        EXPECT_THROW(Material::parse(bad), MaterialError) << bad;
    try {
        Material::parse("KKv");
    } catch (const MaterialError& e) {
        EXPECT_NE(std::string(e.what()).find("at least one piece"), std::string::npos);
    }
}

TEST(Material, MirrorAndCanonical) {
    EXPECT_EQ(Material::parse("KvKK").mirrored().name(), "KKvK");
    EXPECT_EQ(Material::parse("KvKK").canonical().name(), "KKvK");
    EXPECT_EQ(Material::parse("KMvKK").canonical().name(), "KKvKM");  // 2 v 2: more kings is White
    EXPECT_TRUE(Material::parse("KMvKM").is_canonical());
    for (int n = 2; n <= 6; ++n)
        for (const auto& m : canonical_materials(n)) EXPECT_EQ(m.mirrored().mirrored(), m);
}

// With sides drawn from K/M strings: 2 pieces, unordered pairs of {K, M}: 3.
// 3 pieces: the two-piece side (KK, KM, MM) is White, Black K or M: 6.
// 4 pieces: 2v2 unordered pairs of {KK, KM, MM}: 6; 3v1: 4 x 2 = 8; 14 in all.
TEST(Material, CanonicalMaterialsOfNPieces) {
    EXPECT_EQ(names(canonical_materials(2)), (std::vector<std::string>{"KvK", "KvM", "MvM"}));
    EXPECT_EQ(canonical_materials(3).size(), 6u);
    EXPECT_EQ(canonical_materials(4).size(), 14u);
}

// KMvK: White crowns its man (KKvK); Black takes the man (KvK) or the king
// (MvK, stored as KvM); taking Black's only king ends the game (no table).
// KKKvK: Black's king takes one king (KKvK) or two in one capture (KvK).
TEST(Material, Successors) {
    EXPECT_EQ(names(successors(Material::parse("KMvK"))), (std::vector<std::string>{"KKvK", "KvK", "KvM"}));
    EXPECT_EQ(names(successors(Material::parse("KKKvK"))), (std::vector<std::string>{"KKvK", "KvK"}));
    EXPECT_TRUE(successors(Material::parse("KvK")).empty());
}

TEST(Material, BuildOrderPutsSuccessorsFirst) {
    const auto order = build_order({Material::parse("KMvK")});
    EXPECT_EQ(names(order), (std::vector<std::string>{"KKvK", "KMvK", "KvK", "KvM"}));
    const auto big = build_order(canonical_materials(5));
    for (std::size_t i = 0; i < big.size(); ++i)
        for (const auto& s : successors(big[i])) {
            const auto at = std::find(big.begin(), big.end(), s);
            ASSERT_NE(at, big.end()) << s.name();
            EXPECT_LT(at - big.begin(), static_cast<long>(i)) << s.name() << " before " << big[i].name();
        }
}

}  // namespace
}  // namespace dtb
