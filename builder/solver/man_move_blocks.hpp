// The values a team member's level of whole pairs reaches by man moves,
// promotions included, fetched as blocks from the members holding them
// (docs/design.md, "Distributed build").
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
#include "builder/team/team_tables.hpp"
#include "builder/team/word_coding.hpp"
#include "draughts/bitboard.hpp"
#include "probe/index.hpp"
#include "probe/table_format.hpp"

namespace dtb {

template <class V>
class ManMoveBlocks {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Bitboard = typename Position::Bitboard;
    using Layout = typename PairSpace<V>::Layout;
    using ManExit = typename PairSpace<V>::ManExit;
    using Portion = typename LevelShare<V>::Portion;
    using Needs = typename LevelShare<V>::Needs;
    using ExitBlock = TeamBuffers::ExitBlock;

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
    // (docs/design.md). With `promotions`, so are the values a promotion
    // leads to in a table shared out: the member names the half and the
    // move, and the members holding the child's men configuration answer
    // with the child's code for each king placement of the half, in order
    // (0 where they do not hold it, or a king stands on the promotion
    // square). find_exits() lists the exits and makes room for their blocks;
    // fetch_blocks() fetches those of portions [p0, p1), on every member at
    // once (it may have none). Portion p's first block is at exit_first[p] * K,
    // where layout_for_setup() points its exits.
    void find_exits(const std::vector<Portion>& portions, bool man_moves, bool promotions) {
        man_moves_ = man_moves;
        promotions_ = promotions;
        const std::uint64_t K = member_.space.side(0).king_placements();
        // The exits' blocks, portion by portion, in slices of portions taken in parallel.
        const std::size_t slices = std::min<std::size_t>(portions.size(), 256);
        std::vector<std::vector<ExitBlock>> blocks(slices);
        std::vector<std::uint64_t>& exit_first = member_.buffers.exit_first;
        exit_first.assign(portions.size() + 1, 0);
        tbb::parallel_for(std::size_t{0}, slices, [&](std::size_t i) {
            const std::size_t p0 = share_bound(portions.size(), static_cast<int>(i), static_cast<int>(slices));
            const std::size_t p1 = share_bound(portions.size(), static_cast<int>(i + 1), static_cast<int>(slices));
            for (std::size_t p = p0; p < p1; ++p) {
                const Layout layout = member_.space.layout_of(portions[p].pair, man_moves);
                const std::size_t before = blocks[i].size();
                for_each_fetched(layout, [&](int h, const ManExit& e, const typename TeamTables<V>::Block& child) {
                    if (!e.promotes) {
                        blocks[i].push_back({e.base, 0, K, static_cast<std::uint8_t>(h), e.from, e.to, false});
                    } else {
                        blocks[i].push_back({child.word, portions[p].pair.men[h], child.index->king_placements(),
                                             static_cast<std::uint8_t>(h), e.from, e.to, true});
                    }
                });
                exit_first[p + 1] = blocks[i].size() - before;
            }
        });
        for (std::size_t p = 0; p < portions.size(); ++p) exit_first[p + 1] += exit_first[p];
        std::vector<ExitBlock>& exits = member_.buffers.exit_blocks;
        exits.clear();
        for (const std::vector<ExitBlock>& slice : blocks) exits.insert(exits.end(), slice.begin(), slice.end());
        member_.buffers.fetched.codes.resize(exits.size() * K);
    }

    void fetch_blocks(std::size_t p0, std::size_t p1) {
        const int members = member_.team.size(), me = member_.team.rank();
        const std::uint64_t K = member_.space.side(0).king_placements();
        const std::vector<ExitBlock>& exits = member_.buffers.exit_blocks;
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
                const ExitBlock& x = exits[e0 + i / subs];
                if (x.promotes) continue;
                const std::uint64_t first = x.base + i % subs * L, end = first + item_size(i);
                std::uint64_t at = (e0 + i / subs) * K + i % subs * L;
                for (std::uint64_t g = first; g < end;) {
                    const int j = homes.owner(g);
                    const std::uint64_t last = std::min(end, homes.first(j + 1));
                    f(at, g, last - g, j);
                    at += last - g;
                    g = last;
                }
            }
        };
        // The promotions' items: f(where in `fetched`, the block, its first
        // king placement asked, count, member), for each member holding
        // part of the child's men configuration, the first one first.
        auto for_each_promotion = [&](std::size_t i0, std::size_t i1, auto&& f) {
            for (std::size_t i = i0; i < i1; ++i) {
                const ExitBlock& x = exits[e0 + i / subs];
                if (!x.promotes) continue;
                const int first = member_.tables.owner(x.base), last = member_.tables.owner(x.base + x.placements - 1);
                for (int j = first; j <= last; ++j)
                    f((e0 + i / subs) * K + i % subs * L, x, i % subs * L, item_size(i), j, j == first);
            }
        };
        const SolvedValues& home = member_.tables.home();
        Mailbox<std::byte>& requests = member_.buffers.questions;
        Mailbox<std::uint16_t>& answers = member_.buffers.answers;
        in_rounds(member_, (e1 - e0) * subs, item_size, [&](std::size_t i0, std::size_t i1) {
            if (man_moves_) {
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
            }
            if (promotions_) fetch_promotions(i0, i1, for_each_promotion);
        });
    }

    // The layout portion p is set up with: when its exits' values were
    // fetched, each such exit's base points at its block in `fetched` (the
    // children's configurations, found once by find_exits(), are not
    // worked out again; a promotion's also gets the index and squares its
    // block is ranked by, PairSpace::ManExit); man moves whose values are
    // answers (`asks`) need no children's configurations either.
    Layout layout_for_setup(const LevelShare<V>& share, std::size_t p, bool fetches, bool asks) const {
        Layout layout = share.layout_in_work(share.portions[p], fetches || asks ? Needs::exits : Needs::all);
        if (!fetches) return layout;
        const std::vector<ExitBlock>& exits = member_.buffers.exit_blocks;
        std::uint64_t block = member_.buffers.exit_first[p];
        const std::uint64_t end = member_.buffers.exit_first[p + 1];
        for (int h = 0; h < (layout.alone ? 1 : 2); ++h)
            for (int i = 0; i < layout.man_exit_count[h] && block < end; ++i) {
                ManExit& e = layout.man_exits[h][i];
                const ExitBlock& x = exits[block];
                if (x.half != h || x.from != e.from || x.to != e.to) continue;  // not fetched
                e.base = block++ * layout.king_placements;
                if (e.promotes) {
                    e.index = layout.index[h];
                    e.free = layout.free[h];
                }
            }
        if (block != end) throw std::logic_error("a pair's exits fetched are not its exits");
        return layout;
    }

private:
    // Calls f(h, exit, child block) for the exits of a layout whose values
    // are fetched, in order: man moves if `man_moves_` (no block), and
    // promotions into a table shared out if `promotions_` (where the child's
    // men configuration is: TeamTables::turned_block()).
    template <class F>
    void for_each_fetched(const Layout& layout, F&& f) const {
        for (int h = 0; h < (layout.alone ? 1 : 2); ++h)
            for (int x = 0; x < layout.man_exit_count[h]; ++x) {
                const ManExit& e = layout.man_exits[h][x];
                if (!e.promotes) {
                    if (man_moves_) f(h, e, typename TeamTables<V>::Block{});
                } else if (promotions_) {
                    if (const auto child = promotion_block(layout.men[h], *layout.index[h], e.from); child.index)
                        f(h, e, child);
                }
            }
    }

    // Where the children of half `men`'s promotion from `from` are (their
    // men configuration), if a table shared out holds them.
    typename TeamTables<V>::Block promotion_block(const Position& men, const Index<N>& index, int from) const {
        Material child = index.material();
        --child.white_men;
        ++child.white_kings;
        return member_.tables.turned_block(material_key(child.mirrored()), men.white & ~draughts::bit<Bitboard>(from),
                                           men.black);
    }

    // One round's promotion blocks: each member asked names the half (its
    // men configuration and which half), the move, and the king placements
    // [first, first + count); it answers with the child's code for each,
    // in order, 0 where it does not hold it. The first holder's answer is
    // taken as it is, the others' or-ed in.
    template <class ForEach>
    void fetch_promotions(std::size_t i0, std::size_t i1, ForEach&& for_each_promotion) {
        const int members = member_.team.size();
        SolvedValues& fetched = member_.buffers.fetched;
        Mailbox<std::byte>& requests = member_.buffers.questions;
        Mailbox<std::uint16_t>& answers = member_.buffers.answers;
        for_each_promotion(i0, i1, [&](std::uint64_t, const ExitBlock& x, std::uint64_t first, std::uint64_t count,
                                       int j, bool) {
            std::vector<std::byte>& out = requests.to(j);
            const std::size_t was = out.size();
            out.resize(was + request_bytes);
            std::byte* r = out.data() + was;
            store_u64(r, x.men);
            store_u64(r + 8, first);
            store_u64(r + 16, count);
            r[24] = std::byte{x.half};
            r[25] = std::byte{x.from};
            r[26] = std::byte{x.to};
        });
        requests.exchange(member_.team);
        for (int j = 0; j < members; ++j) {
            const std::span<const std::byte> in = requests.from(j);
            if (in.size() % request_bytes != 0) throw std::logic_error("a team member's promotions asked are cut short");
            const std::size_t n = in.size() / request_bytes;
            std::vector<std::size_t> start(n + 1, 0);
            for (std::size_t r = 0; r < n; ++r) start[r + 1] = start[r] + load_u64(in.data() + r * request_bytes + 16);
            std::vector<std::uint16_t>& out = answers.to(j);
            out.resize(start[n]);
            tbb::parallel_for(std::size_t{0}, n, [&](std::size_t r) {
                const std::byte* q = in.data() + r * request_bytes;
                answer_promotion(load_u64(q), std::to_integer<int>(q[24]), std::to_integer<int>(q[25]),
                                 std::to_integer<int>(q[26]), load_u64(q + 8), start[r + 1] - start[r],
                                 out.data() + start[r]);
            });
        }
        answers.exchange(member_.team);
        std::vector<std::size_t> taken(members, 0);
        for_each_promotion(i0, i1, [&](std::uint64_t at, const ExitBlock&, std::uint64_t, std::uint64_t count, int j,
                                       bool first_holder) {
            const std::span<const std::uint16_t> in = answers.from(j);
            if (in.size() - taken[j] < count) throw std::logic_error("a team member answered promotions cut short");
            std::uint16_t* codes = &fetched.code(at);
            if (first_holder) {
                std::memcpy(codes, in.data() + taken[j], 2 * count);
            } else {  // a block cut between holders: each answers 0 for the rest
                for (std::uint64_t y = 0; y < count; ++y) codes[y] |= in[taken[j] + y];
            }
            taken[j] += count;
        });
    }

    // The codes of the children of king placements [first, first + count)
    // of half h of men configuration `men` (in its side's index) after the
    // man on `from` promotes on `to`, into `out`: 0 where this member does
    // not hold the child, or a king stands on `to`.
    void answer_promotion(std::uint64_t men, int h, int from, int to, std::uint64_t first, std::uint64_t count,
                          std::uint16_t* out) const {
        if (h > 1) throw std::logic_error("a team member asked for a promotion that does not exist");
        const Index<N>& index = member_.space.half_index(h);
        if (men >= index.men_configurations() || first + count > index.king_placements())
            throw std::logic_error("a team member asked for a promotion that does not exist");
        const Position m = member_.space.half_men(h, men);
        const Bitboard target = draughts::bit<Bitboard>(to), gone = draughts::bit<Bitboard>(from);
        const typename TeamTables<V>::Block child = promotion_block(m, index, from);
        if (!child.index || !(m.white & gone) || (m.occupied() & target))
            throw std::logic_error("a team member asked for a promotion that does not exist");
        const Bitboard free = (Position::geometry::board & ~m.occupied()) | gone;  // the child's men leave
        const TeamTables<V>& tables = member_.tables;
        typename Index<N>::KingCursor kings(index, m, first);
        for (std::uint64_t y = 0;;) {
            const Bitboard white = kings.white_kings(), black = kings.black_kings();
            std::uint16_t code = 0;
            if (!((white | black) & target)) {
                const std::uint64_t w = child.word + child.index->rank_kings_turned(white | target, black, free);
                if (tables.holds(w)) code = *tables.where(w);
            }
            out[y] = code;
            if (++y == count) break;
            kings.next();
        }
    }

    static constexpr std::size_t request_bytes = 27;

    TeamContext<V> member_;
    bool man_moves_ = false, promotions_ = false;
};

}  // namespace dtb
