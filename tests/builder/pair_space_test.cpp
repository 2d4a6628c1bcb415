// A pair's positions in block order, as a team member holding a split pair
// keeps them, and one process a big pair (builder/solver/pair_space.hpp):
// walked, counted into runs of the table's order, mapped back run by run or
// tile by tile, each checked against a brute-force count or the index's own
// ranking.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <utility>
#include <random>
#include <vector>

#include "builder/solver/pair_space.hpp"
#include "draughts/variant.hpp"
#include "probe/combination.hpp"
#include "probe/potential.hpp"
#include "probe/table_format.hpp"

namespace dtb {
namespace {

// Whether a comes before b in colexicographic order: at the highest square
// where they differ, b has a piece.
bool colex_less(std::uint64_t a, std::uint64_t b) {
    if (a == b) return false;
    const std::uint64_t differ = a ^ b;
    return (b >> (63 - __builtin_clzll(differ)) & 1) != 0;
}

TEST(Combination, RankBelowCountsTheGroupsBefore) {
    std::mt19937_64 random(14);
    for (int trial = 0; trial < 300; ++trial) {
        const int n = 14;
        const std::uint64_t universe = (std::uint64_t{1} << n) - 1;
        const std::uint64_t available = random() & universe;
        const int k = static_cast<int>(random() % 4) + 1;
        std::uint64_t group = 0;  // k squares anywhere, available or not
        while (draughts::popcount(group) < k) group |= std::uint64_t{1} << (random() % n);
        std::uint64_t below = 0;
        for (std::uint64_t s = 0; s <= universe; ++s)
            if ((s & ~available) == 0 && draughts::popcount(s) == k && colex_less(s, group)) ++below;
        EXPECT_EQ(combination::rank_below(group, available), below) << "group " << group << " available " << available;
        if ((group & ~available) == 0) {
            EXPECT_EQ(combination::rank(group, available), below);
        }
    }
}

TEST(Combination, NextCompressedIsTheNextRank) {
    for (int k = 1; k <= 4; ++k)
        for (std::uint64_t r = 0; r + 1 < combination::binomial(12, k); ++r)
            EXPECT_EQ(combination::next_compressed(combination::unrank_compressed<std::uint64_t>(r, k)),
                      combination::unrank_compressed<std::uint64_t>(r + 1, k));
}

// For ranges of block-order locals of each half of a pair: the walk in
// block order gives each position at its BlockOrder::state, and the runs of
// the table's order are those the index ranks the same positions into.
template <class V>
void check_block_ranges(const char* name) {
    const Material material = Material::parse(name);
    const PairSpace<V> space(material);
    const PotentialLevels<V::board_size> levels(material);
    const auto pairs = space.pairs_of(levels, levels.levels().back().potential);
    ASSERT_FALSE(pairs.empty());
    std::mt19937_64 random(7);
    for (const auto& pair : {pairs.front(), pairs.back()}) {
        auto layout = space.layout_of(pair);
        const auto order = space.block_order_of(layout);
        const std::uint64_t K = layout.king_placements;
        for (int h = 0; h < (pair.alone ? 1 : 2); ++h)
            for (int trial = 0; trial < 6; ++trial) {
                std::uint64_t a = random() % (K + 1), b = random() % (K + 1);
                if (trial == 0) a = 0, b = K;
                if (a > b) std::swap(a, b);
                const std::uint64_t first = h * K + a, last = h * K + b;
                // Brute force: every position of the range, ranked by the index.
                std::vector<std::pair<std::uint64_t, std::uint64_t>> table;  // (table local, block local)
                auto blocks = layout;
                blocks.in_blocks = true;
                std::uint64_t next = first;
                space.for_each_position(blocks, first, last, [&](std::uint64_t l, const auto& q) {
                    EXPECT_EQ(l, next++);
                    EXPECT_EQ(order.state(layout, h, q.kings_of(draughts::Color::white),
                                          q.kings_of(draughts::Color::black)),
                              l);
                    table.emplace_back(h * K + layout.index[h]->rank_kings(q), l);
                });
                ASSERT_EQ(next, last);
                std::sort(table.begin(), table.end());
                // The runs, and the positions each run holds, in order.
                std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;
                std::size_t at = 0;
                space.for_each_table_run(layout, order, first, last, [&](std::uint64_t f, std::uint64_t count) {
                    ASSERT_GT(count, 0u);
                    if (!runs.empty()) {
                        EXPECT_GT(f, runs.back().first + runs.back().second - 1);
                    }
                    runs.emplace_back(f, count);
                    for (std::uint64_t x = 0; x < count; ++x, ++at) {
                        ASSERT_LT(at, table.size());
                        EXPECT_EQ(table[at].first, f + x);
                    }
                });
                EXPECT_EQ(at, table.size()) << name << " half " << h << " [" << a << ", " << b << ")";
            }
    }
}

TEST(PairSpace, BlockRangesAsRunsOfTheTable) {
    check_block_ranges<draughts::Brazilian>("KKMvKK");
    check_block_ranges<draughts::Canadian>("KKMvKM");
    check_block_ranges<draughts::American>("KKKvK");
    check_block_ranges<draughts::International>("KKvKM");
}

// A pair's permutation from block order to the table's, tile by tile
// (PairSpace::for_each_in_tile()), in tiles of several shapes: every
// position of each half once, at the table local the index ranks it into.
template <class V>
void check_tiles(const char* name) {
    const Material material = Material::parse(name);
    const PairSpace<V> space(material);
    const PotentialLevels<V::board_size> levels(material);
    const auto pairs = space.pairs_of(levels, levels.levels().back().potential);
    ASSERT_FALSE(pairs.empty());
    for (const auto& pair : {pairs.front(), pairs.back()}) {
        const auto layout = space.layout_of(pair);
        const auto order = space.block_order_of(layout);
        const std::uint64_t K = layout.king_placements;
        // Brute force: each block local's table local, by the index.
        std::vector<std::uint64_t> table_of(2 * K, ~std::uint64_t{0});
        auto blocks = layout;
        blocks.in_blocks = true;
        const int halves = pair.alone ? 1 : 2;
        space.for_each_position(blocks, 0, halves * K, [&](std::uint64_t l, const auto& q) {
            table_of[l] = layout.half_of(l) * K + layout.index[layout.half_of(l)]->rank_kings(q);
        });
        for (const std::uint64_t tile : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{64}})
            for (const std::uint64_t step : {std::uint64_t{1}, std::uint64_t{5}, ~std::uint64_t{0}})
                for (int h = 0; h < halves; ++h) {
                    const int squares = draughts::popcount(layout.free[h]);
                    const std::uint64_t block_count = combination::binomial(squares, order.black_kings[h]);
                    const std::uint64_t whites = combination::binomial(squares, order.white_kings[h]);
                    const std::uint64_t across = std::min(step, whites);
                    std::vector<int> seen(K, 0);
                    for (std::uint64_t b0 = 0; b0 < block_count; b0 += tile)
                        for (std::uint64_t w0 = 0; w0 < whites; w0 += across)
                            space.for_each_in_tile(layout, order, h, b0, std::min(block_count, b0 + tile), w0,
                                                   std::min(whites, w0 + across),
                                                   [&](std::uint64_t b, std::uint64_t t) {
                                                       ASSERT_GE(b, h * K);
                                                       ASSERT_LT(b, (h + 1) * K);
                                                       EXPECT_EQ(t, table_of[b]) << name << " block local " << b;
                                                       ++seen[b - h * K];
                                                   });
                    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<std::ptrdiff_t>(K))
                        << name << " half " << h << " tiles of " << tile << " blocks";
                }
    }
}

TEST(PairSpace, TilesMapBlockOrderOntoTheTable) {
    check_tiles<draughts::Brazilian>("KKMvKK");
    check_tiles<draughts::Canadian>("KKKvM");  // a half without White's kings, one without Black's
    check_tiles<draughts::American>("KKKvK");
    check_tiles<draughts::International>("KKvKM");
}

// The pairs of every level, listed a slice at a time as the solvers take
// them (for_each_slice_of_pairs): every men configuration of each side in
// exactly one pair of its level, the same pairs as listed whole, and the
// positions of all the pairs those of the table.
template <class V>
void check_slices_of_pairs(const char* name) {
    const Material material = Material::parse(name);
    const PairSpace<V> space(material);
    const PotentialLevels<V::board_size> levels(material);
    const bool symmetric = material.mirrored() == material;
    using Pair = typename PairSpace<V>::Pair;
    std::vector<std::vector<int>> seen(2, std::vector<int>(space.side(0).men_configurations()));
    std::uint64_t positions = 0;
    for (const auto& level : levels.levels()) {
        std::mutex mutex;
        std::vector<Pair> sliced;
        space.for_each_slice_of_pairs(levels, level, work_profile::Kind::pairs, [&](const std::vector<Pair>& pairs) {
            const std::lock_guard lock(mutex);
            sliced.insert(sliced.end(), pairs.begin(), pairs.end());
        });
        std::vector<Pair> whole = space.pairs_of(levels, level.potential);
        const auto key = [](const Pair& p) { return std::pair{p.men[0], p.men[1]}; };
        const auto by_key = [&](const Pair& a, const Pair& b) { return key(a) < key(b); };
        std::sort(sliced.begin(), sliced.end(), by_key);
        std::sort(whole.begin(), whole.end(), by_key);
        ASSERT_EQ(sliced.size(), whole.size()) << name << " level " << level.potential;
        for (std::size_t i = 0; i < whole.size(); ++i) {
            EXPECT_EQ(key(sliced[i]), key(whole[i]));
            EXPECT_EQ(sliced[i].alone, whole[i].alone);
        }
        for (const Pair& p : sliced) {
            positions += space.pair_positions(p);
            ++seen[0][p.men[0]];
            if (!p.alone) ++seen[symmetric ? 0 : 1][p.men[1]];
        }
    }
    for (int side = 0; side < (symmetric ? 1 : 2); ++side)
        for (std::size_t c = 0; c < seen[side].size(); ++c)
            ASSERT_EQ(seen[side][c], 1) << name << ": configuration " << c << " of side " << side;
    EXPECT_EQ(positions, static_cast<std::uint64_t>(sides_of(material)) * space.side(0).size()) << name;
}

TEST(PairSpace, SlicesOfALevelHoldEachConfigurationOnce) {
    check_slices_of_pairs<draughts::Brazilian>("MMMvMM");   // men alone: a pair for every two positions
    check_slices_of_pairs<draughts::Brazilian>("MMvMM");    // symmetric
    check_slices_of_pairs<draughts::Brazilian>("KMMvKM");   // kings and men
    check_slices_of_pairs<draughts::Canadian>("KMvMM");
}

}  // namespace
}  // namespace dtb
