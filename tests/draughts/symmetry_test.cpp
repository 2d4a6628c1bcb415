// Properties that hold for any rules: turning the board round and swapping the
// colours changes no move count; counting equals generating; playing random
// games in every variant keeps the board consistent.
#include <gtest/gtest.h>

#include <random>

#include "draughts/perft.hpp"
#include "tests/draughts/test_support.hpp"

namespace draughts::test {
namespace {

TEST(Flip, RotatesAndSwapsColours) {
    const auto p = parse_fen<10>("W:W31,K45:B1,K20");
    // 31 -> 20, 45 -> 6 (now Black), 1 -> 50, 20 -> 31 (now White): square s goes to 51 - s.
    EXPECT_EQ(to_fen(p.flipped()), "B:WK31,50:BK6,20");
    EXPECT_EQ(p.flipped().flipped(), p);
    EXPECT_EQ(to_fen(parse_fen<12>("W:W72:BK1").flipped()), "B:WK72:B1");
    EXPECT_EQ(to_fen(parse_fen<8>("B:W21:B12").flipped()), "W:W21:B12");
}

template <class V>
void random_games(std::uint32_t seed, int games) {
    constexpr int N = V::board_size;
    std::mt19937 rng(seed);
    long plies = 0;
    for (int g = 0; g < games; ++g) {
        auto p = start_position<V>();
        for (int ply = 0; ply < 400; ++ply) {
            MoveList<N> moves;
            generate_moves<V>(p, moves);
            ASSERT_EQ(count_moves<V>(p), moves.size()) << to_fen(p);
            ASSERT_EQ(has_capture<V>(p), !moves.empty() && moves[0].is_capture()) << to_fen(p);
            const auto flipped = p.flipped();
            ASSERT_EQ(count_moves<V>(flipped), moves.size()) << to_fen(p);
            ASSERT_EQ(perft<V>(flipped, 2), perft<V>(p, 2)) << to_fen(p);
            ASSERT_EQ(parse_fen<N>(to_fen(p)), p);
            for (const auto& m : moves) ASSERT_EQ(parse_move<V>(p, move_to_text<V>(p, m)), m) << to_fen(p);
            if (moves.empty()) break;
            ++plies;
            make_move(p, moves[static_cast<int>(rng() % static_cast<unsigned>(moves.size()))]);
            ASSERT_EQ(p.white & p.black, 0u);
            ASSERT_EQ(p.kings & ~(p.white | p.black), 0u);
            ASSERT_EQ(p.occupied() & ~Geometry<N>::board, 0u);
            ASSERT_EQ(p.men(Color::white) & Geometry<N>::promotion_row(Color::white), 0u);
            ASSERT_EQ(p.men(Color::black) & Geometry<N>::promotion_row(Color::black), 0u);
        }
    }
    EXPECT_GT(plies, games * 20);  // the games were played, not cut short
}

TEST(RandomGames, American) { random_games<American>(1, 2000); }
TEST(RandomGames, Brazilian) { random_games<Brazilian>(2, 2000); }
TEST(RandomGames, Russian) { random_games<Russian>(3, 2000); }
TEST(RandomGames, International) { random_games<International>(4, 1000); }
TEST(RandomGames, Canadian) { random_games<Canadian>(5, 500); }
TEST(RandomGames, SmallBoards) {
    random_games<International6>(6, 2000);
    random_games<American6>(7, 2000);
}

}  // namespace
}  // namespace draughts::test
