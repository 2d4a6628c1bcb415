// The index: a gap-free bijection between legal placements and 0..size-1.
// Counts are checked against Schaeffer's published table for 8x8 checkers and
// against a plain enumeration of placements written here; the potential
// levels against counts worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "probe/index.hpp"
#include "probe/potential.hpp"
#include "tests/test_size.hpp"

namespace dtb {
namespace {

using draughts::Color;

// Every material of exactly n pieces, canonical or not; a side may be empty
// only if `allow_empty_side`.
std::vector<Material> all_materials(int n, bool allow_empty_side) {
    std::vector<Material> result;
    for (int wm = 0; wm <= n; ++wm)
        for (int wk = 0; wm + wk <= n; ++wk)
            for (int bm = 0; wm + wk + bm <= n; ++bm) {
                const Material m{wm, wk, bm, n - wm - wk - bm};
                if (allow_empty_side || (m.white_pieces() > 0 && m.black_pieces() > 0)) result.push_back(m);
            }
    return result;
}

template <int N>
std::uint64_t total_placements(int pieces) {
    std::uint64_t total = 0;
    for (const Material& m : all_materials(pieces, true)) total += Index<N>(m).size();
    return total;
}

// Jonathan Schaeffer et al., "Building the Checkers 10-piece Endgame Databases"
// (2003), table 1: positions of n pieces on the 8x8 board, any mix of men and
// kings, one side possibly without pieces, no side to move counted.
TEST(Index, SchaefferCountsFor8x8) {
    const std::uint64_t published[] = {0, 0, 6'972, 261'224, 7'092'774, 148'688'232, 2'503'611'964,
                                       34'779'531'480, 406'309'208'481};
    for (int n = 2; n <= 8; ++n) EXPECT_EQ(total_placements<8>(n), published[n]) << n << " pieces";
}

TEST(Index, KingsOnlyCountsOn8x8) {
    // 32 squares: KvK 32*31, KKvK C(32,2)*30, KKvKK C(32,2)*C(30,2), KKKvK C(32,3)*29.
    EXPECT_EQ(Index<8>(Material::parse("KvK")).size(), 992u);
    EXPECT_EQ(Index<8>(Material::parse("KKvK")).size(), 14'880u);
    EXPECT_EQ(Index<8>(Material::parse("KKvKK")).size(), 215'760u);
    EXPECT_EQ(Index<8>(Material::parse("KKKvK")).size(), 143'840u);
}

// rank(unrank(i)) == i for every index, and unrank gives a legal placement of
// the material. The index depends on the board only, so the four boards cover
// every variant: 8x8 American, Brazilian and Russian, 10x10 International,
// 12x12 Canadian, and the 6x6 test boards.
template <int N>
void check_every_index(const Material& m) {
    const Index<N> index(m);
    for (std::uint64_t i = 0; i < index.size(); ++i) {
        const auto p = index.unrank(i);
        if (!legal_placement(p) || material_of(p) != m || index.rank(p) != i) {
            ADD_FAILURE() << m.name() << " on " << N << "x" << N << ": index " << i << " does not round-trip";
            return;
        }
    }
}

template <int N>
void check_every_index_up_to(int pieces) {
    for (int n = 2; n <= pieces; ++n)
        for (const Material& m : all_materials(n, false)) check_every_index<N>(m);
}

TEST(Index, EveryIndexRoundTrips6x6) { check_every_index_up_to<6>(4); }
TEST(Index, EveryIndexRoundTrips8x8) { check_every_index_up_to<8>(4); }
TEST(Index, EveryIndexRoundTrips10x10) { check_every_index_up_to<10>(4); }
// Up to 3 pieces in the sanitizer builds (test_size.hpp), still 128-bit squares.
TEST(Index, EveryIndexRoundTrips12x12) { check_every_index_up_to<12>(test::full_or_small(4, 3)); }

// A plain enumeration: each piece of a kind on a strictly larger square than
// the previous one of its kind, every square tried, illegal ones skipped.
template <int N>
void enumerate_placements(const Material& m, std::vector<draughts::Position<N>>& out) {
    using G = draughts::Geometry<N>;
    using B = typename G::Bitboard;
    const int counts[4] = {m.white_men, m.white_kings, m.black_men, m.black_kings};
    B sets[4] = {0, 0, 0, 0};
    auto place = [&](auto& self, int kind, int placed, int from) -> void {
        if (kind == 4) {
            draughts::Position<N> p;
            p.white = sets[0] | sets[1];
            p.black = sets[2] | sets[3];
            p.kings = sets[1] | sets[3];
            out.push_back(p);
            return;
        }
        if (placed == counts[kind]) return self(self, kind + 1, 0, 0);
        for (int s = from; s < G::squares; ++s) {
            const B b = draughts::bit<B>(G::bit_of_square(s));
            if ((sets[0] | sets[1] | sets[2] | sets[3]) & b) continue;
            const int row = G::row_of_square(s);
            if ((kind == 0 && row == 0) || (kind == 2 && row == N - 1)) continue;  // men off their promotion row
            sets[kind] |= b;
            self(self, kind, placed + 1, s + 1);
            sets[kind] &= ~b;
        }
    };
    place(place, 0, 0, 0);
}

template <int N>
void check_enumeration(const Material& m) {
    std::vector<draughts::Position<N>> placements;
    enumerate_placements<N>(m, placements);
    const Index<N> index(m);
    ASSERT_EQ(placements.size(), index.size()) << m.name();
    std::vector<bool> seen(index.size());
    for (const auto& p : placements) {
        const std::uint64_t i = index.rank(p);
        ASSERT_LT(i, index.size()) << m.name();
        ASSERT_FALSE(seen[i]) << m.name() << ": index " << i << " reached twice";
        seen[i] = true;
        ASSERT_EQ(index.unrank(i), p) << m.name();
    }
}

TEST(Index, EveryPlacementReachedOnce) {
    for (int n = 2; n <= 3; ++n)
        for (const Material& m : all_materials(n, true)) {
            check_enumeration<8>(m);
            check_enumeration<12>(m);
        }
    for (int n = 2; n <= 5; ++n)
        for (const Material& m : all_materials(n, true)) check_enumeration<6>(m);
}

// A random legal placement, drawn without the index: squares shuffled, men
// skipping their promotion row.
template <int N>
draughts::Position<N> random_placement(const Material& m, std::mt19937_64& rng) {
    using G = draughts::Geometry<N>;
    using B = typename G::Bitboard;
    std::vector<int> squares(G::squares);
    for (int s = 0; s < G::squares; ++s) squares[s] = s;
    std::shuffle(squares.begin(), squares.end(), rng);
    draughts::Position<N> p;
    auto take = [&](int count, Color c, bool king) {
        for (auto it = squares.begin(); count > 0;) {
            const int row = G::row_of_square(*it);
            if (!king && row == (c == Color::white ? 0 : N - 1)) { ++it; continue; }
            const B b = draughts::bit<B>(G::bit_of_square(*it));
            (c == Color::white ? p.white : p.black) |= b;
            if (king) p.kings |= b;
            it = squares.erase(it);
            --count;
        }
    };
    take(m.white_men, Color::white, false);
    take(m.black_men, Color::black, false);
    take(m.white_kings, Color::white, true);
    take(m.black_kings, Color::black, true);
    return p;
}

template <int N>
void check_random_samples(int min_pieces, int max_pieces, int samples) {
    using B = typename draughts::Geometry<N>::Bitboard;
    std::mt19937_64 rng(20261122 + N);
    for (int n = min_pieces; n <= max_pieces; ++n)
        for (const Material& m : all_materials(n, false)) {
            const Index<N> index(m), mirror(m.mirrored());
            std::uniform_int_distribution<std::uint64_t> any(0, index.size() - 1);
            for (int k = 0; k < samples; ++k) {
                const std::uint64_t i = k == 0 ? 0 : k == 1 ? index.size() - 1 : any(rng);
                const auto p = index.unrank(i);
                ASSERT_TRUE(legal_placement(p)) << m.name() << " " << i;
                ASSERT_EQ(material_of(p), m) << i;
                ASSERT_EQ(index.rank(p), i) << m.name();
                // Kings last: the men are those of the configuration i / block.
                const auto men = index.unrank_men(i / index.king_placements());
                ASSERT_EQ(men.white, p.men(Color::white));
                ASSERT_EQ(men.black, p.men(Color::black));
                const auto q = random_placement<N>(m, rng);
                // Ranking the kings turned round without turning: as Index of
                // the mirror ranks the flipped position.
                const auto free = draughts::Geometry<N>::board & ~(q.occupied() & ~q.kings);
                ASSERT_EQ(mirror.rank_kings_turned(q.kings_of(Color::white), q.kings_of(Color::black), free),
                          mirror.rank_kings(q.flipped()))
                    << m.name();
                ASSERT_EQ(mirror.rank_turned(q), mirror.rank(q.flipped())) << m.name();
                // The same with one black king moved to an empty square, for
                // many moves of one position (the solver's predecessors).
                typename Index<N>::BlackKingMovesTurned moves(mirror, q.kings_of(Color::white),
                                                              q.kings_of(Color::black), free);
                draughts::for_each_bit(q.kings_of(Color::black), [&](int from) {
                    draughts::for_each_bit(q.empty(), [&](int to) {
                        auto moved = q;
                        moved.black ^= draughts::bit<B>(from) | draughts::bit<B>(to);
                        moved.kings ^= draughts::bit<B>(from) | draughts::bit<B>(to);
                        ASSERT_EQ(moves.rank(from, to), mirror.rank_kings(moved.flipped())) << m.name();
                    });
                });
                const std::uint64_t j = index.rank(q);
                ASSERT_LT(j, index.size()) << m.name();
                ASSERT_EQ(index.unrank(j), q) << m.name();
            }
        }
}

TEST(Index, RandomSamples5To8Pieces8x8) { check_random_samples<8>(5, 8, 300); }
TEST(Index, RandomSamples5To8Pieces10x10) { check_random_samples<10>(5, 8, 300); }
TEST(Index, RandomSamples5To8Pieces12x12) { check_random_samples<12>(5, 8, 300); }
TEST(Index, RandomSamples5To8Pieces6x6) { check_random_samples<6>(5, 8, 300); }

// Groups of more than 16 pieces of one kind take the binary search instead of
// the key table (combination.hpp): 17 white kings on 12x12, 18 on 10x10, and
// 17 white men on 8x8 all round-trip.
template <int N>
void check_large_group(const Material& m) {
    const Index<N> index(m);
    std::mt19937_64 rng(17);
    std::uniform_int_distribution<std::uint64_t> any(0, index.size() - 1);
    for (int k = 0; k < 2000; ++k) {
        const std::uint64_t i = any(rng);
        const auto p = index.unrank(i);
        ASSERT_TRUE(legal_placement(p));
        ASSERT_EQ(material_of(p), m);
        ASSERT_EQ(index.rank(p), i) << m.name();
        const auto q = random_placement<N>(m, rng);
        ASSERT_EQ(index.unrank(index.rank(q)), q) << m.name();
    }
}

TEST(Index, GroupsLargerThanTheKeyTable) {
    check_large_group<12>(Material{0, 17, 0, 1});
    check_large_group<10>(Material{0, 18, 1, 1});
    check_large_group<8>(Material{17, 0, 1, 0});
}

TEST(Index, Every9PieceMaterialFits64BitsOn12x12) {
    for (const Material& m : all_materials(9, true)) EXPECT_NO_THROW(Index<12>{m}) << m.name();
}

// Where 64 bits end (docs/design.md, "Index"): every material of 12 pieces
// fits on 12x12 and of 15 on 10x10; 3 men and 3 kings against 3 men and 4
// kings on 12x12 (5.0e19) and 4 + 4 against 4 + 4 on 10x10 (1.3e20) do not.
TEST(Index, SizeLimits) {
    for (const Material& m : all_materials(12, false)) EXPECT_NO_THROW(Index<12>{m}) << m.name();
    for (const Material& m : all_materials(15, false)) EXPECT_NO_THROW(Index<10>{m}) << m.name();
    EXPECT_THROW(Index<12>(Material::parse("KKKMMMvKKKKMMM")), IndexError);
    EXPECT_THROW(Index<10>(Material::parse("KKKKMMMMvKKKKMMMM")), IndexError);
}

TEST(Index, TooLargeMaterialIsRefusedWithTheReason) {
    // C(72,20) * C(52,20) is about 1.6e34, far beyond 2^64.
    try {
        Index<12>(Material{0, 20, 0, 20});
        FAIL() << "expected IndexError";
    } catch (const IndexError& e) {
        EXPECT_NE(std::string(e.what()).find("64-bit"), std::string::npos) << e.what();
    }
}

// Symmetry: Black to move in M is White to move in M's mirror, the board
// turned round. Over every placement of small materials the map is a
// bijection onto the mirror's indexes, and applying it twice gives p back.
TEST(Index, BlackToMoveMapsOntoTheMirror) {
    for (int n = 2; n <= 3; ++n)
        for (const Material& m : all_materials(n, false)) {
            const Index<10> index(m), mirror(m.mirrored());
            ASSERT_EQ(index.size(), mirror.size());
            std::vector<bool> seen(mirror.size());
            for (std::uint64_t i = 0; i < index.size(); ++i) {
                auto p = index.unrank(i);
                p.side_to_move = Color::black;
                const auto q = white_to_move(p);
                ASSERT_EQ(q.side_to_move, Color::white);
                ASSERT_EQ(q.flipped(), p);  // the map twice is the identity
                const Address a = address_of(p);
                ASSERT_EQ(a.material, m.mirrored());
                ASSERT_EQ(a.index, mirror.rank(q));
                ASSERT_FALSE(seen[a.index]) << m.name();
                seen[a.index] = true;
                p.side_to_move = Color::white;
                ASSERT_EQ(address_of(p), (Address{m, i}));
            }
        }
}

// The runs of paired_positions() are paired_position() of each position,
// whatever run a writer asks for: runs that start anywhere and cross the
// halves and the men configurations, on every material up to 4 pieces.
template <int N>
void check_paired_runs(int pieces) {
    std::mt19937_64 random(N);
    for (int n = 2; n <= pieces; ++n)
        for (const Material& m : all_materials(n, false)) {
            const Index<N> own(m), mirror(m.mirrored());
            const std::uint64_t positions = 2 * own.size();
            std::vector<std::uint64_t> w;
            for (std::uint64_t g = 0; g < positions;) {
                w.resize(std::min<std::uint64_t>(positions - g, 1 + random() % (2 * own.king_placements() + 3)));
                paired_positions(own, mirror, g, w);
                for (std::size_t k = 0; k < w.size(); ++k)
                    ASSERT_EQ(w[k], paired_position(own, mirror, g + k)) << m.name() << " position " << g + k;
                g += w.size();
            }
        }
}

TEST(Index, PairedRunsAsPositionByPosition6x6) { check_paired_runs<6>(4); }
TEST(Index, PairedRunsAsPositionByPosition8x8) { check_paired_runs<8>(4); }
TEST(Index, PairedRunsAsPositionByPosition10x10) { check_paired_runs<10>(3); }
TEST(Index, PairedRunsAsPositionByPosition12x12) { check_paired_runs<12>(3); }

// Potential levels by hand. MvK on 8x8: the man stands on rows 2-8, four
// squares a row, advancement 6 down to 0: seven levels of 4 configurations.
TEST(PotentialLevels, OneManOn8x8) {
    const PotentialLevels<8> levels(Material::parse("MvK"));
    ASSERT_EQ(levels.levels().size(), 7u);
    for (int k = 0; k < 7; ++k) {
        EXPECT_EQ(levels.levels()[k].potential, 6 - k);
        EXPECT_EQ(levels.levels()[k].men_configurations, 4u);
    }
}

// MvM on 8x8: advancements a (White) and b (Black) each 0..6, 16 square pairs
// per (a, b), except that a + b = 7 puts both men on the same row (rows 2-7),
// where 4 of the 16 pairs share a square: level p has 16 * pairs(p) men
// configurations, pairs(p) = min(p, 12 - p) + 1, and level 7 has 6 * 12 = 72.
TEST(PotentialLevels, ManAgainstManOn8x8) {
    const PotentialLevels<8> levels(Material::parse("MvM"));
    ASSERT_EQ(levels.levels().size(), 13u);
    for (const auto& level : levels.levels()) {
        const int p = level.potential;
        const std::uint64_t expected = p == 7 ? 72 : 16 * (std::min(p, 12 - p) + 1);
        EXPECT_EQ(level.men_configurations, expected) << "potential " << p;
    }
}

TEST(PotentialLevels, KingsOnlyHaveOneLevel) {
    const PotentialLevels<12> levels(Material::parse("KKKvK"));
    ASSERT_EQ(levels.levels().size(), 1u);
    EXPECT_EQ(levels.levels()[0].potential, 0);
    EXPECT_EQ(levels.levels()[0].men_configurations, 1u);
}

// Enumerating each level reaches every men configuration of the index
// exactly once, with the potential of its level, and rank_in_level() counts
// the configurations the enumeration gave before it.
template <int N>
void check_levels(const Material& m) {
    const Index<N> index(m);
    const PotentialLevels<N> levels(m);
    std::vector<bool> seen(index.men_configurations());
    std::uint64_t total = 0;
    int previous = 1 << 30;
    for (const auto& level : levels.levels()) {
        ASSERT_LT(level.potential, previous);
        previous = level.potential;
        std::uint64_t count = 0;
        levels.for_each_men_configuration(level.potential, [&](auto white_men, auto black_men) {
            ASSERT_EQ(potential<N>(white_men, black_men), level.potential);
            ASSERT_EQ(levels.rank_in_level(white_men, black_men), count) << m.name();
            const std::uint64_t men = index.rank_men(white_men, black_men);
            ASSERT_LT(men, seen.size());
            ASSERT_FALSE(seen[men]);
            seen[men] = true;
            ++count;
        });
        ASSERT_EQ(count, level.men_configurations) << m.name();
        total += count;
    }
    EXPECT_EQ(total, index.men_configurations()) << m.name();
}

TEST(PotentialLevels, LevelsPartitionTheMenConfigurations) {
    for (int n = 1; n <= 4; ++n)
        for (const Material& m : all_materials(n, true)) {
            check_levels<8>(m);
            check_levels<10>(m);
        }
    check_levels<12>(Material::parse("MMvMM"));
}

}  // namespace
}  // namespace dtb
