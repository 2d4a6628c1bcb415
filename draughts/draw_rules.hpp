// The move-count draw rules of each variant as compile-time data
// (docs/rules.md, "Move-count draw rules"). A count runs in plies; when one
// reaches its limit the game is drawn, unless the side to move has no legal
// move (then it has lost: the winning move came first). Tables of values
// under these rules are a separate value from DTW (docs/design.md, "Values").
//
// The counts:
//   - kings only: plies since the last man move or capture, any material;
//   - a lone-king ending: plies since the ending arose, for one king alone
//     against `strong_min`..`strong_max` pieces with at least `strong_kings`
//     kings. It arises when a move leads into the ending from outside it;
//     moves inside it (whatever the material) never reset it;
//   - the main road (Russian 7.2.7): plies since the lone king first stood
//     alone on the long diagonal in this ending;
//   - the balance (Russian 7.2.6): plies since the last capture or
//     promotion while both sides have kings.
#pragma once

#include <array>
#include <string_view>

namespace draughts {

struct KingsOnlyCount {
    int limit;  // plies
    std::string_view article;
};

struct LoneKingCount {
    int strong_min, strong_max;  // pieces of the side against the lone king
    int strong_kings;            // at least this many of them kings
    int limit;                   // plies
    std::string_view article;
};

// Russian 7.2.7: a lone king against exactly `strong_pieces` pieces with at
// least one king, once it has stood on the long diagonal.
struct MainRoadCount {
    int strong_pieces;
    int limit;  // plies, counted from the first moment on the road
    std::string_view article;
};

// Russian 7.2.6: both sides have kings; the limit by the pieces on the board.
struct BalanceCount {
    int limit_4_5, limit_6_7;  // plies
    std::string_view article;
};

// International (FMJD rules, art. 6), and Canadian, which plays by them on 12x12.
struct FmjdDrawRules {
    static constexpr std::string_view profile = "fmjd";
    // 6.3: 25 moves each with only kings moved and nothing captured.
    static constexpr KingsOnlyCount kings_only{50, "FMJD 6.3 (25 moves each, only kings moved, no capture)"};
    static constexpr std::array<LoneKingCount, 2> lone_king{{
        // 6.5: two kings, a king and a man, or one king against one king: 5 moves each.
        {1, 2, 1, 10, "FMJD 6.5 (1 king against 1 or 2 pieces with a king: 5 moves each)"},
        // 6.4: three pieces, at least one a king, against one king: 16 moves each.
        {3, 3, 1, 32, "FMJD 6.4 (1 king against 3 pieces with a king: 16 moves each)"},
    }};
    static constexpr std::array<MainRoadCount, 0> main_road{};
    static constexpr std::array<BalanceCount, 0> balance{};
};

// Brazilian (CBD rules): 20 moves of kings only on 64 squares; the lone-king
// endings as FMJD's (docs/rules.md says why).
struct CbdDrawRules {
    static constexpr std::string_view profile = "cbd";
    // CBD rule 16: after 20 successive moves of kings, no capture and no man moved.
    static constexpr KingsOnlyCount kings_only{40, "CBD 16 (20 moves each, only kings moved, no capture)"};
    static constexpr std::array<LoneKingCount, 2> lone_king = FmjdDrawRules::lone_king;
    static constexpr std::array<MainRoadCount, 0> main_road{};
    static constexpr std::array<BalanceCount, 0> balance{};
};

// Russian (FMJD section 64 rules, art. 7.2).
struct RussianDrawRules {
    static constexpr std::string_view profile = "fmjd64";
    // 7.2.5: 15 moves with only kings moved, no man moved and nothing captured.
    static constexpr KingsOnlyCount kings_only{30, "FMJD-64 7.2.5 (15 moves each, only kings moved, no capture)"};
    static constexpr std::array<LoneKingCount, 2> lone_king{{
        // 7.2.8: two kings, a king and a man, or one king against one king: his 5th move.
        {1, 2, 1, 10, "FMJD-64 7.2.8 (1 king against 1 or 2 pieces with a king: 5 moves)"},
        // 7.2.4: three kings or more against one king: his 15th move must take it.
        {3, 12, 3, 30, "FMJD-64 7.2.4 (1 king against 3 kings or more: 15 moves)"},
    }};
    // 7.2.7: three pieces with a king against one king on the main road: 5 moves.
    static constexpr std::array<MainRoadCount, 1> main_road{{{3, 10, "FMJD-64 7.2.7 (1 king on the main road against 3 pieces with a king: 5 moves)"}}};
    // 7.2.6: both sides with kings, no capture and no promotion: 30 moves in
    // 4- and 5-piece endings, 60 in 6- and 7-piece endings.
    static constexpr std::array<BalanceCount, 1> balance{{{60, 120, "FMJD-64 7.2.6 (both sides with kings, no capture or promotion: 30/60 moves)"}}};
};

// American checkers (ACF and EDA rules): 40 moves each with no man moved and
// nothing captured. The rule is claimed; a claim can be made at any moment,
// so the tables treat it as automatic.
struct AmericanDrawRules {
    static constexpr std::string_view profile = "acf";
    static constexpr KingsOnlyCount kings_only{80, "ACF/EDA 40-move rule (40 moves each, no man moved, no capture)"};
    static constexpr std::array<LoneKingCount, 0> lone_king{};
    static constexpr std::array<MainRoadCount, 0> main_road{};
    static constexpr std::array<BalanceCount, 0> balance{};
};

}  // namespace draughts
