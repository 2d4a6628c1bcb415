// One level of a material solved by a team (docs/design.md, "Distributed
// build"): each member takes a share of the level's pairs (or, when the
// level has few pairs, a share of every pair: level_share.hpp), asks the
// members that hold them for the values its positions' exits and captures
// lead to (team_lookups.hpp, man_move_blocks.hpp), solves its pairs with the
// one-process code (set_up.hpp, pair_queue.hpp), runs the queues of pairs
// split over the team in step (split_queue.hpp), and sends its results to
// the members whose ranges hold them (team_results.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include "builder/values/solved_values.hpp"
#include "builder/solver/background.hpp"
#include "builder/solver/level_share.hpp"
#include "builder/solver/man_move_blocks.hpp"
#include "builder/solver/pair_queue.hpp"
#include "builder/solver/pair_space.hpp"
#include "builder/solver/pair_state.hpp"
#include "builder/solver/set_up.hpp"
#include "builder/solver/solve_progress.hpp"
#include "builder/solver/split_queue.hpp"
#include "builder/solver/team_context.hpp"
#include "builder/solver/team_lookups.hpp"
#include "builder/solver/team_results.hpp"
#include "builder/team/team.hpp"
#include "builder/team/team_options.hpp"
#include "builder/team/team_tables.hpp"
#include "probe/potential.hpp"

namespace dtb {

template <class V>
class TeamMember {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Layout = typename PairSpace<V>::Layout;
    using Portion = typename LevelShare<V>::Portion;
    using Chunk = typename LevelShare<V>::Chunk;

    // `tables` holds the team's share of the material and of the materials
    // it leads to that are shared out; `successors` the materials it leads
    // to that every member holds whole (the same on every member).
    TeamMember(const PairSpace<V>& space, Team& team, TeamTables<V>& tables, const Successors<V>& successors,
               const TeamOptions& options, const SolveProgress& progress, MaxCode& max_code)
        : queue_(space),
          options_(options),
          progress_(progress),
          max_code_(max_code),
          buffers_(team.size()),
          member_{space, team, tables, successors, options_, buffers_},
          lookups_(member_),
          blocks_(member_) {}
    TeamMember(const TeamMember&) = delete;  // member_ refers to options_ and buffers_
    TeamMember& operator=(const TeamMember&) = delete;

    // The member's part of one level: its configurations dealt whole, then
    // those split over the team (LevelShare::parts()).
    void solve_level(const PotentialLevels<N>& levels, const typename PotentialLevels<N>::Level& level, bool top) {
        for (const auto& part : LevelShare<V>::parts(member_.space, options_, member_.team.size(), level))
            solve_part(levels, level, part, top);
    }

private:
    void solve_part(const PotentialLevels<N>& levels, const typename PotentialLevels<N>::Level& level,
                    const typename LevelShare<V>::Part& part, bool top) {
        const PairSpace<V>& space = member_.space;
        LevelShare<V> share(space, options_, member_.team.size(), member_.team.rank(), levels, level, part);
        const std::vector<Portion>& portions = share.portions;
        const std::vector<Chunk>& chunks = share.chunks;
        SolvedValues& store = buffers_.work;
        store.material = space.material();
        store.codes.resize(share.work);  // every code is written before it is read
        store.capture.assign((share.work + 63) / 64, 0);
        // Whether the level needs values from other members: those of the
        // materials shared out, and of man moves (none from the top level:
        // a man move there would raise the highest potential), asked position
        // by position in split pairs, fetched by blocks for whole ones with
        // kings. Without kings a block is one position, and a position with a
        // capture asks nothing for its man moves, where a block would be fetched.
        // Promotions into tables shared out are fetched by blocks likewise
        // (the half and the move named, the holders answering for each king
        // placement), and then a level that reaches no shared-out table by a
        // capture asks nothing: it is set up as one process sets it up.
        const bool man_moves = space.material().men() > 0 && !top;
        const bool whole_with_kings = !share.split && space.side(0).king_placements() > 1;
        const bool fetches = man_moves && whole_with_kings;
        const bool promotions_shared = member_.tables.shares_promotion_successors();
        const bool fetches_promotions = promotions_shared && whole_with_kings;
        const bool fetches_any = fetches || fetches_promotions;
        const bool asks = member_.tables.shares_capture_successors() || (man_moves && !fetches) ||
                          (promotions_shared && !fetches_promotions);
        std::vector<std::uint8_t>& meta = buffers_.meta;
        meta.resize(asks ? share.work : 0);  // ask() writes every position's
        if (fetches_any) blocks_.find_exits(portions, fetches, fetches_promotions);
        if (asks) lookups_.look_up(store, share, meta, fetches, fetches_promotions);
        const SolvedValues& fetched = buffers_.fetched;
        // The values of a chunk's positions from outside their pairs.
        auto with_source = [&](const Chunk& chunk, auto&& f) {
            if (asks) {
                EntrySource<V> source{member_.successors, store, meta.data(), chunk.entries,
                                      fetches_any ? &fetched : nullptr};
                f(source);
            } else {  // every table captures reach held whole; the others' values fetched, if any
                DirectSource<V> source(member_.successors, fetches_any ? fetched : store);
                f(source);
            }
        };
        const auto layout_for_setup = [&](std::size_t p) {
            return blocks_.layout_for_setup(share, p, fetches_any, asks);
        };

        if (share.split) {
            // The shares of split pairs, in step with the team.
            std::uint64_t lock_size = 0;
            for (const Portion& p : portions) lock_size += p.count();
            std::vector<std::uint8_t>& lock = buffers_.lock;
            lock.assign(lock_size, 0);
            Buckets buckets;
            const PairStates<true> states{lock.data()};
            initialise_chunks(store, false, chunks, 0, chunks.size(), with_source, states, buckets, layout_for_setup,
                              [](const Layout& l, std::uint64_t local, const Position&) { return l.state(local); });
            run_split_queue(member_, store, share, lock, buckets);
            std::uint32_t max_code = 0;
            for (const Portion& p : portions)
                max_code = std::max(max_code,
                                    PairQueue<V>::finish(store, share.layout_in_work(p), p.first, p.last, lock.data()));
            max_code_.note(max_code);
            report(lock_size);
            send_home(member_, share, 0, portions.size(), store);
            return;
        }

        // Stage st of whole pairs: small pairs a chunk per task, then big
        // pairs one at a time with all threads.
        auto solve_stage = [&](std::size_t st) {
            const std::size_t c0 = share.stage_chunks[st], c1 = share.stage_chunks[st + 1];
            std::size_t c = c0;
            while (c < c1 && share.small(portions[chunks[c].p0])) ++c;
            tbb::enumerable_thread_specific<PairScratch> scratches;
            tbb::parallel_for(c0, c, [&](std::size_t i) {
                PairScratch& scratch = scratches.local();
                std::uint64_t positions = 0;
                with_source(chunks[i], [&](auto& source) {
                    for (std::size_t p = chunks[i].p0; p < chunks[i].p1; ++p) {
                        const Layout layout = layout_for_setup(p);
                        max_code_.note(queue_.solve_alone(store, layout, portions[p].count(), scratch, source));
                        positions += portions[p].count();
                    }
                });
                report(positions);
            });
            while (c < c1) {
                const std::size_t p = chunks[c].p0, first = c;
                while (c < c1 && chunks[c].p0 == p) ++c;
                const Layout layout = layout_for_setup(p);
                PairScratch scratch;
                // Set up in block order (layout_in_work()): a position's state is its local.
                const auto set_up = [&](const auto&, const PairStates<true>& states, SolvedValues& blocks,
                                        Buckets& buckets) {
                    initialise_chunks(blocks, true, chunks, first, c, with_source, states, buckets,
                                      [&](std::size_t) { return layout; },
                                      [](const Layout& l, std::uint64_t local, const Position&) {
                                          return l.state(local);
                                      });
                };
                max_code_.note(queue_.template solve_in_blocks<true>(store, layout, portions[p].count(), scratch, set_up));
                report(portions[p].count());
            }
        };
        // The team's stages: as many on every member (the last ones empty on a member with fewer).
        const std::size_t mine = share.stage_first.size() - 1;
        const std::size_t stages = member_.team.all_max(mine);
        const auto first_of = [&](std::size_t st) { return share.stage_first[std::min(st, mine)]; };
        const auto fetch = [&](std::size_t st) {
            if (fetches_any) blocks_.fetch_blocks(first_of(st), first_of(st + 1));
        };
        fetch(0);
        for (std::size_t st = 0; st < stages; ++st) {
            Background::Work exchanges = buffers_.background.start([&] {
                if (st > 0) send_home(member_, share, first_of(st - 1), first_of(st), store);
                if (st + 1 < stages) fetch(st + 1);
            });
            if (st < mine) solve_stage(st);
            member_.team.waited(exchanges.wait());
        }
        send_home(member_, share, first_of(stages - 1), first_of(stages), store);
    }

    void report(std::uint64_t positions) const {
        if (progress_.positions_done) progress_.positions_done(positions);
    }

    // Sets up the positions of chunks [c0, c1) (each one portion's slice) in
    // parallel, their layouts through layout_of_portion(p), their states at
    // state_of(layout, local, position), their codes and marks in `codes`,
    // at their states if `at_states` (a big pair's in block order:
    // PairQueue::solve_shared), else at their layouts' places.
    template <class WithSource, class LayoutOf, class StateOf>
    void initialise_chunks(SolvedValues& codes, bool at_states, const std::vector<Chunk>& chunks, std::size_t c0,
                           std::size_t c1, WithSource&& with_source, const PairStates<true>& states,
                           Buckets& buckets, LayoutOf&& layout_of_portion, StateOf&& state_of) {
        std::mutex merge;
        tbb::parallel_for(c0, c1, [&](std::size_t i) {
            const Chunk& chunk = chunks[i];
            const Layout layout = layout_of_portion(chunk.p0);
            Pushes pushes;
            with_source(chunk, [&](auto& source) {
                CaptureMarks marks(codes);
                member_.space.for_each_position(layout, chunk.first, chunk.last, source,
                                                [&](std::uint64_t l, const Position& q) {
                    const auto at = static_cast<std::uint32_t>(state_of(layout, l, q));
                    initialise<V>(codes, marks, layout, l, at_states ? at : layout.storage(l), at, q, states,
                                  pushes, source);
                });
            });
            const std::lock_guard lock(merge);
            for (const auto& [d, at] : pushes.list) add_to_buckets(buckets, d, at);
        });
    }

    PairQueue<V> queue_;
    TeamOptions options_;
    const SolveProgress& progress_;
    MaxCode& max_code_;
    TeamBuffers buffers_;
    TeamContext<V> member_;  // the above and the team, as the level's parts see them
    TeamLookups<V> lookups_;
    ManMoveBlocks<V> blocks_;
};

}  // namespace dtb
