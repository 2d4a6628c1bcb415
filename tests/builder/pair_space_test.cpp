// A pair's positions in block order, as a team member holding a split pair
// keeps them (builder/solver/pair_space.hpp): walked, counted into runs of
// the table's order, and mapped back, each checked against a brute-force
// count or the index's own ranking.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "builder/solver/pair_space.hpp"
#include "draughts/variant.hpp"
#include "probe/combination.hpp"
#include "probe/potential.hpp"

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
                    std::uint64_t x = 0;
                    space.for_each_in_table_run(layout, order, f, count, [&](std::uint64_t block_local) {
                        ASSERT_LT(at, table.size());
                        EXPECT_EQ(table[at].first, f + x);
                        EXPECT_EQ(table[at].second, block_local);
                        ++at, ++x;
                    });
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

}  // namespace
}  // namespace dtb
