// Rule-book tests: hand-built positions whose legal moves were worked out by
// hand from the rules of docs/design.md, "The game layer" (the derivation is in the comments).
// 8x8 squares: row 1 holds 1-4, row 8 holds 29-32; 29 is the bottom-left corner.
#include <gtest/gtest.h>

#include "draughts/perft.hpp"
#include "tests/draughts/test_support.hpp"

namespace draughts::test {
namespace {

using Moves = std::vector<std::string>;

TEST(Rules, StartPositionQuietMoves) {
    // International: the men on 31-35 step to the two squares diagonally ahead;
    // 35 stands on the right edge and has only 30.
    EXPECT_EQ(legal_move_texts<International>("W:W31-50:B1-20"),
              sorted({"31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30"}));
    // American: Black moves first, down the board, from 9-12 to 13-16.
    EXPECT_EQ(legal_move_texts<American>("B:W21-32:B1-12"),
              sorted({"9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"}));
}

// White man 14 with black men on 10 and 11: 14x7 over 10; from 7 the only
// further capture is backwards over 11 to 16.
TEST(Rules, MenCaptureBackwardsExceptInAmerican) {
    EXPECT_EQ(legal_move_texts<American>("W:W14:B10,11"), Moves{"14x7"});
    EXPECT_EQ(legal_move_texts<Brazilian>("W:W14:B10,11"), Moves{"14x16"});
    EXPECT_EQ(legal_move_texts<Russian>("W:W14:B10,11"), Moves{"14x16"});
}

// White man 11 jumps 7 and lands on 2, its promotion row; from 2 the next capture is over 6 to 9
// (backwards for a man; for a flying king, landing on 9 or 13).
TEST(Rules, PromotionDuringCapture) {
    const std::string fen = "W:W11:B6,7";
    // American: reaching the king row ends the move, the man is crowned.
    EXPECT_EQ(legal_move_texts<American>(fen), Moves{"11x2"});
    EXPECT_EQ(after<American>(fen, "11x2"), "B:WK2:B6");
    // Brazilian (FMJD rules): it passes the row as a man and is not crowned.
    EXPECT_EQ(legal_move_texts<Brazilian>(fen), Moves{"11x9"});
    EXPECT_EQ(after<Brazilian>(fen, "11x9"), "B:W9:B");
    // Russian: crowned on 2, it captures on as a flying king and may stop on 9 or 13.
    EXPECT_EQ(legal_move_texts<Russian>(fen), sorted({"11x9", "11x13"}));
    EXPECT_EQ(after<Russian>(fen, "11x13"), "B:WK13:B");
}

// A flying king on 29 and a black man on 18: it slides 25, 22, jumps 18 and may
// land on any of 15, 11, 8, 4. A short (American) king cannot reach it.
TEST(Rules, FlyingKingLandsOnAnySquareBeyond) {
    EXPECT_EQ(legal_move_texts<Brazilian>("W:WK29:B18"), sorted({"29x15", "29x11", "29x8", "29x4"}));
    EXPECT_EQ(legal_move_texts<Russian>("W:WK29:B18"), sorted({"29x15", "29x11", "29x8", "29x4"}));
    EXPECT_EQ(legal_move_texts<American>("W:WK29:B18"), Moves{"29-25"});
}

// Add a black man on 16: of the landing squares beyond 18, only 11 lets the king
// capture again (16, landing on 20). Maximum capture settles it in Brazilian;
// in Russian, where capture is free, the king must still land where it can go on.
TEST(Rules, KingLandsWhereItCanCaptureAgain) {
    EXPECT_EQ(legal_move_texts<Brazilian>("W:WK29:B16,18"), Moves{"29x20"});
    EXPECT_EQ(legal_move_texts<Russian>("W:WK29:B16,18"), Moves{"29x20"});
}

// International board. King 46 can only take 41 (landing 37 or 32; the white man
// on 28 stops it there) for one piece; the man on 35 takes 30 and 19 (35x24x13).
// The maximum rule makes the man's capture the only legal move.
TEST(Rules, MaximumCaptureBetweenKingAndMan) {
    EXPECT_EQ(legal_move_texts<International>("W:WK46,28,35:B41,30,19"), Moves{"35x13"});
}

// King 29, black men 22, 10, 9, 26. Taking 22 it may land on 18..4; from 18 it
// can take 9 (to 5); from 15 it takes 10, lands on 6 (1 is a dead end) and takes
// 9 to 13. From 13 the way to 26 runs over 22, already captured: it blocks until
// the move ends and cannot be jumped twice, so the longest capture is three pieces.
TEST(Rules, CapturedPiecesBlockAndAreNotJumpedTwice) {
    EXPECT_EQ(legal_move_texts<Brazilian>("W:WK29:B9,10,22,26"), Moves{"29x13"});
    EXPECT_EQ(after<Brazilian>("W:WK29:B9,10,22,26", "29x13"), "B:WK13:B26");
    // Russian: free choice, but landing only where the king can go on.
    EXPECT_EQ(legal_move_texts<Russian>("W:WK29:B9,10,22,26"), sorted({"29x5", "29x13"}));
}

// A man on 26 with black men on 22, 23, 14, 15 can go round them either way
// (26x17x10x19x26 or 26x19x10x17x26): the same start, end and captures, one move.
TEST(Rules, DuplicateCapturesCountOnce) {
    EXPECT_EQ(legal_move_texts<Brazilian>("W:W26:B14,15,22,23"), Moves{"26x26"});
    EXPECT_EQ(after<Brazilian>("W:W26:B14,15,22,23", "26x26"), "B:W26:B");
    // A short king does the same round.
    EXPECT_EQ(legal_move_texts<American>("W:WK26:B14,15,22,23"), Moves{"26x26"});
}

// American men capture forward only: the man on 26 reaches 10 over 22 and 14 or
// over 23 and 15, two moves with the same start and end, written with their paths.
TEST(Rules, SameStartAndEndDifferentCaptures) {
    EXPECT_EQ(legal_move_texts<American>("W:W26:B14,15,22,23"), sorted({"26x17x10", "26x19x10"}));
}

// Flying king quiet moves on 10x10: 46 slides along the long diagonal up to the
// black man on 5 (which sits on the edge, so it cannot be captured).
TEST(Rules, FlyingKingQuietMoves) {
    EXPECT_EQ(legal_move_texts<International>("W:WK46:B5"),
              sorted({"46-41", "46-37", "46-32", "46-28", "46-23", "46-19", "46-14", "46-10"}));
}

// 12x12 board (bits beyond 64): king on 67, the bottom-left corner; its diagonal
// runs 61, 56, 50, 45, 39, 34, 28, 23, 17, 12, 6. A black man on 39.
TEST(Rules, CanadianLongDiagonal) {
    EXPECT_EQ(legal_move_texts<Canadian>("W:WK67:B39"),
              sorted({"67x34", "67x28", "67x23", "67x17", "67x12", "67x6"}));
    EXPECT_EQ(legal_move_texts<Canadian>("B:WK67:B39"), sorted({"39-45", "39-46"}));
}

// Captures are compulsory: a man that could also step quietly must capture.
TEST(Rules, CaptureIsCompulsory) {
    EXPECT_EQ(legal_move_texts<International>("W:W33,45:B29"), Moves{"33x24"});
    EXPECT_EQ(legal_move_texts<American>("B:W18:B14,1"), Moves{"14x23"});
}

// The side to move with no legal move has none: no pieces, or every piece blocked.
TEST(Rules, NoMovesWhenBlockedOrEmpty) {
    EXPECT_TRUE(legal_move_texts<Brazilian>("W:B1").empty());
    // White man on 29 blocked by black men on 25 and 22 behind it (25 cannot be jumped).
    EXPECT_TRUE(legal_move_texts<Brazilian>("W:W29:B25,22").empty());
}

}  // namespace
}  // namespace draughts::test
