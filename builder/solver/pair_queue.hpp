// The bucket queue of a block pair (docs/design.md, "Solver"): buckets by
// distance taken in order; a loss at d makes its unsettled predecessors wins
// at d + 1, a win at d counts its predecessors down and one whose count
// reaches zero loses at the larger of d + 1 and its slowest exit loss; what
// is never settled is a draw. The same queue serves a pair solved by one
// thread (in the table's order, or a big pair in block order:
// PairSpace::BlockOrder), by all threads (atomic state, in block order),
// and a pair split over a team in block order
// (builder/solver/team_level.hpp), whose members tell groups of positions'
// predecessors with tell_group().
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "builder/values/solved_values.hpp"
#include "builder/solver/pair_space.hpp"
#include "builder/solver/pair_state.hpp"
#include "builder/solver/set_up.hpp"
#include "builder/system/work_profile.hpp"
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

    // Tells the predecessors of `entries` (local positions of the layout,
    // which are its state indices, settled at `distance`), in the table's
    // order. The entries are taken in groups of 64: the predecessors of a
    // whole group are listed and their states prefetched before any is
    // touched, so that in a large pair the random accesses overlap instead
    // of waiting in turn (they dominate the time otherwise). Their codes are
    // not: a predecessor's code is read or written only when the tell
    // settles it, about once per position against one tell per king move,
    // and prefetching them all filled the processor's outstanding misses
    // with lines mostly never used.
    template <class Push>
    void propagate(SolvedValues& store, const Layout& layout, std::span<const std::uint32_t> entries,
                   std::uint32_t distance, const PairStates<false>& states, Push& push) const {
        constexpr std::size_t group = 64;
        thread_local std::vector<std::uint64_t> predecessors;
        for (std::size_t i = 0; i < entries.size(); i += group) {
            const std::size_t n = std::min(group, entries.size() - i);
            for (std::size_t j = i + group; j < std::min(i + 2 * group, entries.size()); ++j)
                __builtin_prefetch(states.state + entries[j], 1);
            predecessors.clear();
            for (std::size_t j = i; j < i + n; ++j) {
                // Settled in an earlier bucket too (a win exit and a quicker
                // win by a king move): told then.
                if (states.load(entries[j]) == done) continue;
                states.store(entries[j], done);
                space_.for_each_predecessor(layout, entries[j], [&](std::uint64_t pred) {
                    predecessors.push_back(pred);
                    __builtin_prefetch(states.state + layout.state(pred), 1);
                });
            }
            for (const std::uint64_t pred : predecessors)
                tell([&]() -> std::uint16_t& { return store.code(layout.storage(pred)); }, layout.state(pred),
                     distance, states, push);
        }
    }

    // Tells the predecessors of a group of at most 64 positions settled at
    // `distance` (with all threads when Shared: atomic state): list(j, add) calls
    // add(state) for those of the group's j-th position (j < n) that are to
    // be told here, code_of(j, state) gives the code of one that the tell
    // settles. The states of the whole group's predecessors are listed and
    // prefetched first, then told; the codes of those settled are
    // prefetched (a cache miss each) before any is written.
    template <bool Shared, class Push, class List, class CodeOf>
    static void tell_group(std::size_t n, List&& list, CodeOf&& code_of, std::uint32_t distance,
                           const PairStates<Shared>& states, Push& push) {
        thread_local std::vector<std::uint32_t> predecessors;
        thread_local std::vector<std::pair<std::uint32_t, std::uint16_t*>> settling;
        std::array<std::uint32_t, 65> first;
        // Written through a pointer, grown only when full: push_back() was
        // left a call per predecessor where `list` is large (the team's).
        std::uint32_t* out = predecessors.data();
        std::uint32_t count = 0, room = static_cast<std::uint32_t>(predecessors.size());
        for (std::size_t j = 0; j < n; ++j) {
            first[j] = count;
            list(j, [&](std::uint32_t pred) {
                if (count == room) [[unlikely]] {
                    predecessors.resize(std::max<std::size_t>(1024, 2 * std::size_t{room}));
                    out = predecessors.data();
                    room = static_cast<std::uint32_t>(predecessors.size());
                }
                out[count++] = pred;
                __builtin_prefetch(states.state + pred, 1);
            });
        }
        first[n] = count;
        settling.clear();
        for (std::size_t j = 0; j < n; ++j)
            for (std::uint32_t k = first[j]; k < first[j + 1]; ++k)
                if (settles(out[k], distance, states)) {
                    std::uint16_t* code = code_of(j, out[k]);
                    __builtin_prefetch(code, 1);
                    settling.emplace_back(out[k], code);
                }
        for (const auto& [pred, code] : settling) settle(*code, pred, distance, push);
    }

    // Tells the position at state index `at` that one of its king moves
    // leads to a position settled at `distance`; code_of() gives its code,
    // asked for only if this settles it.
    template <bool Shared, class Push, class CodeOf>
    static void tell(CodeOf&& code_of, std::uint32_t at, std::uint32_t distance, const PairStates<Shared>& states,
                     Push& push) {
        if (settles(at, distance, states)) settle(code_of(), at, distance, push);
    }

    // The two halves of tell(): whether the tell settles the position (its
    // state then says so: the caller owns it), and then its code and queue.
    template <bool Shared>
    static bool settles(std::uint32_t at, std::uint32_t distance, const PairStates<Shared>& states) {
        if (distance % 2 == 0) return states.claim(at);  // a loss: the predecessor wins in one more
        // A win: one king move fewer that might not lose.
        if (states.load(at) >= cannot_lose || !states.count_down(at)) return false;
        states.store(at, settled);
        return true;
    }
    template <class Push>
    static void settle(std::uint16_t& code, std::uint32_t at, std::uint32_t distance, Push& push) {
        if (distance % 2 == 0) {
            // A win exit as quick was queued at this distance when it was set
            // up: queued once, a position is in a bucket at most once.
            if (code == distance + 2) return;
            code = static_cast<std::uint16_t>(distance + 2);
            push(static_cast<int>(distance + 1), at);
        } else {  // a loss at the larger of one more and its slowest exit loss
            const int plies = std::max(static_cast<int>(distance) + 1, value_of_dtw_code(code).plies);
            code = static_cast<std::uint16_t>(dtw_code(Value::loss(plies)));
            push(plies, at);
        }
    }

    // Positions never settled are draws; returns the largest code of a position without a capture.
    static std::uint32_t finish(SolvedValues& store, const Layout& layout, std::uint64_t first, std::uint64_t last,
                         const std::uint8_t* state) {
        std::uint32_t max_code = 0;
        for (std::uint64_t l = first; l < last; ++l)
            finish_one(store, layout.storage(l), state[layout.state(l)], max_code);
        return max_code;
    }

    // Works the queue of a pair that one thread solves whole, from bucket 0 on.
    template <class Push>
    void run_queue(SolvedValues& store, const Layout& layout, PairScratch& scratch, const PairStates<false>& states,
                   Push& push) const {
        // Pushes go to later buckets only: bucket d's storage stays put. A
        // pair that fits the first-level cache is told in place: listing and
        // prefetching would cost more than it saves.
        const bool small = 2 * layout.king_placements <= small_pair_positions;
        for (std::uint32_t d = 0; d < scratch.buckets.size(); ++d) {
            if (small) {
                for (const std::uint32_t at : std::span<const std::uint32_t>(scratch.buckets[d])) {
                    if (states.load(at) == done) continue;  // told in an earlier bucket
                    states.store(at, done);
                    space_.for_each_predecessor(layout, at, [&](std::uint64_t pred) {
                        tell([&]() -> std::uint16_t& { return store.code(layout.storage(pred)); },
                             layout.state(pred), d, states, push);
                    });
                }
            } else {
                propagate(store, layout, std::span<const std::uint32_t>(scratch.buckets[d]), d, states, push);
            }
            scratch.buckets[d].clear();
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
        {
            CaptureMarks marks(store);  // flushed before finish() reads them
            space_.for_each_position(layout, 0, count, source, [&](std::uint64_t l, const Position& q) {
                initialise<V>(store, marks, layout, l, layout.storage(l), layout.state(l), q, states, push, source);
            });
        }
        run_queue(store, layout, scratch, states, push);
        return finish(store, layout, 0, count, scratch.state.data());
    }

    // Solves a big pair, its states, codes and capture marks in block
    // order (PairSpace::BlockOrder) while its queue runs, in `scratch`: with
    // all threads inside when Shared (atomic state, each bucket in parallel
    // chunks), else on this thread alone (plain bytes), beside other pairs.
    // initialise_all(order, states, blocks, buckets) sets up its positions,
    // each one's code and mark at its state in `blocks`. At the end its
    // codes go to `store` at the layout's places in the table's order.
    // Returns the largest code of a position without a capture.
    template <bool Shared, class InitialiseAll>
    std::uint32_t solve_in_blocks(SolvedValues& store, const Layout& layout, std::uint32_t count, PairScratch& scratch,
                                  InitialiseAll&& initialise_all) const {
        const BlockOrder order = space_.block_order_of(layout);
        scratch.state.assign(count, 0);
        SolvedValues& blocks = scratch.blocks;
        blocks.material = store.material;
        blocks.first = 0;
        blocks.codes.resize(count);  // initialise() writes every code
        blocks.capture.assign((count + 63) / 64, 0);
        const PairStates<Shared> states{scratch.state.data()};
        initialise_all(order, states, blocks, scratch.buckets);
        for (std::uint32_t d = 0; d < scratch.buckets.size(); ++d) {
            if constexpr (Shared) {
                const std::vector<std::uint32_t> bucket = std::exchange(scratch.buckets[d], {});
                const std::span<const std::uint32_t> entries(bucket);
                run_chunks(work_profile::Kind::bucket, static_cast<std::uint32_t>(entries.size()), scratch.buckets,
                           [&](std::uint32_t first, std::uint32_t last, Pushes& pushes) {
                               propagate_in_blocks(blocks, layout, order, entries.subspan(first, last - first), d,
                                                   states, pushes);
                           });
            } else {
                // Pushes go to later buckets only: bucket d's storage stays put.
                auto push = [&](int plies, std::uint32_t at) {
                    add_to_buckets(scratch.buckets, static_cast<std::uint32_t>(plies), at);
                };
                propagate_in_blocks(blocks, layout, order, std::span<const std::uint32_t>(scratch.buckets[d]), d,
                                    states, push);
                scratch.buckets[d].clear();
            }
        }
        return finish_in_blocks(store, layout, order, blocks, scratch.state.data(), Shared);
    }

private:
    using BlockOrder = typename PairSpace<V>::BlockOrder;

    // propagate() for a pair in block order (tell_group()), its codes in
    // block order in `blocks`.
    template <bool Shared, class Push>
    void propagate_in_blocks(SolvedValues& blocks, const Layout& layout, const BlockOrder& order,
                             std::span<const std::uint32_t> entries, std::uint32_t distance,
                             const PairStates<Shared>& states, Push& push) const {
        constexpr std::size_t group = 64;
        for (std::size_t i = 0; i < entries.size(); i += group) {
            const std::size_t n = std::min(group, entries.size() - i);
            for (std::size_t j = i + group; j < std::min(i + 2 * group, entries.size()); ++j)
                __builtin_prefetch(states.state + entries[j], 1);
            const auto list = [&](std::size_t j, auto&& add) {
                const std::uint32_t at = entries[i + j];
                if (states.load(at) == done) return;  // as in propagate()
                states.store(at, done);
                space_.for_each_predecessor(layout, order, at,
                                            [&](std::uint64_t pred) { add(static_cast<std::uint32_t>(pred)); });
            };
            const auto code_of = [&](std::size_t, std::uint32_t pred) { return &blocks.codes[pred]; };
            tell_group(n, list, code_of, distance, states, push);
        }
    }

    // finish() for a pair in block order, with all threads if `parallel`:
    // its codes (draws where never settled) and capture marks moved from
    // `blocks` to the layout's places in `store`, in tiles
    // (PairSpace::for_each_in_tile()).
    std::uint32_t finish_in_blocks(SolvedValues& store, const Layout& layout, const BlockOrder& order,
                                   const SolvedValues& blocks, const std::uint8_t* state, bool parallel) const {
        std::vector<typename PairSpace<V>::Tile> tiles;
        for (int h = 0; h < (layout.alone ? 1 : 2); ++h) {
            const std::uint64_t blocks = combination::binomial(draughts::popcount(layout.free[h]), order.black_kings[h]);
            space_.add_tiles(layout, order, h, 0, blocks, tiles);
        }
        std::atomic<std::uint32_t> max_code{0};
        const auto tile = [&](std::size_t i) {
            const typename PairSpace<V>::Tile& t = tiles[i];
            std::uint32_t most = 0;
            CaptureMarks marks(store);
            space_.for_each_in_tile(layout, order, t.h, t.block0, t.block1, t.white0, t.white1,
                                    [&](std::uint64_t b, std::uint64_t l) {
                                        const std::uint64_t s = layout.storage(l);
                                        const std::uint16_t code = state[b] <= cannot_lose ? 0 : blocks.codes[b];
                                        store.code(s) = code;
                                        if (blocks.has_capture(b))
                                            marks.mark(s);
                                        else
                                            most = std::max<std::uint32_t>(most, code);
                                    });
            std::uint32_t seen = max_code.load(std::memory_order_relaxed);
            while (most > seen && !max_code.compare_exchange_weak(seen, most, std::memory_order_relaxed)) {
            }
        };
        if (!parallel) {
            for (std::size_t i = 0; i < tiles.size(); ++i) tile(i);
            return max_code.load();
        }
        work_profile::Step step(work_profile::Kind::finish, tiles.size());
        tbb::this_task_arena::isolate([&] {
            tbb::parallel_for(std::size_t{0}, tiles.size(), [&](std::size_t i) {
                const auto piece = step.piece();
                tile(i);
            });
        });
        return max_code.load();
    }

    // One position at the end of its pair: a draw if never settled; its
    // code counted in max_code if it has no capture.
    static void finish_one(SolvedValues& store, std::uint64_t s, std::uint8_t state, std::uint32_t& max_code) {
        if (state <= cannot_lose) store.code(s) = 0;
        if (!store.has_capture(s)) max_code = std::max<std::uint32_t>(max_code, store.code(s));
    }

    const PairSpace<V>& space_;
};

}  // namespace dtb
