// The bucket queue of a block pair (docs/design.md, "Solver"): buckets by
// distance taken in order; a loss at d makes its unsettled predecessors wins
// at d + 1, a win at d counts its predecessors down and one whose count
// reaches zero loses at the larger of d + 1 and its slowest exit loss; what
// is never settled is a draw. The same queue serves a pair solved by one
// thread, by all threads (atomic state), and a pair split over a team
// (builder/solver/team_level.hpp), which tells the predecessors other
// members hold through `away`.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "builder/solved_values.hpp"
#include "builder/solver/pair_space.hpp"
#include "builder/solver/pair_state.hpp"
#include "builder/solver/set_up.hpp"
#include "probe/value.hpp"

namespace dtb {

template <class V>
class PairQueue {
public:
    using Position = draughts::Position<V::board_size>;
    using Layout = typename PairSpace<V>::Layout;
    static constexpr std::uint8_t cannot_lose = pair_state::cannot_lose, settled = pair_state::settled,
                                  done = pair_state::done;

    // Block pairs of at most this many positions (3 bytes each) have their
    // predecessors told in place, without listing and prefetching them first.
    static constexpr std::uint64_t small_pair_positions = std::uint64_t{1} << 12;

    explicit PairQueue(const PairSpace<V>& space) : space_(space) {}

    // Tells the predecessors of `entries` (state indices of positions settled
    // at `distance`). `locate(entry)` gives an entry's layout and local
    // position; `away(layout, local)` takes a predecessor that another member
    // holds (and returns true) or leaves it (false). The entries are taken in
    // groups of 64: the predecessors of a whole group are listed and their
    // states prefetched before any is touched, so that in a large pair the
    // random accesses overlap instead of waiting in turn (they dominate the
    // time otherwise). Their codes are not: a predecessor's code is read or
    // written only when the tell settles it, about once per position against
    // one tell per king move, and prefetching them all filled the
    // processor's outstanding misses with lines mostly never used.
    template <bool Shared, class Push, class Locate, class Away>
    void propagate(SolvedValues& store, std::span<const std::uint32_t> entries, std::uint32_t distance,
                   const PairStates<Shared>& states, Push& push, Locate&& locate, Away&& away) const {
        constexpr std::size_t group = 64;
        thread_local std::vector<std::uint64_t> predecessors;
        std::array<std::uint32_t, group + 1> first;  // not zeroed: a call can be for one entry
        std::array<const Layout*, group> layouts;
        for (std::size_t i = 0; i < entries.size(); i += group) {
            const std::size_t n = std::min(group, entries.size() - i);
            for (std::size_t j = i + group; j < std::min(i + 2 * group, entries.size()); ++j)
                __builtin_prefetch(states.state + entries[j], 1);
            predecessors.clear();
            for (std::size_t j = 0; j < n; ++j) {
                first[j] = static_cast<std::uint32_t>(predecessors.size());
                // Settled in an earlier bucket too (a win exit and a quicker
                // win by a king move): told then. A bucket lists a position
                // once (tell()), so this needs no atomic exchange.
                if (states.load(entries[i + j]) == done) continue;
                states.store(entries[i + j], done);
                const auto located = locate(entries[i + j]);  // (clang 14 lambdas take no structured bindings)
                const Layout* layout = located.first;
                const std::uint64_t local = located.second;
                layouts[j] = layout;
                space_.for_each_predecessor(*layout, local, [&](std::uint64_t pred) {
                    if (away(*layout, pred)) return;
                    predecessors.push_back(pred);
                    __builtin_prefetch(states.state + layout->state(pred), 1);
                });
            }
            first[n] = static_cast<std::uint32_t>(predecessors.size());
            for (std::size_t j = 0; j < n; ++j)
                for (std::uint32_t k = first[j]; k < first[j + 1]; ++k) {
                    const std::uint64_t pred = predecessors[k];
                    tell(store.code(layouts[j]->storage(pred)), layouts[j]->state(pred), distance, states, push);
                }
        }
    }

    // Tells the position at state index `at` (code `code`) that one of its
    // king moves leads to a position settled at `distance`.
    template <bool Shared, class Push>
    static void tell(std::uint16_t& code, std::uint32_t at, std::uint32_t distance, const PairStates<Shared>& states,
                     Push& push) {
        if (distance % 2 == 0) {  // a loss: the predecessor wins in one more
            if (!states.claim(at)) return;
            // A win exit as quick was queued at this distance when it was set
            // up: queued once, a position is in a bucket at most once.
            if (code == distance + 2) return;
            code = static_cast<std::uint16_t>(distance + 2);
            push(static_cast<int>(distance + 1), at);
        } else {  // a win: one king move fewer that might not lose
            if (states.load(at) >= cannot_lose || !states.count_down(at)) return;
            const int plies = std::max(static_cast<int>(distance) + 1, value_of_dtw_code(code).plies);
            code = static_cast<std::uint16_t>(dtw_code(Value::loss(plies)));
            states.store(at, settled);
            push(plies, at);
        }
    }

    // Positions never settled are draws; returns the largest code of a position without a capture.
    static std::uint32_t finish(SolvedValues& store, const Layout& layout, std::uint64_t first, std::uint64_t last,
                         const std::uint8_t* state) {
        std::uint32_t max_code = 0;
        for (std::uint64_t l = first; l < last; ++l) {
            const std::uint64_t s = layout.storage(l);
            if (state[layout.state(l)] <= cannot_lose) store.code(s) = 0;
            if (!store.has_capture(s)) max_code = std::max<std::uint32_t>(max_code, store.code(s));
        }
        return max_code;
    }

    // Works the queue of a pair that one member holds whole, from bucket 0 on.
    template <bool Shared, class Push>
    void run_queue(SolvedValues& store, const Layout& layout, PairScratch& scratch, const PairStates<Shared>& states,
                   Push& push) const {
        auto locate = [&](std::uint32_t at) { return std::pair{&layout, std::uint64_t{at}}; };
        auto here = [](const Layout&, std::uint64_t) { return false; };
        if constexpr (!Shared) {
            // Pushes go to later buckets only: bucket d's storage stays put.
            // A pair that fits the first-level cache is told in place: listing
            // and prefetching would cost more than it saves.
            const bool small = 2 * layout.king_placements <= small_pair_positions;
            for (std::uint32_t d = 0; d < scratch.buckets.size(); ++d) {
                if (small) {
                    for (const std::uint32_t at : std::span<const std::uint32_t>(scratch.buckets[d])) {
                        if (states.load(at) == done) continue;  // told in an earlier bucket
                        states.store(at, done);
                        space_.for_each_predecessor(layout, at, [&](std::uint64_t pred) {
                            tell(store.code(layout.storage(pred)), layout.state(pred), d, states, push);
                        });
                    }
                } else {
                    propagate(store, std::span<const std::uint32_t>(scratch.buckets[d]), d, states, push, locate, here);
                }
                scratch.buckets[d].clear();
            }
        } else {
            for (std::uint32_t d = 0; d < scratch.buckets.size(); ++d) {
                const std::vector<std::uint32_t> bucket = std::exchange(scratch.buckets[d], {});
                const std::span<const std::uint32_t> entries(bucket);
                run_chunks(static_cast<std::uint32_t>(entries.size()), scratch.buckets,
                           [&](std::uint32_t first, std::uint32_t last, Pushes& pushes) {
                               propagate(store, entries.subspan(first, last - first), d, states, pushes, locate, here);
                           });
            }
        }
    }

    // Solves a pair on one thread; `source` answers its positions in local
    // order. Returns the largest code of a position without a capture.
    template <class Source>
    std::uint32_t solve_alone(SolvedValues& store, const Layout& layout, std::uint32_t count, PairScratch& scratch,
                                   Source& source) const {
        scratch.state.assign(count, 0);  // the buckets are left empty by the pair before
        const PairStates<false> states{scratch.state.data()};
        auto push = [&](int plies, std::uint32_t at) {
            add_to_buckets(scratch.buckets, static_cast<std::uint32_t>(plies), at);
        };
        space_.for_each_position(layout, 0, count, source, [&](std::uint64_t l, const Position& q) {
            initialise<V>(store, layout, l, q, states, push, source);
        });
        run_queue(store, layout, scratch, states, push);
        return finish(store, layout, 0, count, scratch.state.data());
    }

    // Solves a pair with all threads; initialise_all(states, buckets) sets
    // up its positions. Returns the largest code of a position without a capture.
    template <class InitialiseAll>
    std::uint32_t solve_shared(SolvedValues& store, const Layout& layout, std::uint32_t count, PairScratch& scratch,
                                    InitialiseAll&& initialise_all) const {
        scratch.state.assign(count, 0);
        const PairStates<true> states{scratch.state.data()};
        initialise_all(states, scratch.buckets);
        Pushes unused;
        run_queue(store, layout, scratch, states, unused);
        return finish(store, layout, 0, count, scratch.state.data());
    }

private:
    const PairSpace<V>& space_;
};

}  // namespace dtb
