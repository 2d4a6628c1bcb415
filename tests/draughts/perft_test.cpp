// Perft counts checked against published figures (duplicate captures removed).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "draughts/notation.hpp"
#include "draughts/perft.hpp"

namespace draughts {
namespace {

template <class V>
void expect_perft(const Position<V::board_size>& p, const std::vector<std::uint64_t>& expected) {
    for (std::size_t d = 0; d < expected.size(); ++d)
        EXPECT_EQ(perft<V>(p, static_cast<int>(d + 1)), expected[d]) << V::name << " depth " << d + 1;
}

// Start positions: the counts of the issue tracker (Aart Bik; Rein Halbersma's
// "Perft for all recognized draughts variants", damforum 2010).
TEST(PerftStart, American) {
    expect_perft<American>(start_position<American>(),
                           {7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680});
}
TEST(PerftStart, AmericanDeeper) {  // Aart Bik, 8x8 checkers perft
    EXPECT_EQ(perft<American>(start_position<American>(), 10), 18391564u);
    EXPECT_EQ(perft<American>(start_position<American>(), 11), 85242128u);
}
TEST(PerftStart, Brazilian) {
    expect_perft<Brazilian>(start_position<Brazilian>(), {7, 49, 302, 1469, 7473, 37628, 187302, 907830});
}
TEST(PerftStart, Russian) {
    expect_perft<Russian>(start_position<Russian>(), {7, 49, 302, 1469, 7482, 37986, 190146, 929899});
}
TEST(PerftStart, International) {
    expect_perft<International>(start_position<International>(),
                                {9, 81, 658, 4265, 27117, 167140, 1049442});
}
TEST(PerftStart, InternationalDeeper) {  // Aart Bik's BikDam and the damforum perft thread
    EXPECT_EQ(perft<International>(start_position<International>(), 8), 6483961u);
    EXPECT_EQ(perft<International>(start_position<International>(), 9), 41022423u);
}
TEST(PerftStart, Canadian) {
    expect_perft<Canadian>(start_position<Canadian>(), {11, 121, 1222, 10053, 79049, 584100});
}

// International positions with kings and long captures, from the damforum
// perft thread (topic 2308), as collected by several independent programs.
TEST(PerftInternational, FourteenCaptures) {
    expect_perft<International>(
        parse_fen<10>("B:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46:BK17,K24"),
        {14, 55, 1168, 5432, 87195, 629010, 9041010});
}
TEST(PerftInternational, Woldouby) {
    expect_perft<International>(parse_fen<10>("W:W25,27,28,30,32,33,34,35,37,38:B12,13,14,16,18,19,21,23,24,26"),
                                {6, 12, 30, 73, 215, 590, 1944, 6269, 22369, 88050, 377436, 1910989});
}
TEST(PerftInternational, AllKings) {
    expect_perft<International>(parse_fen<10>("W:WK31-50:BK1-20"),
                                {17, 79, 352, 1399, 7062, 37589, 217575, 1333217});
}
TEST(PerftInternational, MenBeforePromotion) {
    expect_perft<International>(parse_fen<10>("W:W6-10:B41-45"), {9, 81, 795, 7578, 86351, 936311});
}

// The 6x6 boards exist for small exhaustive tests. Counted by hand: White's
// three men on row 5 have 5 moves, and Black's replies are 5 whatever White played.
TEST(PerftSmallBoards, SixBySix) {
    EXPECT_EQ(perft<International6>(start_position<International6>(), 1), 5u);
    EXPECT_EQ(perft<International6>(start_position<International6>(), 2), 25u);
    EXPECT_EQ(perft<American6>(Position<6>::start(2, Color::white), 1), 5u);
    EXPECT_EQ(perft<American6>(Position<6>::start(2, Color::white), 2), 25u);
}

}  // namespace
}  // namespace draughts
