// The values a team member's level of whole pairs reaches by man moves,
// fetched from their homes as blocks (docs/design.md, "Distributed build").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <vector>

#include <tbb/parallel_for.h>

#include "builder/values/solved_values.hpp"
#include "builder/solver/level_share.hpp"
#include "builder/solver/pair_space.hpp"
#include "builder/solver/team_context.hpp"
#include "builder/team/mailbox.hpp"
#include "builder/team/ranges.hpp"
#include "builder/team/word_coding.hpp"

namespace dtb {

template <class V>
class ManMoveBlocks {
public:
    using Layout = typename PairSpace<V>::Layout;
    using ManExit = typename PairSpace<V>::ManExit;
    using Portion = typename LevelShare<V>::Portion;
    using Needs = typename LevelShare<V>::Needs;

    explicit ManMoveBlocks(const TeamContext<V>& member) : member_(member) {}

    // Fetches the values a level of whole pairs reaches by man moves: a man
    // move leads from every king placement of a pair's half to one block of
    // the level above, the king placements of the child's men configuration
    // [e.base, e.base + K) (PairSpace::ManExit), in order. So the member asks
    // the homes for those blocks as ranges (a start as a position word, and
    // a count only where a block is cut) and they answer with the codes as
    // they lie, rather than a question and an answer position by position;
    // its own home's are copied. The blocks go to `fetched` in the order of
    // the portions and their exits, a block an exit, not once for all the
    // member's exits that reach it: a block is reached from a few
    // configurations, which a big team deals to different members
    // (docs/design.md). find_exits() lists the exits and makes room for
    // their blocks; fetch_blocks() fetches those of portions [p0, p1), on
    // every member at once (it may have none). Portion p's first block is at
    // exit_first[p] * K, where layout_for_setup() points its man exits.
    void find_exits(const std::vector<Portion>& portions) {
        const std::uint64_t K = member_.space.side(0).king_placements();
        // The exits' blocks, portion by portion, in slices of portions taken in parallel.
        const std::size_t slices = std::min<std::size_t>(portions.size(), 256);
        std::vector<std::vector<std::uint64_t>> bases(slices);
        std::vector<std::uint64_t>& exit_first = member_.buffers.exit_first;
        exit_first.assign(portions.size() + 1, 0);
        tbb::parallel_for(std::size_t{0}, slices, [&](std::size_t i) {
            const std::size_t p0 = share_bound(portions.size(), static_cast<int>(i), static_cast<int>(slices));
            const std::size_t p1 = share_bound(portions.size(), static_cast<int>(i + 1), static_cast<int>(slices));
            for (std::size_t p = p0; p < p1; ++p) {
                const Layout layout = member_.space.layout_of(portions[p].pair);
                const std::size_t before = bases[i].size();
                for (int h = 0; h < (layout.alone ? 1 : 2); ++h)
                    for (int x = 0; x < layout.man_exit_count[h]; ++x)
                        if (!layout.man_exits[h][x].promotes) bases[i].push_back(layout.man_exits[h][x].base);
                exit_first[p + 1] = bases[i].size() - before;
            }
        });
        for (std::size_t p = 0; p < portions.size(); ++p) exit_first[p + 1] += exit_first[p];
        std::vector<std::uint64_t>& exits = member_.buffers.exit_bases;
        exits.clear();
        for (const std::vector<std::uint64_t>& slice : bases) exits.insert(exits.end(), slice.begin(), slice.end());
        member_.buffers.fetched.codes.resize(exits.size() * K);
    }

    void fetch_blocks(std::size_t p0, std::size_t p1) {
        const int members = member_.team.size(), me = member_.team.rank();
        const std::uint64_t K = member_.space.side(0).king_placements();
        const std::vector<std::uint64_t>& exits = member_.buffers.exit_bases;
        const std::size_t e0 = member_.buffers.exit_first[p0], e1 = member_.buffers.exit_first[p1];
        SolvedValues& fetched = member_.buffers.fetched;
        // Items of at most lookup_positions positions (a block in `subs`),
        // taken in rounds; each asked of its homes in pieces, cut where the
        // homes change hands: f(where in `fetched`, first position, count, home).
        const std::uint64_t L = member_.options.lookup_positions, subs = (K + L - 1) / L, whole = std::min(K, L);
        auto item_size = [&](std::size_t i) { return std::min(L, K - i % subs * L); };
        const Ranges& homes = member_.tables.homes();
        auto for_each_piece = [&](std::size_t i0, std::size_t i1, auto&& f) {
            for (std::size_t i = i0; i < i1; ++i) {
                const std::size_t e = e0 + i / subs;
                const std::uint64_t first = exits[e] + i % subs * L, end = first + item_size(i);
                std::uint64_t at = e * K + i % subs * L;
                for (std::uint64_t g = first; g < end;) {
                    const int j = homes.owner(g);
                    const std::uint64_t last = std::min(end, homes.first(j + 1));
                    f(at, g, last - g, j);
                    at += last - g;
                    g = last;
                }
            }
        };
        const SolvedValues& home = member_.tables.home();
        Mailbox<std::byte>& requests = member_.buffers.questions;
        Mailbox<std::uint16_t>& answers = member_.buffers.answers;
        in_rounds(member_, (e1 - e0) * subs, item_size, [&](std::size_t i0, std::size_t i1) {
            std::vector<WordCoding> starts(members), counts(members);
            for_each_piece(i0, i1, [&](std::uint64_t at, std::uint64_t g, std::uint64_t count, int j) {
                if (j == me) {
                    std::memcpy(&fetched.code(at), home.codes.data() + (g - home.first), 2 * count);
                } else {  // a whole item's count is known: said only when it was cut
                    starts[j].write(g << 1 | (count != whole), requests.to(j));
                    if (count != whole) counts[j].write(count, requests.to(j));
                }
            });
            requests.exchange(member_.team);
            for (int j = 0; j < members; ++j) {
                const std::span<const std::byte> in = requests.from(j);
                WordCoding from_starts, from_counts;
                std::vector<std::uint16_t>& out = answers.to(j);
                for (std::size_t x = 0; x < in.size();) {
                    const std::uint64_t w = from_starts.read(in, x), g = w >> 1;
                    const std::uint64_t count = w & 1 ? from_counts.read(in, x) : whole;
                    if (count == 0 || count > L || !home.holds(g) || !home.holds(g + count - 1))
                        throw std::logic_error("a team member asked for positions this member does not hold");
                    const std::uint16_t* codes = home.codes.data() + (g - home.first);
                    out.insert(out.end(), codes, codes + count);
                }
            }
            answers.exchange(member_.team);
            std::vector<std::size_t> taken(members, 0);
            for_each_piece(i0, i1, [&](std::uint64_t at, std::uint64_t, std::uint64_t count, int j) {
                if (j == me) return;
                const std::span<const std::uint16_t> in = answers.from(j);
                if (in.size() - taken[j] < count) throw std::logic_error("a team member answered positions cut short");
                std::memcpy(&fetched.code(at), in.data() + taken[j], 2 * count);
                taken[j] += count;
            });
        });
    }

    // The layout portion p is set up with: when its man moves' values were
    // fetched, each man exit's base points at its block in `fetched` (the
    // children's configurations, found once by find_exits(), are not
    // worked out again); when they are answers (`asks`), they are not needed.
    Layout layout_for_setup(const LevelShare<V>& share, std::size_t p, bool fetches, bool asks) const {
        Layout layout = share.layout_in_work(share.portions[p], fetches || asks ? Needs::exits : Needs::all);
        if (!fetches) return layout;
        std::uint64_t block = member_.buffers.exit_first[p];
        for (int h = 0; h < (layout.alone ? 1 : 2); ++h)
            for (int i = 0; i < layout.man_exit_count[h]; ++i) {
                ManExit& e = layout.man_exits[h][i];
                if (!e.promotes) e.base = block++ * layout.king_placements;
            }
        return layout;
    }

private:
    TeamContext<V> member_;
};

}  // namespace dtb
