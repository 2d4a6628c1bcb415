// A team member's results sent home: the codes and capture marks of its
// positions of a level, to the members whose ranges hold them (docs/design.md,
// "Distributed build").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include <tbb/parallel_for.h>

#include "builder/values/packed_codes.hpp"
#include "builder/values/solved_values.hpp"
#include "builder/solver/level_share.hpp"
#include "builder/solver/pair_space.hpp"
#include "builder/solver/team_context.hpp"
#include "builder/team/mailbox.hpp"
#include "builder/team/ranges.hpp"
#include "builder/team/word_coding.hpp"
#include "probe/combination.hpp"
#include "probe/divisor.hpp"

namespace dtb {

// Copies the codes and capture marks of block-order locals [first, last)
// of one half of a split pair (a member's share) from `work`, at the
// layout's places, to `staged` from `at` on, in the table's order, with all
// threads in tiles (PairSpace::for_each_in_tile()), where one position at
// a time would miss the cache on every read; calls run(first, count, where)
// for the runs of the table's order they make (PairSpace::for_each_table_run()),
// in order, each at `where` in `staged`.
template <class V, class Run>
void stage_in_table_order(const PairSpace<V>& space, const typename PairSpace<V>::Layout& layout,
                          const typename PairSpace<V>::BlockOrder& order, std::uint64_t first, std::uint64_t last,
                          const SolvedValues& work, SolvedValues& staged, std::uint64_t at, Run&& run) {
    const int h = layout.half_of(first);
    const std::uint64_t half = h * layout.king_placements, block_size = order.white_placements[h];
    const int squares = draughts::popcount(layout.free[h]);
    // Black's placements beside one of White's: a run's placement of White's kings is its table local's quotient.
    const Divisor beside(combination::binomial(squares - order.white_kings[h], order.black_kings[h]));
    std::vector<std::int64_t> shift(combination::binomial(squares, order.white_kings[h]));  // staged less table
    space.for_each_table_run(layout, order, first, last, [&](std::uint64_t f, std::uint64_t n) {
        shift[beside.divide(f - half)] = static_cast<std::int64_t>(at) - static_cast<std::int64_t>(f);
        run(f, n, at);
        at += n;
    });
    std::vector<typename PairSpace<V>::Tile> tiles;
    space.add_tiles(layout, order, h, (first - half) / block_size, (last - half + block_size - 1) / block_size,
                    tiles);
    tbb::parallel_for(std::size_t{0}, tiles.size(), [&](std::size_t i) {
        const typename PairSpace<V>::Tile& t = tiles[i];
        CaptureMarks marks(staged);
        space.for_each_in_tile(layout, order, h, t.block0, t.block1, t.white0, t.white1,
                               [&](std::uint64_t b, std::uint64_t l) {
                                   if (b < first || b >= last) return;  // a block cut by the share's ends
                                   const std::uint64_t s = layout.storage(b);
                                   const auto x = static_cast<std::uint64_t>(
                                       shift[beside.divide(l - half)] + static_cast<std::int64_t>(l));
                                   staged.code(x) = work.code(s);
                                   if (work.has_capture(s)) marks.mark(x);
                               });
    });
}

// Sends the codes and capture marks of the member's positions of a level
// to the members whose ranges hold them, and takes in those it holds.
// A record: its global start and its count as position words
// (WordCoding, one coder each for starts and counts to each member, a
// round at a time: a byte or two each where records follow one another),
// the codes as two byte planes (codes_to_planes(), which pack better than
// the codes side by side: wire_packing.hpp), the capture marks (one byte per 8 positions). A pair of men
// only is a record of one position a half, so a fixed header of 16 bytes
// would be most of what its results cost.
// Portions [p0, p1) only, on every member at once (it may have none).
template <class V>
void send_home(const TeamContext<V>& member, const LevelShare<V>& share, std::size_t p0, std::size_t p1,
               const SolvedValues& work) {
    using Layout = typename PairSpace<V>::Layout;
    using Portion = typename LevelShare<V>::Portion;
    using Needs = typename LevelShare<V>::Needs;
    const std::vector<Portion>& portions = share.portions;
    const int members = member.team.size();
    const Ranges& homes = member.tables.homes();
    // Rounds of at most lookup_positions positions, as many for every
    // member: portions cut into pieces no bigger, a round of pieces.
    struct Piece {
        std::size_t portion;
        std::uint64_t first, last;
        std::uint64_t staged;  // a split pair's: where `first` is in `staged`
    };
    std::vector<Piece> pieces;
    const auto cut = [&](std::size_t p, std::uint64_t first, std::uint64_t last, std::uint64_t where) {
        for (std::uint64_t f = first; f < last; f += member.options.lookup_positions)
            pieces.push_back({p, f, std::min<std::uint64_t>(last, f + member.options.lookup_positions),
                              where + (f - first)});
    };
    // A split pair's codes are in block order: they are staged in the
    // table's order first, and its pieces are the runs they make there.
    SolvedValues& staged = member.buffers.staged;
    std::uint64_t staged_size = 0;
    for (std::size_t p = p0; p < p1; ++p)
        if (portions[p].split) staged_size += portions[p].count();
    staged.first = 0;
    staged.codes.resize(staged_size);
    staged.capture.assign((staged_size + 63) / 64, 0);
    for (std::size_t p = p0, at = 0; p < p1; ++p) {
        if (!portions[p].split) {
            cut(p, portions[p].first, portions[p].last, 0);
            continue;
        }
        const Layout layout = share.layout_in_work(portions[p], Needs::exits);  // with its free squares
        stage_in_table_order(member.space, layout, member.space.block_order_of(layout), portions[p].first,
                             portions[p].last, work, staged, at, [&](std::uint64_t f, std::uint64_t n, std::uint64_t x) {
                                 cut(p, f, f + n, x);
                             });
        at += portions[p].count();
    }
    Mailbox<std::byte>& mail = member.buffers.results;
    auto positions = [&](std::size_t i) { return pieces[i].last - pieces[i].first; };
    in_rounds(member, pieces.size(), positions, [&](std::size_t i0, std::size_t i1) {
        std::vector<WordCoding> starts(members), counts(members);
        for (std::size_t i = i0; i < i1; ++i) {
            const Portion& portion = portions[pieces[i].portion];
            const Layout layout = share.layout_in_work(portion, Needs::placement);
            const SolvedValues& codes = portion.split ? staged : work;
            // Runs of consecutive global positions: a half at a time, cut where the ranges change hands.
            std::uint64_t l = pieces[i].first;
            while (l < pieces[i].last) {
                const int h = layout.half_of(l);
                const std::uint64_t g = layout.global(l);
                const int home = homes.owner(g);
                const std::uint64_t half_end = (h + 1) * layout.king_placements;
                const std::uint64_t end = std::min<std::uint64_t>(
                    {pieces[i].last, half_end, l + (homes.first(home + 1) - g)});
                const auto count = static_cast<std::uint32_t>(end - l);
                std::vector<std::byte>& o = mail.to(home);
                starts[home].write(g, o);
                counts[home].write(count, o);
                const std::size_t at = o.size();
                o.resize(at + 2 * std::size_t{count} + (count + 7) / 8, std::byte{0});
                std::byte* rec = o.data() + at;
                const std::uint64_t s = portion.split ? pieces[i].staged + (l - pieces[i].first) : layout.storage(l);
                codes_to_planes(std::span(codes.codes).subspan(s - codes.first, count), rec);
                for (std::uint32_t x = 0; x < count; x += 64) {
                    const int n = static_cast<int>(std::min<std::uint32_t>(64, count - x));
                    const std::uint64_t bits = codes.capture_bits(s + x, n);
                    for (int b = 0; b < (n + 7) / 8; ++b)
                        rec[2 * count + x / 8 + b] = static_cast<std::byte>(bits >> 8 * b);
                }
                l += count;
            }
        }
        mail.exchange(member.team);
        SolvedValues& home = member.tables.home();
        for (int j = 0; j < members; ++j) {
            const std::span<const std::byte> in = mail.from(j);
            WordCoding from_starts, from_counts;
            for (std::size_t at = 0; at < in.size();) {
                const std::uint64_t g = from_starts.read(in, at), count = from_counts.read(in, at);
                if (count == 0 || count > (in.size() - at) / 2 || in.size() - at < 2 * count + (count + 7) / 8 ||
                    !home.holds(g) || !home.holds(g + count - 1))
                    throw std::logic_error("a team member sent results cut short, or of positions this member "
                                           "does not hold");
                const std::byte* rec = in.data() + at;
                codes_from_planes(rec, std::span(&home.code(g), count));
                for (std::uint64_t x = 0; x < count; x += 64) {
                    const int n = static_cast<int>(std::min<std::uint64_t>(64, count - x));
                    std::uint64_t bits = 0;
                    for (int b = 0; b < (n + 7) / 8; ++b)
                        bits |= std::uint64_t{std::to_integer<std::uint8_t>(rec[2 * count + x / 8 + b])} << 8 * b;
                    home.mark_capture_bits(g + x, bits, n);
                }
                at += 2 * count + (count + 7) / 8;
            }
        }
    });
}

}  // namespace dtb
