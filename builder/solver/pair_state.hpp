// The state of a block pair while its bucket queue runs (docs/design.md,
// "Solver"): one byte a position, read and written plainly by one thread or
// atomically by all, and the buckets of state indices by distance.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "builder/values/solved_values.hpp"
#include "builder/solver/solver_options.hpp"
#include "builder/system/work_profile.hpp"

namespace dtb {

// Per-position state while a pair is solved: a count of king moves not
// yet settled (0..cannot_lose-1), or one of these.
namespace pair_state {
inline constexpr std::uint8_t cannot_lose = 253;  // not settled; a win or draw exit
inline constexpr std::uint8_t settled = 254;      // final value, predecessors not yet told
inline constexpr std::uint8_t done = 255;         // final value, predecessors told
}  // namespace pair_state

using Buckets = std::vector<std::vector<std::uint32_t>>;
struct PairScratch {
    std::vector<std::uint8_t> state;
    Buckets buckets;
    // A pair solved with all threads: its codes and capture marks in block
    // order (PairQueue::solve_shared).
    SolvedValues blocks;
};

// The state array of a pair, read and written plainly when one thread
// solves the pair, atomically when all do.
template <bool Shared>
struct PairStates {
    static constexpr std::uint8_t cannot_lose = pair_state::cannot_lose, settled = pair_state::settled;
    std::uint8_t* state;
    std::uint8_t load(std::uint32_t l) const noexcept {
        if constexpr (Shared) return std::atomic_ref<std::uint8_t>(state[l]).load(std::memory_order_relaxed);
        return state[l];
    }
    void store(std::uint32_t l, std::uint8_t s) const noexcept {
        if constexpr (Shared)
            std::atomic_ref<std::uint8_t>(state[l]).store(s, std::memory_order_relaxed);
        else
            state[l] = s;
    }
    // Takes an unsettled position for the caller: false if it was settled already.
    bool claim(std::uint32_t l) const noexcept {
        if constexpr (Shared) {
            std::atomic_ref<std::uint8_t> s(state[l]);
            std::uint8_t seen = s.load(std::memory_order_relaxed);
            while (seen <= cannot_lose)
                if (s.compare_exchange_weak(seen, settled, std::memory_order_relaxed)) return true;
            return false;
        } else {
            if (state[l] > cannot_lose) return false;
            state[l] = settled;
            return true;
        }
    }
    // One fewer king move unsettled: true if that was the last.
    bool count_down(std::uint32_t l) const noexcept {
        if constexpr (Shared)
            return std::atomic_ref<std::uint8_t>(state[l]).fetch_sub(1, std::memory_order_relaxed) == 1;
        return --state[l] == 0;
    }
};

// Pushes (distance, state index) into buckets: straight into the pair's
// buckets when one thread solves it, through a per-chunk list otherwise.
struct Pushes {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> list;
    void operator()(int plies, std::uint32_t at) { list.emplace_back(static_cast<std::uint32_t>(plies), at); }
};

inline void add_to_buckets(Buckets& buckets, std::uint32_t distance, std::uint32_t at) {
    if (distance >= buckets.size()) buckets.resize(distance + 1);
    buckets[distance].push_back(at);
}

// solve(i, lane) for i in [first, last), in at most `lanes` lanes side by
// side, each taking the next i until none is left (a lane keeps its
// scratch): a step of `kind` of the work profile, a unit an i, whose own
// steps, where it has any, add up in it (work_profile::Unit).
template <class Solve>
void in_lanes(work_profile::Kind kind, std::size_t first, std::size_t last, std::size_t lanes, Solve&& solve) {
    if (first >= last) return;
    std::atomic<std::size_t> next{first};
    work_profile::Step step(kind, last - first);
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, std::min(lanes, last - first), 1),
        [&](const tbb::blocked_range<std::size_t>& r) {
            for (std::size_t lane = r.begin(); lane != r.end(); ++lane)
                for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < last;) {
                    const work_profile::Unit unit(step);
                    solve(i, lane);
                }
        },
        tbb::simple_partitioner());
}

// body(first, last, pushes) over chunks of [0, n) in parallel; the pushes
// go into `buckets`. A step of kind `kind` of the work profile, in units of
// a chunk's least size. Isolated: while the calling thread waits for the
// last chunk it runs none but this step's, where a task of another
// material taken meanwhile would hold up every step after this one.
template <class Body>
void run_chunks(work_profile::Kind kind, std::uint32_t n, Buckets& buckets, Body&& body) {
    constexpr std::uint32_t grain = 1024;
    std::mutex merge;
    work_profile::Step step(kind, (n + grain - 1) / grain);
    tbb::this_task_arena::isolate([&] {
        tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, n, grain),
                          [&](const tbb::blocked_range<std::uint32_t>& r) {
                              const auto piece = step.piece((r.size() + grain - 1) / grain);
                              Pushes pushes;
                              body(r.begin(), r.end(), pushes);
                              const std::lock_guard lock(merge);
                              for (const auto& [d, at] : pushes.list) add_to_buckets(buckets, d, at);
                          });
    });
}

}  // namespace dtb
