// The queue of the pairs split over a team, worked in step by its members
// (docs/design.md, "Distributed build").
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_sort.h>

#include "builder/values/solved_values.hpp"
#include "builder/solver/background.hpp"
#include "builder/solver/level_share.hpp"
#include "builder/solver/pair_queue.hpp"
#include "builder/solver/pair_space.hpp"
#include "builder/solver/pair_state.hpp"
#include "builder/solver/team_context.hpp"
#include "builder/team/mailbox.hpp"

namespace dtb {

// The queue of the pairs split over the team, worked in step (docs/design.md,
// "Distributed build"). A member holds a range of each half's states in
// block order (PairSpace::Split), so the predecessors of a position lie
// in one block of the other half, which one member holds or a few. At
// each distance every member takes its positions settled at that
// distance: a position whose block one other member holds crosses to
// it whole, once, and that member lists and tells its predecessors; one
// whose block this member holds has them told here; one whose block two
// members hold is told by each (crossing whole to the other); one whose
// block three or more hold has them listed here and each sent to its
// holder (tell()). A position crosses as its pair's number among the level's
// split pairs (`splits`) times 2K plus its local; a batch's positions for a
// member cross sorted, each as its difference from the one before, small
// numbers whose high bytes pack away (wire_packing.hpp).
// The member's portions are the level's, its states in `lock`.
template <class V>
void run_split_queue(const TeamContext<V>& member, SolvedValues& work, const LevelShare<V>& share,
                     std::vector<std::uint8_t>& lock, Buckets& buckets) {
    using Layout = typename PairSpace<V>::Layout;
    using Split = typename PairSpace<V>::Split;
    using Portion = typename LevelShare<V>::Portion;
    using BlockOrder = typename PairSpace<V>::BlockOrder;
    using InBlock = typename PairSpace<V>::InBlock;
    const std::vector<Portion>& portions = share.portions;
    const std::vector<typename PairSpace<V>::SplitPair>& splits = share.splits;
    const int members = member.team.size(), me = member.team.rank();
    const PairStates<true> states{lock.data()};
    const std::uint64_t K = member.space.side(0).king_placements(), pair_size = 2 * K;
    std::vector<Layout> layouts;
    std::vector<BlockOrder> orders;
    std::vector<std::uint32_t> bases;  // lock index of each portion's first position
    std::vector<std::int64_t> shifts;  // state index to local position, each portion
    std::vector<std::size_t> pair_of;  // each portion's number among `splits`
    std::vector<std::size_t> portion_of(splits.size(), portions.size());  // a portion of each pair held here
    for (std::size_t p = 0; p < portions.size(); ++p) {
        layouts.push_back(share.layout_in_work(portions[p]));
        orders.push_back(member.space.block_order_of(layouts.back()));
        bases.push_back(portions[p].lock_base);
        shifts.push_back(portions[p].state_shift[portions[p].half(K)]);
        pair_of.push_back(static_cast<std::size_t>(portions[p].split - splits.data()));
        portion_of[pair_of.back()] = p;
    }
    auto locate = [&](std::uint32_t at) {
        const std::size_t p = std::upper_bound(bases.begin(), bases.end(), at) - bases.begin() - 1;
        return std::pair{p, static_cast<std::uint64_t>(static_cast<std::int64_t>(at) - shifts[p])};
    };
    constexpr std::uint64_t none = ~std::uint64_t{0};
    auto next = [&](std::uint64_t after) {
        std::uint64_t d = after + 1;
        while (d < buckets.size() && buckets[d].empty()) ++d;
        return member.team.all_min(d < buckets.size() ? d : none);
    };
    // Tells the predecessors this member holds of a group of positions
    // (portion, local), at most 64: their states and codes are both in
    // block order, `delta` apart. A position whose block three members or
    // more hold has its predecessors listed once, by the member that
    // settled it, and those of the others posted to them in `outbox` as
    // predecessors (`single`, the top bit of what crosses): a block is the
    // whole half when the side not to move in it has no king, and sending
    // the position to every member would list its predecessors on each.
    // One that two members hold crosses whole to the other holder (8
    // bytes, where its predecessors there would cross at 8 bytes each),
    // and each holder lists its predecessors and tells its own.
    constexpr std::size_t group = 64;
    constexpr std::uint64_t single_bit = std::uint64_t{1} << 63;
    struct Told {
        std::size_t portion;
        std::uint64_t local;
        bool single;  // a predecessor itself, not a position whose predecessors to list
    };
    const auto tell = [&](std::span<const Told> told, std::uint32_t d, Pushes& pushes,
                          std::vector<std::vector<std::uint64_t>>* outbox) {
        std::array<std::int64_t, group> delta;
        const auto list = [&](std::size_t j, auto&& add) {
            const Layout& layout = layouts[told[j].portion];
            if (told[j].single) {
                const int g = layout.half_of(told[j].local);
                const Split& held = portions[told[j].portion].split->half[g];
                if (told[j].local < held.bounds[me] || told[j].local >= held.bounds[me + 1])
                    throw std::logic_error("a team member sent a predecessor this member does not hold");
                delta[j] = layout.storage_base[g] - layout.state_shift[g];
                return add(layout.state(told[j].local));
            }
            const InBlock c = member.space.in_block(layout, orders[told[j].portion], told[j].local);
            const Split& held = portions[told[j].portion].split->half[c.g];
            const std::uint64_t lo = held.bounds[me], hi = held.bounds[me + 1];
            delta[j] = layout.storage_base[c.g] - layout.state_shift[c.g];
            const std::uint64_t base = pair_of[told[j].portion] * pair_size;
            member.space.for_each_predecessor(layout, c, [&](std::uint64_t pred) {
                if (pred >= lo && pred < hi) {
                    add(layout.state(pred));
                } else if (outbox) {
                    (*outbox)[held.owner(pred)].push_back(single_bit | (base + pred));
                }
            });
        };
        const auto code_of = [&](std::size_t j, std::uint32_t at) {
            return &work.code(static_cast<std::uint64_t>(static_cast<std::int64_t>(at) + delta[j]));
        };
        PairQueue<V>::tell_group(told.size(), list, code_of, d, states, pushes);
    };
    // Each thread's positions for the other members, kept from batch to batch.
    tbb::enumerable_thread_specific<std::vector<std::vector<std::uint64_t>>> outboxes(
        [&] { return std::vector<std::vector<std::uint64_t>>(members); });
    // A batch's positions cross on another thread while the member tells
    // the predecessors of the batch before and takes the next: two of
    // each buffer, batch b's in [b % 2]. Positions of one distance may be
    // told in any order (each tell settles or counts down a predecessor).
    std::array<Mailbox<std::uint64_t>*, 2> mail{&member.buffers.updates[0], &member.buffers.updates[1]};
    std::array<std::vector<std::uint64_t>*, 2> sent{&member.buffers.told[0], &member.buffers.told[1]};
    std::array<std::vector<std::size_t>, 2> counts{std::vector<std::size_t>(members),
                                                   std::vector<std::size_t>(members)};
    const auto apply = [&](Mailbox<std::uint64_t>& from, std::uint64_t d) {
        for (int j = 0; j < members; ++j) {
            const std::span<std::uint64_t> in = from.received(j);
            std::partial_sum(in.begin(), in.end(), in.begin());  // the positions from their differences
            run_chunks(work_profile::Kind::bucket, static_cast<std::uint32_t>(in.size()), buckets,
                       [&](std::uint32_t f, std::uint32_t l, Pushes& pushes) {
                           std::array<Told, group> told;
                           for (std::uint32_t x = f; x < l; x += group) {
                               const std::size_t n = std::min<std::size_t>(group, l - x);
                               for (std::size_t y = 0; y < n; ++y) {
                                   const std::uint64_t id = in[x + y] & ~single_bit;
                                   const std::uint64_t pair = id / pair_size;
                                   if (pair >= splits.size() || portion_of[pair] == portions.size())
                                       throw std::logic_error("a team member sent a position of a pair this "
                                                              "member holds nothing of");
                                   const bool single = (in[x + y] & single_bit) != 0;
                                   told[y] = {portion_of[pair], id - pair * pair_size, single};
                               }
                               tell(std::span<const Told>(told.data(), n), static_cast<std::uint32_t>(d), pushes,
                                    nullptr);
                           }
                       });
        }
    };
    for (std::uint64_t d = next(none); d != none; d = next(d)) {
        // d is the team's next distance: this member may have nothing at it.
        const std::vector<std::uint32_t> bucket = d < buckets.size() ? std::exchange(buckets[d], {})
                                                                     : std::vector<std::uint32_t>{};
        const std::uint64_t batch = member.options.update_positions;
        const std::uint64_t batches = member.team.all_max((bucket.size() + batch - 1) / batch);
        std::optional<Background::Work> crossing;  // batch b - 1's positions
        for (std::uint64_t b = 0; b < batches; ++b) {
            const std::size_t from = std::min<std::size_t>(bucket.size(), b * batch);
            const std::span<const std::uint32_t> entries = std::span<const std::uint32_t>(bucket).subspan(
                from, std::min<std::size_t>(batch, bucket.size() - from));
            run_chunks(work_profile::Kind::bucket, static_cast<std::uint32_t>(entries.size()), buckets,
                       [&](std::uint32_t f, std::uint32_t l, Pushes& pushes) {
                           auto& outbox = outboxes.local();
                           std::array<Told, group> here, spread;
                           for (std::uint32_t x = f; x < l; x += group) {
                               const std::uint32_t n = std::min<std::uint32_t>(group, l - x);
                               for (std::uint32_t y = x + group; y < std::min<std::uint32_t>(x + 2 * group, l); ++y)
                                   __builtin_prefetch(states.state + entries[y], 1);
                               std::size_t mine = 0, shared = 0;
                               for (std::uint32_t y = x; y < x + n; ++y) {
                                   // Settled in an earlier bucket too: told then (PairQueue::propagate()).
                                   if (states.load(entries[y]) == pair_state::done) continue;
                                   states.store(entries[y], pair_state::done);
                                   const auto [p, local] = locate(entries[y]);
                                   const InBlock c = member.space.in_block(layouts[p], orders[p], local);
                                   const Split& split = portions[p].split->half[c.g];
                                   const int j0 = split.owner(c.block);
                                   const int j1 = split.owner(c.block + orders[p].white_placements[c.g] - 1);
                                   if (j1 == j0 + 1) {
                                       for (const int j : {j0, j1}) {
                                           if (j == me)
                                               here[mine++] = {p, local, false};
                                           else
                                               outbox[j].push_back(pair_of[p] * pair_size + local);
                                       }
                                   } else if (j0 != j1) {
                                       spread[shared++] = {p, local, false};
                                   } else if (j0 == me) {
                                       here[mine++] = {p, local, false};
                                   } else {
                                       outbox[j0].push_back(pair_of[p] * pair_size + local);
                                   }
                               }
                               tell(std::span<const Told>(here.data(), mine), static_cast<std::uint32_t>(d),
                                    pushes, nullptr);
                               tell(std::span<const Told>(spread.data(), shared), static_cast<std::uint32_t>(d),
                                    pushes, &outbox);
                           }
                       });
            // Into one buffer in member order, each member's sorted and as
            // differences, then to the members.
            const std::size_t x = b % 2;
            std::fill(counts[x].begin(), counts[x].end(), 0);
            for (const auto& outbox : outboxes)
                for (int j = 0; j < members; ++j) counts[x][j] += outbox[j].size();
            std::size_t total = 0;
            for (int j = 0; j < members; ++j) total += counts[x][j];
            sent[x]->resize(total);
            std::size_t at = 0;
            for (int j = 0; j < members; ++j) {
                const auto first = sent[x]->begin() + static_cast<std::ptrdiff_t>(at);
                for (auto& outbox : outboxes) {
                    std::copy(outbox[j].begin(), outbox[j].end(),
                              sent[x]->begin() + static_cast<std::ptrdiff_t>(at));
                    at += outbox[j].size();
                    outbox[j].clear();
                }
                const auto last = sent[x]->begin() + static_cast<std::ptrdiff_t>(at);
                tbb::parallel_sort(first, last);
                std::adjacent_difference(first, last, first);
            }
            if (crossing) member.team.waited(crossing->wait());
            crossing.emplace(
                member.buffers.background.start([&, x] { mail[x]->send(member.team, *sent[x], counts[x]); }));
            if (b > 0) apply(*mail[1 - x], d);
        }
        if (crossing) {
            member.team.waited(crossing->wait());
            apply(*mail[(batches - 1) % 2], d);
        }
    }
}

}  // namespace dtb
