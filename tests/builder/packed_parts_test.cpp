// The packed parts of tables a rank keeps for the next asker
// (builder/values/packed_parts.hpp): found by material and range, the least
// recently used dropped first, never more than the budget; and the parts a
// range is asked in.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <utility>

#include "builder/values/packed_parts.hpp"

namespace dtb {
namespace {

// A part of `bytes` bytes in one frame: it counts the bytes and the frame's size word.
std::shared_ptr<const PackedRange> part(std::size_t bytes) {
    auto p = std::make_shared<PackedRange>();
    p->frame_bytes = {bytes};
    p->bytes.resize(bytes);
    return p;
}

TEST(PackedParts, FoundByMaterialAndRange) {
    PackedParts parts(1000);
    const Material kk = Material::parse("KKvK");
    const auto a = part(100);
    parts.keep({kk, 0, 64}, a);
    EXPECT_EQ(parts.find({kk, 0, 64}), a);
    EXPECT_EQ(parts.find({kk, 64, 64}), nullptr);                       // another range
    EXPECT_EQ(parts.find({kk, 0, 128}), nullptr);                       // another count
    EXPECT_EQ(parts.find({Material::parse("KKvM"), 0, 64}), nullptr);  // another material
    parts.keep({kk, 0, 64}, part(100));                                 // kept once
    EXPECT_EQ(parts.find({kk, 0, 64}), a);
    EXPECT_EQ(parts.bytes(), 108u);
}

// Budget 350: parts of 108 bytes each (100 and a size word), three fit.
// After A, B, C and a look at A, D drops B, the least recently used.
TEST(PackedParts, LeastRecentlyUsedDroppedFirst) {
    PackedParts parts(350);
    const Material m = Material::parse("KMvK");
    parts.keep({m, 0, 64}, part(100));    // A
    parts.keep({m, 64, 64}, part(100));   // B
    parts.keep({m, 128, 64}, part(100));  // C
    EXPECT_EQ(parts.bytes(), 324u);
    EXPECT_NE(parts.find({m, 0, 64}), nullptr);
    parts.keep({m, 192, 64}, part(100));  // D
    EXPECT_EQ(parts.bytes(), 324u);
    EXPECT_NE(parts.find({m, 0, 64}), nullptr);
    EXPECT_EQ(parts.find({m, 64, 64}), nullptr);
    EXPECT_NE(parts.find({m, 128, 64}), nullptr);
    EXPECT_NE(parts.find({m, 192, 64}), nullptr);
    // Larger than the whole budget: not kept, and nothing dropped for it.
    parts.keep({m, 256, 64}, part(400));
    EXPECT_EQ(parts.find({m, 256, 64}), nullptr);
    EXPECT_EQ(parts.bytes(), 324u);
}

// Once no job reads a material, its parts go, and only its.
TEST(PackedParts, LetGoOfAMaterialDropsItsPartsOnly) {
    PackedParts parts(1000);
    const Material m = Material::parse("KMvK"), other = Material::parse("KKvM");
    parts.keep({m, 0, 64}, part(100));
    parts.keep({other, 0, 64}, part(100));
    parts.keep({m, 64, 64}, part(100));
    parts.let_go(m);
    EXPECT_EQ(parts.find({m, 0, 64}), nullptr);
    EXPECT_EQ(parts.find({m, 64, 64}), nullptr);
    EXPECT_NE(parts.find({other, 0, 64}), nullptr);
    EXPECT_EQ(parts.bytes(), 108u);
}

using Part = std::pair<std::uint64_t, std::uint64_t>;  // first position, count

// Parts of 4,096 positions: a range from 64,000 to 74,000 is cut at 65,536,
// 69,632 and 73,728, the multiples of 4,096 inside it; a range inside one
// part is one part; an empty range none.
TEST(RangeParts, CutAtMultiplesOfThePart) {
    const RangeParts r{64000, 10000, 4096};
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0], Part(64000, 1536));
    EXPECT_EQ(r[1], Part(65536, 4096));
    EXPECT_EQ(r[2], Part(69632, 4096));
    EXPECT_EQ(r[3], Part(73728, 272));
    const RangeParts whole{0, 8192, 4096};
    ASSERT_EQ(whole.size(), 2u);
    EXPECT_EQ(whole[1], Part(4096, 4096));
    const RangeParts inside{4160, 64, 4096};
    ASSERT_EQ(inside.size(), 1u);
    EXPECT_EQ(inside[0], Part(4160, 64));
    EXPECT_EQ((RangeParts{4096, 0, 4096}).size(), 0u);
}

}  // namespace
}  // namespace dtb
