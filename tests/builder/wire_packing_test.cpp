// A team's exchanges packed for the network (builder/team/wire_packing.hpp,
// builder/team/mailbox.hpp): every part comes back as it was sent, whatever
// its size and element type; parts of codes that run long cross in a
// fraction of their bytes; a part that is not one is refused, naming who
// sent it.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "builder/team/mailbox.hpp"
#include "builder/team/wire_packing.hpp"
#include "tests/builder/thread_team.hpp"

namespace dtb {
namespace {

template <class T>
std::vector<T> round_trip(const std::vector<T>& raw, std::size_t* packed_size = nullptr) {
    WirePacker packer;
    HugePagedVector<std::byte> packed;
    packer.pack(std::as_bytes(std::span<const T>(raw)), sizeof(T), packed);
    if (packed_size) *packed_size = packed.size();
    std::vector<T> back(WirePacker::unpacked_size(packed) / sizeof(T));
    EXPECT_EQ(WirePacker::unpacked_size(packed), raw.size() * sizeof(T));
    packer.unpack(packed, sizeof(T), reinterpret_cast<std::byte*>(back.data()), "test");
    return back;
}

TEST(WirePacking, EveryPartComesBack) {
    std::mt19937_64 random(50);
    for (const std::size_t n : {0, 1, 7, 127, 128, 129, 4096, 100000}) {
        std::vector<std::uint16_t> codes(n);
        for (std::uint16_t& c : codes) c = static_cast<std::uint16_t>(random());  // incompressible: sent as it is
        EXPECT_EQ(round_trip(codes), codes) << n;
        std::vector<std::uint64_t> words(n);
        for (std::size_t i = 0; i < n; ++i) words[i] = i * 977 + (random() & 3);
        EXPECT_EQ(round_trip(words), words) << n;
        std::vector<std::byte> bytes(n, std::byte{7});
        EXPECT_EQ(round_trip(bytes), bytes) << n;
        std::vector<std::uint32_t> counts(n);
        for (std::size_t i = 0; i < n; ++i) counts[i] = static_cast<std::uint32_t>(i * 31 + (random() & 1));
        EXPECT_EQ(round_trip(counts), counts) << n;
        std::vector<std::array<std::uint8_t, 3>> triples(n);  // a size the byte planes do not unroll
        for (std::size_t i = 0; i < n; ++i)
            triples[i] = {static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(i >> 8), 0};
        EXPECT_EQ(round_trip(triples), triples) << n;
    }
}

TEST(WirePacking, CodesThatRunLongCrossSmall) {
    // A table's codes: long runs of a few values (draws, and wins at few distances).
    std::vector<std::uint16_t> codes(1 << 20);
    std::mt19937_64 random(7);
    for (std::size_t i = 0; i < codes.size();) {
        const std::size_t run = 1 + random() % 200;
        const auto code = static_cast<std::uint16_t>(random() % 4 == 0 ? 0 : 2 * (random() % 30) + 1);
        for (std::size_t k = 0; k < run && i < codes.size(); ++k) codes[i++] = code;
    }
    std::size_t packed = 0;
    EXPECT_EQ(round_trip(codes, &packed), codes);
    EXPECT_LT(packed, codes.size() * 2 / 10);  // under a fifth of the two bytes a code
}

TEST(WirePacking, ADamagedPartIsRefused) {
    std::vector<std::uint16_t> codes(10000, 5);
    WirePacker packer;
    HugePagedVector<std::byte> packed;
    packer.pack(std::as_bytes(std::span<const std::uint16_t>(codes)), 2, packed);
    std::vector<std::uint16_t> back(codes.size());
    auto* into = reinterpret_cast<std::byte*>(back.data());
    std::vector<std::byte> cut(packed.begin(), packed.end() - 3);
    try {
        packer.unpack(cut, 2, into, "team member 3");
        FAIL() << "a part cut short was unpacked";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("team member 3"), std::string::npos) << e.what();
    }
    std::vector<std::byte> short_header(packed.begin(), packed.begin() + 5);
    EXPECT_THROW(packer.unpack(short_header, 2, into, "team member 1"), std::runtime_error);
}

// Through a team of threads: what each member posts to each other arrives
// whole, its own part included, in rounds of different sizes.
TEST(WirePacking, AMailboxDeliversEveryPart) {
    for (const int members : {2, 3}) {
        test::ThreadTeams::run(members, [&](Team& team) {
            Mailbox<std::uint16_t> mail(team.size());
            for (int round = 0; round < 4; ++round) {
                const auto sent = [&](int from, int to) {
                    std::vector<std::uint16_t> part(static_cast<std::size_t>((from + 1) * (to + 2) * round * 300));
                    for (std::size_t i = 0; i < part.size(); ++i)
                        part[i] = static_cast<std::uint16_t>(from * 1000 + to * 100 + (i / 50) % 7);
                    return part;
                };
                for (int j = 0; j < team.size(); ++j) mail.to(j) = sent(team.rank(), j);
                mail.exchange(team);
                for (int j = 0; j < team.size(); ++j) {
                    const std::vector<std::uint16_t> expected = sent(j, team.rank());
                    const std::span<const std::uint16_t> got = mail.from(j);
                    ASSERT_EQ(got.size(), expected.size());
                    EXPECT_TRUE(std::equal(got.begin(), got.end(), expected.begin()));
                }
            }
        });
    }
}

}  // namespace
}  // namespace dtb
