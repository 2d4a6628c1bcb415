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

namespace dtb {
namespace {

template <int N>
dtb_position squares_of(const draughts::Position<N>& p) {
    using G = draughts::Geometry<N>;
    using B = typename G::Bitboard;
    dtb_position d{};
    for (int s = 0; s < G::squares; ++s) {
        const B b = draughts::bit<B>(G::bit_of_square(s));
        const std::uint64_t word = std::uint64_t{1} << (s % 64);
        if (p.white & b) d.white[s / 64] |= word;
        if (p.black & b) d.black[s / 64] |= word;
        if (p.kings & b) d.kings[s / 64] |= word;
    }
    d.white_to_move = p.side_to_move == draughts::Color::white;
    return d;
}

template <class V>
void check_round_trip(int max_pieces) {
    constexpr int N = V::board_size;
    const test::TemporaryDirectory dir(std::string(V::name));
    const std::filesystem::path tables = dir.path() / std::string(V::name);
    std::filesystem::create_directories(tables);
    std::vector<Material> materials;
    for (int n = 2; n <= max_pieces; ++n)
        for (const Material& m : canonical_materials(n)) materials.push_back(m);
    int sixteen_bit = 0;
    for (const Material& m : materials) sixteen_bit += test::write_synthetic_tables<V>(tables, m).dtw_bits == 16;
    EXPECT_GT(sixteen_bit, 0);

    const Tablebase cpp(V::name, dir.path());
    dtb_tablebase* c = nullptr;
    ASSERT_EQ(dtb_open(std::string(V::name).c_str(), dir.path().c_str(), 0, &c), DTB_OK) << dtb_last_error();
    ASSERT_EQ(cpp.materials().size(), materials.size());

    std::uint64_t checked = 0, captures = 0;
    for (const Material& m : materials) {
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
            ++checked;
        }
    }
    dtb_close(c);
    EXPECT_GT(captures, 0u);
    std::printf("%s: %zu materials, %llu positions read back through both APIs, %llu with a capture\n",
                std::string(V::name).c_str(), materials.size(), static_cast<unsigned long long>(checked),
                static_cast<unsigned long long>(captures));
}

TEST(TableRoundTrip, American) { check_round_trip<draughts::American>(4); }
TEST(TableRoundTrip, Brazilian) { check_round_trip<draughts::Brazilian>(4); }
TEST(TableRoundTrip, Russian) { check_round_trip<draughts::Russian>(4); }
TEST(TableRoundTrip, International) { check_round_trip<draughts::International>(4); }
TEST(TableRoundTrip, Canadian) { check_round_trip<draughts::Canadian>(4); }

}  // namespace
}  // namespace dtb
