// The positions of one canonical material M as the solver works them
// (docs/design.md, "Solver"): block pairs, where each half of a pair is in
// the material's values, the man moves that leave a pair, the positions of a
// pair walked in order, and the predecessors of a position inside its pair.
// Nothing here changes a value: it is shared by the one-process solver and
// a team's members (builder/solver/team_level.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "builder/system/work_profile.hpp"
#include "draughts/movegen.hpp"
#include "probe/divisor.hpp"
#include "probe/index.hpp"
#include "probe/potential.hpp"

namespace dtb {

template <class V>
class PairSpace {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Bitboard = typename Position::Bitboard;
    using Move = draughts::Move<N>;

    explicit PairSpace(const Material& canonical)
        : material_(canonical),
          symmetric_(canonical.mirrored() == canonical),
          sides_{Index<N>(canonical), Index<N>(canonical.mirrored())} {
        if (!canonical.is_canonical()) throw std::invalid_argument(canonical.name() + " is not canonical");
    }

    const Material& material() const noexcept { return material_; }
    // Side 0 is M (White to move), side 1 its mirror M' (Black to move in M).
    const Index<N>& side(int s) const noexcept { return sides_[s]; }
    std::uint64_t king_placements() const noexcept { return sides_[0].king_placements(); }
    // The index of a pair's half h, and its men configuration `men` there (White to move, no kings).
    const Index<N>& half_index(int h) const noexcept { return sides_[symmetric_ ? 0 : h]; }
    Position half_men(int h, std::uint64_t men) const noexcept { return half_index(h).unrank_men(men); }

    // The two halves of a block pair: men configuration men[0] of side 0 (M)
    // and men[1] of side 1 (M'; of M itself when M is symmetric). A
    // configuration that is its own turned-round form is a pair alone.
    struct Pair {
        std::uint64_t men[2];
        bool alone;
    };

    // Pairs of potential p: the level's men configurations first .. first + count - 1.
    std::vector<Pair> pairs_of(const PotentialLevels<N>& levels, int potential, std::uint64_t first = 0,
                               std::uint64_t count = ~std::uint64_t{0}) const {
        std::vector<Pair> pairs;
        const Index<N>& partner = sides_[symmetric_ ? 0 : 1];
        levels.for_each_men_configuration(potential, first, count, [&](Bitboard white_men, Bitboard black_men) {
            const std::uint64_t own = sides_[0].rank_men(white_men, black_men);
            const Position turned = Position{white_men, black_men, 0, draughts::Color::white}.flipped();
            const std::uint64_t other = partner.rank_men(turned.white, turned.black);
            if (symmetric_ && other < own) return;  // the pair of `other` holds it
            pairs.push_back({{own, other}, symmetric_ && other == own});
        });
        return pairs;
    }

    // Every pair of `level` (pairs_of(levels, level.potential)), listed with
    // all threads in slices of its men configurations: the big pairs a
    // level solves a few at a time (small ones go by slices instead:
    // for_each_slice_of_pairs()).
    std::vector<Pair> pairs_of(const PotentialLevels<N>& levels, const typename PotentialLevels<N>::Level& level) const {
        constexpr std::uint64_t slice = std::uint64_t{1} << 12;
        const std::uint64_t slices = (level.men_configurations + slice - 1) / slice;
        if (slices <= 1) return pairs_of(levels, level.potential);
        std::vector<std::vector<Pair>> parts(slices);
        work_profile::Step step(work_profile::Kind::list_pairs, slices);
        tbb::parallel_for(std::uint64_t{0}, slices, [&](std::uint64_t s) {
            const auto piece = step.piece();
            parts[s] = pairs_of(levels, level.potential, s * slice, slice);
        });
        std::size_t total = 0;
        for (const auto& part : parts) total += part.size();
        std::vector<Pair> pairs;
        pairs.reserve(total);
        for (const auto& part : parts) pairs.insert(pairs.end(), part.begin(), part.end());
        return pairs;
    }

    // Calls solve(pairs) on the pairs of every slice of `level`'s men
    // configurations (pairs_of(levels, level.potential, first, count)), the
    // slices in parallel, each listed on the thread that solves it: a
    // level's small pairs without all of them listed first, which for a
    // material of men alone (a pair for every two positions, 24 bytes each)
    // took as much memory as their values, and twice that while the slices
    // were joined. A slice holds about 2^17 positions (4,096 pairs at
    // most), and is a unit of the profile's `kind`.
    template <class Solve>
    void for_each_slice_of_pairs(const PotentialLevels<N>& levels, const typename PotentialLevels<N>::Level& level,
                                 work_profile::Kind kind, Solve&& solve) const {
        const std::uint64_t slice =
            std::clamp<std::uint64_t>((std::uint64_t{1} << 17) / (2 * king_placements()), 1, std::uint64_t{1} << 12);
        const std::uint64_t slices = (level.men_configurations + slice - 1) / slice;
        work_profile::Step step(kind, slices);
        tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, slices, 1),
                          [&](const tbb::blocked_range<std::uint64_t>& r) {
                              for (std::uint64_t s = r.begin(); s != r.end(); ++s) {
                                  const auto piece = step.piece();
                                  solve(pairs_of(levels, level.potential, s * slice, slice));
                              }
                          });
    }

    std::uint64_t pair_positions(const Pair& pair) const noexcept {
        return (pair.alone ? 1 : 2) * sides_[0].king_placements();
    }

    // A pair split over the team, each half on its own, in block order
    // (BlockOrder): member j holds the positions of a half whose block-order
    // locals are [bounds[j], bounds[j + 1]), at state index lock_base[j] of
    // its queue, and keeps their codes in that order too. All the
    // predecessors of a position are then in one block of the other half,
    // which one member holds, or a few when the block is cut.
    struct Split {
        std::vector<std::uint64_t> bounds;
        std::vector<std::uint32_t> lock_base;
        int owner(std::uint64_t local) const noexcept {
            return static_cast<int>(std::upper_bound(bounds.begin() + 1, bounds.end() - 1, local) - bounds.begin()) -
                   1;
        }
    };
    struct SplitPair {
        Split half[2];
    };

    // A man move of a half's men configuration, whatever the kings (it is
    // legal where no king stands on `to`). One that does not promote leads
    // into this material, turned round into the other side one level up:
    // its children have the men configuration at `base` (global position of
    // king placement 0) of `index`'s side, and their kings are ranked among
    // `free`, the squares the child's men leave (in this half's frame).
    // One that promotes leaves the material, and has no `index`, unless a
    // team fetched its children's values as a block (ManMoveBlocks): then
    // they are at `base` in the order of this half's own king placements,
    // `index` this half's and `free` the squares its men leave.
    struct ManExit {
        std::uint8_t from, to;
        bool promotes;
        Bitboard target;  // the bit of `to`
        Bitboard free;
        std::uint64_t base;
        const Index<N>* index;

        // The global position of the child of the position with these kings
        // (or where a fetched promotion's child is).
        std::uint64_t child(Bitboard white_kings, Bitboard black_kings) const noexcept {
            if (promotes) return base + index->rank_kings(white_kings, black_kings, free);
            return base + index->rank_kings_turned(white_kings, black_kings, free);
        }
    };
    static constexpr int max_man_exits = 24;

    // Where the positions of a pair are. Half h holds king placements
    // [h * K, (h + 1) * K) of the pair's local numbering. A local position l
    // keeps its code at storage(l) of the values being written (the material's
    // own when one process solves it, a level's work area in a team) and its
    // state at state(l).
    struct Layout {
        std::uint64_t king_placements;
        std::uint64_t base[2];  // global position of each half's first
        std::int64_t storage_base[2];
        std::int64_t state_shift[2];
        const Index<N>* index[2];
        Position men[2];  // each half's men, White to move
        Bitboard free[2];  // the squares each half's men leave
        std::array<ManExit, max_man_exits> man_exits[2];
        int man_exit_count[2];
        bool alone;
        const SplitPair* split;  // null unless the pair is split over the team
        // Whether locals number the positions in block order (h * K plus the
        // state within the half, BlockOrder), not the table's: the positions
        // of a pair split over a team, whose member keeps its codes so.
        bool in_blocks;

        int half_of(std::uint64_t local) const noexcept { return local >= king_placements; }
        std::uint64_t global(std::uint64_t local) const noexcept {
            const int h = half_of(local);
            return base[h] + (local - h * king_placements);
        }
        std::uint64_t storage(std::uint64_t local) const noexcept {
            return static_cast<std::uint64_t>(storage_base[half_of(local)] + static_cast<std::int64_t>(local));
        }
        std::uint32_t state(std::uint64_t local) const noexcept {
            return static_cast<std::uint32_t>(state_shift[half_of(local)] + static_cast<std::int64_t>(local));
        }
        int partner(int h) const noexcept { return alone ? 0 : 1 - h; }
        // Half h's men with these kings, White to move.
        Position with_kings(int h, Bitboard white_kings, Bitboard black_kings) const noexcept {
            return Position{men[h].white | white_kings, men[h].black | black_kings, white_kings | black_kings,
                            draughts::Color::white};
        }
        Position position(std::uint64_t local) const noexcept {
            const int h = half_of(local);
            Position p = men[h];
            index[h]->unrank_kings(local - h * king_placements, p);
            return p;
        }
    };

    // The order of a big pair's states while all threads solve it
    // (PairQueue::solve_shared): in each half, Black's kings first, then
    // White's among the squares left. The predecessors of a position differ
    // only in the kings of the side to move in them (White's, in their
    // half), so they lie in one block of consecutive states: a cache line or
    // two when that side has one or two kings, a block the second-level
    // cache holds otherwise; in the table's order (White's kings first) they
    // are scattered over the whole half, a cache miss each. Its codes are
    // kept in the same order while it is solved, and moved to the table's
    // order at its end (for_each_in_tile()).
    struct BlockOrder {
        std::uint64_t king_placements;
        std::uint64_t white_placements[2];  // of each half, Black's kings fixed: a block
        Divisor block_divider[2];
        int white_kings[2], black_kings[2];

        // The state of the position with these kings in half h.
        std::uint64_t state(const Layout& layout, int h, Bitboard white, Bitboard black) const noexcept {
            const Bitboard free = layout.free[h];
            return h * king_placements + combination::rank(black, free) * white_placements[h] +
                   combination::rank(white, free & ~black);
        }
        // The kings of state `at`, and its half.
        int kings(const Layout& layout, std::uint64_t at, Bitboard& white, Bitboard& black) const noexcept {
            const int h = at >= king_placements;
            const std::uint64_t r = at - h * king_placements;
            const std::uint64_t block = block_divider[h].divide(r);
            const Bitboard free = layout.free[h];
            black = combination::unrank(block, black_kings[h], free);
            white = combination::unrank(r - block * white_placements[h], white_kings[h], free & ~black);
            return h;
        }
        // The state of position q at `local` of the layout.
        std::uint64_t state(const Layout& layout, std::uint64_t local, const Position& q) const noexcept {
            return state(layout, layout.half_of(local), q.kings_of(draughts::Color::white),
                         q.kings_of(draughts::Color::black));
        }
    };

    BlockOrder block_order_of(const Layout& layout) const {
        BlockOrder order;
        order.king_placements = layout.king_placements;
        for (int h = 0; h < 2; ++h) {
            const Material& m = layout.index[h]->material();
            order.white_kings[h] = m.white_kings;
            order.black_kings[h] = m.black_kings;
            order.white_placements[h] =
                combination::binomial(draughts::popcount(layout.free[h]) - m.black_kings, m.white_kings);
            order.block_divider[h] = Divisor(order.white_placements[h]);
        }
        return order;
    }

    // A position at state `at` in block order, and the block of the other
    // half its predecessors are in: states [block, block + white_placements[g])
    // of half g, the partner of its half h. Turned round, its White kings
    // are half g's Black ones, which make the block.
    struct InBlock {
        int h, g;
        Bitboard white, black;
        std::uint64_t block;
    };
    InBlock in_block(const Layout& layout, const BlockOrder& order, std::uint64_t at) const noexcept {
        InBlock c;
        c.h = order.kings(layout, at, c.white, c.black);
        c.g = layout.partner(c.h);
        c.block = c.g * order.king_placements +
                  combination::rank_reversed(c.white, layout.free[c.h]) * order.white_placements[c.g];
        return c;
    }

    // Calls f(state) for every predecessor of a position in block order: the
    // positions of the other half from which the opponent's king move leads
    // to it, all in its block (in_block()).
    template <class F>
    void for_each_predecessor(const Layout& layout, const InBlock& c, F&& f) const {
        const Bitboard free = layout.free[c.h];
        combination::MovedRanks<Bitboard> movers(c.black, free & ~c.white);
        draughts::for_each_king_move<V>(layout.with_kings(c.h, c.white, c.black), draughts::Color::black,
                                        [&](int from, int to) { f(c.block + movers.rank(from, to)); });
    }
    template <class F>
    void for_each_predecessor(const Layout& layout, const BlockOrder& order, std::uint64_t at, F&& f) const {
        for_each_predecessor(layout, in_block(layout, order, at), f);
    }

    // Calls f(first, count) for the runs of consecutive positions, in the
    // table's order, that the positions of block-order locals [first, last)
    // of one half make: one run at most per placement of White's kings, as
    // the placements of Black's among the squares left keep their order
    // whatever squares White's take (both are ranked in colexicographic
    // order). Locals are the table's, h * K plus the king placement.
    template <class F>
    void for_each_table_run(const Layout& layout, const BlockOrder& order, std::uint64_t first, std::uint64_t last,
                            F&& f) const {
        const int h = layout.half_of(first);
        const std::uint64_t K = layout.king_placements, s0 = first - h * K, s1 = last - h * K;
        const Bitboard free = layout.free[h];
        const int w = order.white_kings[h], b = order.black_kings[h];
        const std::uint64_t wp = order.white_placements[h];
        const std::uint64_t bp = combination::binomial(draughts::popcount(free) - w, b);  // Black's beside White's
        // The first of Black's placements beside `white` at or after block-order state s of the half.
        struct Bound {
            Bitboard black;
            std::uint64_t within;  // the state's place in its block
            bool end;
        };
        auto bound = [&](std::uint64_t s) {
            if (s == K) return Bound{0, 0, true};
            const std::uint64_t block = order.block_divider[h].divide(s);
            return Bound{combination::unrank(block, b, free), s - block * wp, false};
        };
        const Bound lo = bound(s0), hi = bound(s1);
        auto start = [&](const Bound& x, Bitboard white) -> std::uint64_t {
            if (x.end) return bp;
            const std::uint64_t below = combination::rank_below(x.black, free & ~white);
            return below + ((x.black & white) == 0 && combination::rank(white, free & ~x.black) < x.within);
        };
        const std::uint64_t placements = combination::binomial(draughts::popcount(free), w);
        Bitboard white_c = (Bitboard{1} << w) - 1;
        for (std::uint64_t r = 0; r < placements; ++r) {
            const Bitboard white = draughts::deposit_bits(white_c, free);
            const std::uint64_t a = start(lo, white), e = start(hi, white);
            if (a < e) f(h * K + r * bp + a, e - a);
            if (w > 0) white_c = combination::next_compressed(white_c);
        }
    }

    // Calls f(block-order local, table local) for the positions of half h
    // whose Black kings are blocks [block0, block1) of the block order (at
    // most max_tile_blocks) and whose White kings are placements [white0,
    // white1) among the half's free squares, which the table's order ranks
    // first: a tile of a pair's permutation between the two orders. White's
    // placements are walked outside, the blocks inside, so that the tile
    // reads as many streams in block order as it has blocks, each in order,
    // and writes runs of consecutive positions in the table's order, where
    // one position at a time would miss the cache on one side or the other.
    // Consecutive placements of Black's kings clear of White's keep their
    // order among the squares White's leave, and the other way round (both
    // are ranked in colexicographic order), so the walk counts, and ranks
    // once per run.
    static constexpr std::size_t max_tile_blocks = 64;
    template <class F>
    void for_each_in_tile(const Layout& layout, const BlockOrder& order, int h, std::uint64_t block0,
                          std::uint64_t block1, std::uint64_t white0, std::uint64_t white1, F&& f) const {
        const Bitboard free = layout.free[h];
        const int w = order.white_kings[h], b = order.black_kings[h];
        const std::uint64_t half = h * layout.king_placements, wp = order.white_placements[h];
        const std::uint64_t bp = combination::binomial(draughts::popcount(free) - w, b);  // Black's beside White's
        const std::size_t n = block1 - block0;
        std::array<Bitboard, max_tile_blocks> black;
        std::array<std::uint64_t, max_tile_blocks> next;  // each block's next block-order local
        Bitboard white_c = combination::unrank_compressed<Bitboard>(white0, w);
        Bitboard white = draughts::deposit_bits(white_c, free);
        Bitboard black_c = combination::unrank_compressed<Bitboard>(block0, b);
        for (std::size_t i = 0; i < n; ++i) {
            black[i] = draughts::deposit_bits(black_c, free);
            next[i] = half + (block0 + i) * wp + combination::rank_below(white, free & ~black[i]);
            if (b > 0) black_c = combination::next_compressed(black_c);
        }
        for (std::uint64_t r = white0;;) {
            bool first = true;
            std::uint64_t t = 0;
            for (std::size_t i = 0; i < n; ++i) {
                if (black[i] & white) continue;
                if (first) t = half + r * bp + combination::rank(black[i], free & ~white);
                first = false;
                f(next[i]++, t++);
            }
            if (++r == white1) break;
            white_c = combination::next_compressed(white_c);  // w > 0: there is more than one placement
            white = draughts::deposit_bits(white_c, free);
        }
    }

    // Tiles of about 2^16 positions (max_tile_blocks blocks by a range of
    // White's placements) covering blocks [block0, block1) of half h, every
    // placement of White's kings, added to `tiles` for for_each_in_tile().
    struct Tile {
        int h;
        std::uint64_t block0, block1, white0, white1;
    };
    void add_tiles(const Layout& layout, const BlockOrder& order, int h, std::uint64_t block0, std::uint64_t block1,
                   std::vector<Tile>& tiles) const {
        constexpr std::uint64_t tile_positions = std::uint64_t{1} << 16;
        const std::uint64_t whites = combination::binomial(draughts::popcount(layout.free[h]), order.white_kings[h]);
        const std::uint64_t step = std::max<std::uint64_t>(1, tile_positions / max_tile_blocks);
        for (std::uint64_t b0 = block0; b0 < block1; b0 += max_tile_blocks)
            for (std::uint64_t w0 = 0; w0 < whites; w0 += step)
                tiles.push_back({h, b0, std::min(block1, b0 + max_tile_blocks), w0, std::min(whites, w0 + step)});
    }

    // The layout of a pair whose codes are the material's own (one process).
    // Without `children`, its man exits leave out the men configuration
    // their children are in (ManExit::base, most of the exits' cost), for a
    // team member that reads their values as answers to its questions or
    // from the blocks it fetched (which set the bases).
    Layout layout_of(const Pair& pair, bool children = true) const {
        Layout layout = placement_of(pair);
        for (int h = 0; h < 2; ++h) {
            const int side = symmetric_ ? 0 : h;
            layout.men[h] = sides_[side].unrank_men(pair.men[h]);
            layout.free[h] = Position::geometry::board & ~layout.men[h].occupied();
            set_man_exits(layout, h, children);
        }
        return layout;
    }

    // Where a pair's positions are, and no more: no men, no man exits (most
    // of layout_of()'s cost, for a team's results sent home).
    Layout placement_of(const Pair& pair) const {
        Layout layout;
        layout.king_placements = sides_[0].king_placements();
        layout.alone = pair.alone;
        layout.state_shift[0] = layout.state_shift[1] = 0;
        layout.split = nullptr;
        layout.in_blocks = false;
        for (int h = 0; h < 2; ++h) {
            layout.index[h] = &sides_[symmetric_ ? 0 : h];
            layout.base[h] = (symmetric_ ? 0 : h * sides_[0].size()) + pair.men[h] * layout.king_placements;
            layout.storage_base[h] =
                static_cast<std::int64_t>(layout.base[h]) - static_cast<std::int64_t>(h * layout.king_placements);
            layout.man_exit_count[h] = 0;
        }
        return layout;
    }

    // The man moves of half h's men configuration (for_each_man_move's order).
    void set_man_exits(Layout& layout, int h, bool children) const {
        int& n = layout.man_exit_count[h];
        n = 0;
        const Position& men = layout.men[h];
        draughts::for_each_man_move<V>(men, draughts::Color::white, [&](int from, int to, bool promotes) {
            if (n == max_man_exits)
                throw std::runtime_error(material_.name() + ": more man moves than the solver counts (" +
                                         std::to_string(max_man_exits) + ")");
            ManExit& e = layout.man_exits[h][n++];
            e.from = static_cast<std::uint8_t>(from);
            e.to = static_cast<std::uint8_t>(to);
            e.promotes = promotes;
            e.target = draughts::bit<Bitboard>(to);
            e.free = layout.free[h] ^ draughts::bit<Bitboard>(from) ^ e.target;
            e.base = 0;
            e.index = nullptr;
            if (promotes) return;
            const int side = symmetric_ ? 0 : 1 - h;
            e.index = &sides_[side];
            if (!children) return;
            Position child = men;
            draughts::make_move(child, Move{0, e.from, e.to, false});
            const Position turned = child.flipped();
            e.base = (symmetric_ ? 0 : side * sides_[0].size()) +
                     sides_[side].rank_men(turned.white, turned.black) * sides_[side].king_placements();
        });
    }

    // Calls f(local, position) for the positions of a pair's local range
    // [first, last), in order, in groups that `source` prepares first (if
    // it prepares anything).
    template <class Source, class F>
    void for_each_position(const Layout& layout, std::uint64_t first, std::uint64_t last, Source& source,
                           F&& f) const {
        if constexpr (requires { source.prepare(std::span<const Position>()); }) {
            constexpr std::size_t group = 16;
            std::array<Position, group> positions;
            std::array<std::uint64_t, group> locals;
            std::size_t n = 0;
            auto run = [&] {
                source.prepare(std::span<const Position>(positions.data(), n));
                for (std::size_t i = 0; i < n; ++i) f(locals[i], positions[i]);
                n = 0;
            };
            for_each_position(layout, first, last, [&](std::uint64_t l, const Position& q) {
                positions[n] = q;
                locals[n] = l;
                if (++n == group) run();
            });
            run();
        } else {
            for_each_position(layout, first, last, f);
        }
    }

    // Calls f(local, position) for the positions of a pair's local range
    // [first, last), in order (block order when the layout's locals are).
    template <class F>
    void for_each_position(const Layout& layout, std::uint64_t first, std::uint64_t last, F&& f) const {
        if (layout.in_blocks) return for_each_position_in_blocks(layout, first, last, f);
        while (first < last) {
            const int h = layout.half_of(first);
            const std::uint64_t begin = h * layout.king_placements;
            const std::uint64_t end = std::min(last, begin + layout.king_placements);
            typename Index<N>::KingCursor kings(*layout.index[h], layout.men[h], first - begin);
            for (std::uint64_t l = first;;) {
                f(l, layout.with_kings(h, kings.white_kings(), kings.black_kings()));
                if (++l == end) break;
                kings.next();
            }
            first = end;
        }
    }

    // for_each_position() in block order: Black's kings the major part,
    // White's among the squares left, each placement from the one before.
    template <class F>
    void for_each_position_in_blocks(const Layout& layout, std::uint64_t first, std::uint64_t last, F&& f) const {
        const BlockOrder order = block_order_of(layout);
        while (first < last) {
            const int h = layout.half_of(first);
            const std::uint64_t begin = h * layout.king_placements;
            const std::uint64_t end = std::min(last, begin + layout.king_placements);
            const Bitboard free = layout.free[h];
            const int w = order.white_kings[h], b = order.black_kings[h];
            const std::uint64_t r = first - begin, block = order.block_divider[h].divide(r);
            Bitboard black_c = combination::unrank_compressed<Bitboard>(block, b);
            Bitboard white_c = combination::unrank_compressed<Bitboard>(r - block * order.white_placements[h], w);
            const Bitboard white_end = Bitboard{1} << (draughts::popcount(free) - b);
            Bitboard black = draughts::deposit_bits(black_c, free);
            Bitboard white = draughts::deposit_bits(white_c, free & ~black);
            for (std::uint64_t l = first;;) {
                f(l, layout.with_kings(h, white, black));
                if (++l == end) break;
                if (w > 0) {
                    white_c = combination::next_compressed(white_c);
                    if (white_c < white_end) {
                        white = draughts::deposit_bits(white_c, free & ~black);
                        continue;
                    }
                }
                white_c = (Bitboard{1} << w) - 1;  // the next block
                black_c = combination::next_compressed(black_c);
                black = draughts::deposit_bits(black_c, free);
                white = draughts::deposit_bits(white_c, free & ~black);
            }
            first = end;
        }
    }

    // Calls f(local) for every predecessor of position `local` inside the
    // pair: the positions of the other half from which the opponent's king
    // move leads to it. King moves are reversible: the opponent's king moves
    // from this position, ranked turned round in the other half.
    template <class F>
    void for_each_predecessor(const Layout& layout, std::uint64_t local, F&& f) const {
        const int h = layout.half_of(local);
        const Position u = layout.position(local);
        const Bitboard white_kings = u.kings_of(draughts::Color::white), black_kings = u.kings_of(draughts::Color::black);
        typename Index<N>::BlackKingMovesTurned moves(*layout.index[layout.partner(h)], white_kings, black_kings,
                                                      layout.free[h]);
        const std::uint64_t first = layout.partner(h) * layout.king_placements;
        draughts::for_each_king_move<V>(u, draughts::Color::black, [&](int from, int to) { f(first + moves.rank(from, to)); });
    }

private:
    Material material_;
    bool symmetric_;
    Index<N> sides_[2];
};

}  // namespace dtb
