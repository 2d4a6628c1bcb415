// The coding of the words a team member asks for (builder/team/word_coding.hpp):
// every word comes back, and the byte counts are those of the format worked
// by hand.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "builder/team/word_coding.hpp"

namespace dtb {
namespace {

std::vector<std::byte> coded(const std::vector<std::uint64_t>& words) {
    std::vector<std::byte> out;
    WordCoding coding;
    for (std::uint64_t w : words) coding.write(w, out);
    return out;
}

std::vector<std::uint64_t> decoded(const std::vector<std::byte>& bytes) {
    std::vector<std::uint64_t> words;
    WordCoding coding;
    for (std::size_t at = 0; at < bytes.size();) words.push_back(coding.read(bytes, at));
    return words;
}

TEST(WordCoding, BytesWorkedByHand) {
    // From 0: distance 7 zigzags to 14, which fits the first byte's 4 bits.
    EXPECT_EQ(coded({7}).size(), 1u);
    // 8 zigzags to 16: a second byte.
    EXPECT_EQ(coded({8}).size(), 2u);
    // Up to 2^10 - 1 away: zigzag < 2^11, 4 + 7 bits.
    EXPECT_EQ(coded({1023}).size(), 2u);
    EXPECT_EQ(coded({1024}).size(), 3u);
    // The first byte: reference 0, zigzag 2 x 5 = 10 in bits 3-6, no more.
    EXPECT_EQ(coded({5}), std::vector<std::byte>{std::byte{10 << 3}});
    // A word 2^56 above every reference: its zigzag has 58 bits, 4 + 7 x 8 of them in nine bytes.
    EXPECT_EQ(coded({std::uint64_t{1} << 56}).size(), 9u);
    // The largest: the distance -1 from 0 (modulo 2^64) zigzags to 1.
    EXPECT_EQ(coded({std::numeric_limits<std::uint64_t>::max()}).size(), 1u);
    // The longest: 2^63 away from every reference zigzags to 2^64 - 1, whose
    // 64 bits take 4 + 7 x 9: ten bytes, the room a writer must leave.
    EXPECT_EQ(coded({std::uint64_t{1} << 63}).size(), 10u);
    EXPECT_EQ(WordCoding::max_bytes, 10u);
}

TEST(WordCoding, InterleavedStreamsKeepTheirReferences) {
    // Four streams far apart, each climbing by 1 to 3: after each stream's
    // first word, every word is one byte.
    std::vector<std::uint64_t> words;
    const std::uint64_t base[4] = {1ull << 20, 5ull << 40, 3ull << 56, 17};
    for (std::uint64_t x = 0; x < 100; ++x)
        for (int s = 0; s < 4; ++s) words.push_back(base[s] + 2 * x + static_cast<std::uint64_t>(s % 2));
    const std::vector<std::byte> bytes = coded(words);
    std::size_t firsts = coded({words[0], words[1], words[2], words[3]}).size();
    EXPECT_EQ(bytes.size(), firsts + 4 * 99);
    EXPECT_EQ(decoded(bytes), words);
}

TEST(WordCoding, AnyWordsComeBack) {
    std::mt19937_64 random(20261125);
    std::vector<std::uint64_t> words;
    for (int i = 0; i < 100000; ++i) {
        const int kind = static_cast<int>(random() % 4);
        const std::uint64_t w = kind == 0   ? random()
                                : kind == 1 ? random() >> (random() % 64)
                                : kind == 2 ? (words.empty() ? 0 : words.back() + random() % 5 - 2)
                                            : std::numeric_limits<std::uint64_t>::max() - random() % 3;
        words.push_back(w);
    }
    EXPECT_EQ(decoded(coded(words)), words);
}

TEST(WordCoding, CutBytesAreAnError) {
    const std::vector<std::byte> bytes = coded({1ull << 40});
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
        const std::vector<std::byte> part(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
        WordCoding coding;
        std::size_t at = 0;
        EXPECT_THROW(coding.read(part, at), std::runtime_error) << cut;
    }
    // Eleven bytes that all say more follows spell more than 64 bits.
    const std::vector<std::byte> endless(11, std::byte{0xFF});
    WordCoding coding;
    std::size_t at = 0;
    EXPECT_THROW(coding.read(endless, at), std::runtime_error);
}

// The tenth byte of a word carries its zigzagged distance's bits 60 to 63:
// 0x0F there is the largest word, a bit above them is refused, not dropped.
TEST(WordCoding, BitsPastSixtyFourAreAnError) {
    std::vector<std::byte> largest(9, std::byte{0xFF});
    largest.push_back(std::byte{0x0F});
    WordCoding coding;
    std::size_t at = 0;
    // From reference 7 (at 0): z = 2^64 - 1 (all bits of a 4-bit, eight 7-bit and a 4-bit
    // group), the distance -2^63 zigzagged, so the word 2^63.
    EXPECT_EQ(coding.read(largest, at), std::uint64_t{1} << 63);
    EXPECT_EQ(at, largest.size());
    for (const std::byte over : {std::byte{0x10}, std::byte{0x1F}, std::byte{0x7F}}) {
        std::vector<std::byte> bytes(9, std::byte{0xFF});
        bytes.push_back(over);
        WordCoding fresh;
        at = 0;
        EXPECT_THROW(fresh.read(bytes, at), std::runtime_error) << std::to_integer<int>(over);
    }
}

}  // namespace
}  // namespace dtb
