// A team member's results sent home: the codes and capture marks of its
// positions of a level, to the members whose ranges hold them (docs/design.md,
// "Distributed build").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "builder/solved_values.hpp"
#include "builder/solver/level_share.hpp"
#include "builder/solver/pair_space.hpp"
#include "builder/solver/team_context.hpp"
#include "builder/team.hpp"
#include "builder/word_coding.hpp"

namespace dtb {

// Sends the codes and capture marks of the member's positions of a level
// to the members whose ranges hold them, and takes in those it holds.
// A record: its global start and its count as position words
// (WordCoding, one coder each for starts and counts to each member, a
// round at a time: a byte or two each where records follow one another),
// the codes, the capture marks (one byte per 8 positions). A pair of men
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
    };
    std::vector<Piece> pieces;
    const auto cut = [&](std::size_t p, std::uint64_t first, std::uint64_t last) {
        for (std::uint64_t f = first; f < last; f += member.options.lookup_positions)
            pieces.push_back({p, f, std::min<std::uint64_t>(last, f + member.options.lookup_positions)});
    };
    // A split pair's codes are in block order: its pieces are the runs
    // of the table's order its positions make (PairSpace::for_each_table_run()).
    std::vector<Layout> split_layouts;
    std::vector<typename PairSpace<V>::BlockOrder> split_orders;
    std::vector<std::size_t> split_of(p1 - p0);  // each split portion's in those
    for (std::size_t p = p0; p < p1; ++p) {
        if (!portions[p].split) {
            cut(p, portions[p].first, portions[p].last);
            continue;
        }
        split_of[p - p0] = split_layouts.size();
        split_layouts.push_back(share.layout_in_work(portions[p], Needs::exits));
        split_orders.push_back(member.space.block_order_of(split_layouts.back()));
        member.space.for_each_table_run(split_layouts.back(), split_orders.back(), portions[p].first, portions[p].last,
                                  [&](std::uint64_t f, std::uint64_t n) { cut(p, f, f + n); });
    }
    Mailbox<std::byte>& mail = member.buffers.results;
    auto positions = [&](std::size_t i) { return pieces[i].last - pieces[i].first; };
    in_rounds(member, pieces.size(), positions, [&](std::size_t i0, std::size_t i1) {
        std::vector<WordCoding> starts(members), counts(members);
        for (std::size_t i = i0; i < i1; ++i) {
            const Portion& portion = portions[pieces[i].portion];
            const std::size_t split_at = split_of[pieces[i].portion - p0];
            std::optional<Layout> placed;  // a whole pair's
            if (!portion.split) placed.emplace(share.layout_in_work(portion, Needs::placement));
            const Layout& layout = portion.split ? split_layouts[split_at] : *placed;
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
                const auto mark = [&](std::uint32_t x, std::uint64_t s) {
                    if (work.has_capture(s)) rec[2 * count + x / 8] |= static_cast<std::byte>(1 << (x % 8));
                };
                if (portion.split) {
                    std::uint32_t x = 0;
                    member.space.for_each_in_table_run(layout, split_orders[split_at], l, count, [&](std::uint64_t b) {
                        const std::uint64_t s = layout.storage(b);
                        const std::uint16_t code = work.code(s);
                        std::memcpy(rec + 2 * x, &code, 2);
                        mark(x++, s);
                    });
                } else {
                    std::memcpy(rec, work.codes.data() + (layout.storage(l) - work.first), 2 * std::size_t{count});
                    for (std::uint32_t x = 0; x < count; ++x) mark(x, layout.storage(l + x));
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
                std::memcpy(&home.code(g), rec, 2 * count);
                for (std::uint64_t x = 0; x < count; ++x)
                    if (std::to_integer<int>(rec[2 * count + x / 8]) >> (x % 8) & 1) home.mark_capture(g + x);
                at += 2 * count + (count + 7) / 8;
            }
        }
    });
}

}  // namespace dtb
