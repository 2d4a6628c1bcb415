// Round trip: synthetic tables for every material of 2 to 4 pieces in every
// variant, written by the builder's writer and read back, position by
// position, through the C++ API (dtb.hpp) and the C API (dtb.h). Every file
// position is probed with White to move through one API and, flipped, with
// Black to move through the other; capture positions must give the value
// their captures lead to.
#include <gtest/gtest.h>

#include "dtb.h"
#include "dtb.hpp"
#include "draughts/notation.hpp"
#include "draughts/variant.hpp"
#include "probe/material.hpp"
#include "tests/probe/synthetic_tables.hpp"
#include "tests/test_size.hpp"

namespace dtb {
namespace {

template <int N>
dtb_position squares_of(const draughts::Position<N>& p) {
    using G = draughts::Geometry<N>;
    dtb_position d{};
    auto put = [](auto bits, std::uint64_t words[2]) {
        for (; bits; bits &= bits - 1) {
            const int s = G::square_of_bit[draughts::lowest_bit(bits)];
            words[s / 64] |= std::uint64_t{1} << (s % 64);
        }
    };
    put(p.white, d.white);
    put(p.black, d.black);
    put(p.kings, d.kings);
    d.white_to_move = p.side_to_move == draughts::Color::white;
    return d;
}

// Materials of up to max_pieces; those of max_pieces are cut into `parts`
// (so that ctest runs them side by side) and `part` is checked. The smaller
// materials, which captures lead to, are always written.
template <class V>
void check_round_trip(int max_pieces, int part = 0, int parts = 1) {
    constexpr int N = V::board_size;
    const test::TemporaryDirectory dir{std::string(V::name)};
    const std::filesystem::path tables = dir.path() / std::string(V::name);
    std::filesystem::create_directories(tables);
    std::vector<Material> materials, checked;
    for (int n = 2; n <= max_pieces; ++n) {
        const auto of_n = canonical_materials(n);
        for (std::size_t i = 0; i < of_n.size(); ++i) {
            const bool mine = n < max_pieces ? part == 0 : static_cast<int>(i % parts) == part;
            if (n < max_pieces || mine) materials.push_back(of_n[i]);
            if (mine) checked.push_back(of_n[i]);
        }
    }
    int sixteen_bit = 0;
    for (const Material& m : materials) sixteen_bit += test::write_synthetic_tables<V>(tables, m).dtw_bits == 16;
    if (part == 0) {
        EXPECT_GT(sixteen_bit, 0);
    }

    const Tablebase cpp(V::name, dir.path());
    dtb_tablebase* c = nullptr;
    ASSERT_EQ(dtb_open(std::string(V::name).c_str(), dir.path().c_str(), 0, &c), DTB_OK) << dtb_last_error();
    ASSERT_EQ(cpp.materials().size(), materials.size());

    std::uint64_t probed = 0, captures = 0;
    for (const Material& m : checked) {
        const Index<N> own(m), mirror(m.mirrored());
        const std::uint64_t positions = static_cast<std::uint64_t>(sides_of(m)) * own.size();
        std::uint64_t failures = 0;
        for (std::uint64_t g = 0; g < positions && failures < 5; ++g) {
            const auto q = test::position_of(own, mirror, g);
            const test::Score e = test::expected_score<V>(q);
            const Value expected{static_cast<Wdl>(e.wdl), e.plies};
            captures += draughts::has_capture<V>(q);
            const dtb_position white = squares_of(q), black = squares_of(q.flipped());

            const Value by_cpp = cpp.value(white);
            const Wdl wdl_by_cpp = cpp.wdl(black);
            dtb_value by_c{};
            dtb_wdl wdl_by_c{};
            ASSERT_EQ(dtb_probe_dtw(c, &black, &by_c), DTB_OK) << dtb_last_error();
            ASSERT_EQ(dtb_probe_wdl(c, &white, &wdl_by_c), DTB_OK) << dtb_last_error();
            const bool same = by_cpp == expected && wdl_by_cpp == expected.wdl &&
                              by_c.wdl == static_cast<int>(expected.wdl) && by_c.plies == expected.plies &&
                              wdl_by_c == static_cast<int>(expected.wdl);
            if (!same) {
                ++failures;
                ADD_FAILURE() << m.name() << " position " << g << " " << draughts::to_fen(q) << ": expected "
                              << e.wdl << " " << e.plies << ", C++ " << static_cast<int>(by_cpp.wdl) << " "
                              << by_cpp.plies << " / " << static_cast<int>(wdl_by_cpp) << ", C " << by_c.wdl << " "
                              << by_c.plies << " / " << wdl_by_c;
            }
            ++probed;
        }
    }
    dtb_close(c);
    EXPECT_GT(captures, 0u);
    std::printf("%s: %zu materials, %llu positions read back through both APIs, %llu with a capture\n",
                std::string(V::name).c_str(), checked.size(), static_cast<unsigned long long>(probed),
                static_cast<unsigned long long>(captures));
}

// The sanitizer builds (DTB_TEST_SMALL) check up to 3 pieces: the full set
// is for the Release build, where it takes minutes rather than hours.
constexpr int pieces = test::full_or_small(4, 3);

TEST(TableRoundTrip, American) { check_round_trip<draughts::American>(pieces); }
TEST(TableRoundTrip, Brazilian) { check_round_trip<draughts::Brazilian>(pieces); }
TEST(TableRoundTrip, Russian) { check_round_trip<draughts::Russian>(pieces); }
TEST(TableRoundTrip, International) { check_round_trip<draughts::International>(pieces); }
TEST(TableRoundTrip, CanadianPart1) { check_round_trip<draughts::Canadian>(pieces, 0, 3); }
TEST(TableRoundTrip, CanadianPart2) { check_round_trip<draughts::Canadian>(pieces, 1, 3); }
TEST(TableRoundTrip, CanadianPart3) { check_round_trip<draughts::Canadian>(pieces, 2, 3); }

}  // namespace
}  // namespace dtb
