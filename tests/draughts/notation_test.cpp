#include <gtest/gtest.h>

#include "tests/draughts/test_support.hpp"

namespace draughts::test {
namespace {

TEST(Fen, RoundTripAndRanges) {
    EXPECT_EQ(to_fen(parse_fen<10>("W:W31,32,K45:B1,2,K3")), "W:W31,32,K45:B1,2,K3");
    EXPECT_EQ(to_fen(parse_fen<8>("B:W21-24,K30:BK1-3,12")), "B:W21,22,23,24,K30:BK1,K2,K3,12");
    EXPECT_EQ(to_fen(parse_fen<10>("W:W31-50:B1-20")), to_fen(start_position<International>()));
    EXPECT_EQ(to_fen(parse_fen<12>("W:WK67:B")), "W:WK67:B");
    // Whitespace, lower case and PDN's closing full stop are accepted.
    EXPECT_EQ(to_fen(parse_fen<8>(" w:w 21 , 22:b1. ")), "W:W21,22:B1");
    EXPECT_EQ(to_fen(parse_fen<8>("W")), "W:W:B");
}

TEST(Fen, StartPositions) {
    EXPECT_EQ(to_fen(start_position<American>()), "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12");
    EXPECT_EQ(start_position<Canadian>(), parse_fen<12>("W:W43-72:B1-30"));
    EXPECT_EQ(start_position<Russian>(), parse_fen<8>("W:W21-32:B1-12"));
}

// Expects read(input) to throw a NotationError whose message contains `words`.
template <class Read>
void expect_notation_error(Read&& read, const std::string& input, const std::string& words) {
    try {
        read(input);
        ADD_FAILURE() << "accepted malformed input '" << input << "'";
    } catch (const NotationError& e) {
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
}

void expect_fen_error(const std::string& fen, const std::string& words) {
    expect_notation_error([](const std::string& f) { parse_fen<10>(f); }, fen, words);
}

TEST(Fen, MalformedInputIsRejectedWithTheReason) {
    expect_fen_error("", "empty");
    expect_fen_error(":W31:B1", "side to move");
    expect_fen_error("X:W31:B1", "side to move");
    expect_fen_error("W:W0:B1", "square 0 is out of range");
    expect_fen_error("W:W51:B1", "square 51 is out of range");
    expect_fen_error("W:W31,31:B1", "given twice");
    expect_fen_error("W:W31:B31", "given twice");
    expect_fen_error("W:W3:B20", "white man on square 3 stands on its own promotion row");
    expect_fen_error("W:W31:B48", "black man on square 48 stands on its own promotion row");
    expect_fen_error("W:W31:B1:W32", "listed twice");
    expect_fen_error("W:Wa1:B1", "unknown square");
    expect_fen_error("W:W31;B1", "unexpected characters");
    expect_fen_error("W:W31:B1-", "unknown square range");
    expect_fen_error("W:W35-31:B1", "runs backwards");
    expect_fen_error("W:W31:X1", "expected a colour");
    expect_fen_error("W:W31,,32:B1", "empty entry");
    expect_fen_error("W31:B1", "expected ':'");
}

TEST(MoveText, QuietAndCaptureRoundTrip) {
    const auto start = start_position<International>();
    const auto m = parse_move<International>(start, "32-28");
    EXPECT_EQ(square_number<10>(m.from), 32);
    EXPECT_EQ(square_number<10>(m.to), 28);
    EXPECT_EQ(move_to_text<International>(start, m), "32-28");
    const auto p = parse_fen<10>("W:W33,45:B29");
    EXPECT_EQ(move_to_text<International>(p, parse_move<International>(p, "33x24")), "33x24");
}

TEST(MoveText, FullPathWhenStartAndEndAreShared) {
    const std::string fen = "W:W26:B14,15,22,23";
    const auto p = parse_fen<8>(fen);
    const auto via17 = parse_move<American>(p, "26x17x10");
    const auto via19 = parse_move<American>(p, "26x19x10");
    EXPECT_EQ(popcount(via17.captured), 2);
    EXPECT_NE(via17.captured, via19.captured);
    EXPECT_EQ(move_to_text<American>(p, via17), "26x17x10");
    EXPECT_EQ(move_to_text<American>(p, via19), "26x19x10");
    EXPECT_EQ(after<American>(fen, "26x17x10"), "B:W10:B15,23");
    expect_notation_error([&](const std::string& t) { parse_move<American>(p, t); }, "26x10", "ambiguous");
}

void expect_move_error(const std::string& text, const std::string& words) {
    expect_notation_error([](const std::string& t) { parse_move<International>(start_position<International>(), t); },
                          text, words);
}

TEST(MoveText, MalformedMovesAreRejected) {
    expect_move_error("", "expected a square number");
    expect_move_error("32_28", "unexpected");
    expect_move_error("32-", "expected a square number");
    expect_move_error("x28", "expected a square number");
    expect_move_error("32-28-23", "two squares");
    expect_move_error("32x28", "not legal");
    expect_move_error("32-27x21", "mixes");
    expect_move_error("60-55", "out of range");
    expect_move_error("31-22", "not legal");
    const auto p = parse_fen<10>("W:W33,45:B29");
    EXPECT_THROW(parse_move<International>(p, "45-40"), NotationError);  // a capture is compulsory
}

}  // namespace
}  // namespace draughts::test
