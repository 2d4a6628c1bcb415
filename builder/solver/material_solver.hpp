// Retrograde analysis of one material (docs/design.md, "Solver"
// and "Distributed build").
//
// The unit of work is a block pair: the king placements of one men
// configuration c of the canonical material M (White to move) together with
// those of c turned round in the mirror M' (Black to move in M). King moves
// go from one half of the pair to the other and are the only moves that stay
// inside it; man moves raise the potential (levels solved before, from the
// highest down), promotions and captures reach other materials (solved
// before). Per position:
//   - a capture: the value is the best over the captures, final at once;
//   - otherwise: a counter of king moves, and the best exit (man moves and
//     promotions): the quickest win, a draw, or the slowest loss.
// A bucket queue by distance then settles the pair: a loss at d makes its
// unsettled predecessors (the opponent's king moves, run backwards) wins at
// d + 1; a win at d counts down its predecessors, and one whose count reaches
// zero with no win or draw exit is a loss at the larger of d + 1 and its
// slowest exit loss. Wins via exits enter at their own distance. Buckets are
// taken in order of distance, so every distance is exact; what is never
// settled is a draw.
//
// One process solves a whole material, a level at a time: the pairs of a
// level in parallel, or a big pair at a time with all threads inside. A team
// of several (team.hpp) solves it together, level by level
// (solver/team_level.hpp).
//
// The parts, each with one job:
//   solver/pair_space.hpp   pairs, where their positions are, the man moves
//                           that leave them, positions walked in order,
//                           predecessors
//   solver/pair_state.hpp   a pair's per-position state and buckets
//   solver/set_up.hpp       a pair's positions set up (captures, exits)
//   solver/pair_queue.hpp   the bucket queue; a pair solved on one thread or
//                           on all
//   solver/team_level.hpp   one level solved by a team member, from its
//                           parts: level_share.hpp (the member's share: its
//                           portions, stages and chunks), team_context.hpp
//                           (what the parts share, rounds of exchange),
//                           team_lookups.hpp (values asked of other members),
//                           man_move_blocks.hpp (man moves' values, and
//                           promotions' into tables shared out, fetched by
//                           blocks), split_queue.hpp (split pairs' queue in
//                           step), team_results.hpp (results sent home),
//                           background.hpp (exchanges beside the solving)
//   solver/level_values.hpp one process's values of the material: whole, or
//                           a level at a time (SolverOptions)
//   solver.hpp (this file)  the material, level by level, one process or team
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include "builder/system/process.hpp"
#include "builder/values/solved_values.hpp"
#include "builder/solver/level_values.hpp"
#include "builder/solver/pair_queue.hpp"
#include "builder/solver/pair_space.hpp"
#include "builder/solver/pair_state.hpp"
#include "builder/solver/set_up.hpp"
#include "builder/solver/solve_progress.hpp"
#include "builder/solver/solver_options.hpp"
#include "builder/solver/team_level.hpp"
#include "builder/team/team.hpp"
#include "builder/team/team_options.hpp"
#include "builder/team/team_tables.hpp"
#include "builder/system/work_profile.hpp"
#include "probe/index.hpp"
#include "probe/potential.hpp"

namespace dtb {

template <class V>
class MaterialSolver {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Pair = typename PairSpace<V>::Pair;
    using Layout = typename PairSpace<V>::Layout;

    // One process: `canonical` is solved against `successors`, which must
    // answer for every material its captures and promotions lead to. Big
    // pairs (SolverOptions) are solved in block order (PairSpace::BlockOrder),
    // each on one thread beside the others when a level has enough of them,
    // else side by side with threads inside each; smaller pairs one per
    // thread in the table's order. At most `pairs_at_once` big pairs are
    // solved at once (0: one a thread), each with its scratch (working_bytes()).
    MaterialSolver(const Material& canonical, const Successors<V>& successors, SolveProgress progress = {},
                   std::uint64_t pairs_at_once = 0, const SolverOptions& options = {})
        : space_(canonical), progress_(std::move(progress)), successors_(&successors), options_(options),
          pairs_at_once_(big_pairs_at_once(canonical, pairs_at_once ? pairs_at_once : solver_threads())) {
        if (2 * space_.king_placements() >= std::uint64_t{1} << 32)
            throw std::runtime_error(canonical.name() + ": " + std::to_string(space_.king_placements()) +
                                     " king placements per men configuration are more than one process solves; "
                                     "build it on several MPI ranks");
    }

    // A member of `team`: `tables` holds the team's share of the material and
    // of the materials it leads to that are shared out; `whole` the materials
    // it leads to that every member holds whole (the same on every member).
    MaterialSolver(const Material& canonical, Team& team, TeamTables<V>& tables, const Successors<V>& whole,
                   const TeamOptions& options, SolveProgress progress = {})
        : space_(canonical), progress_(std::move(progress)), successors_(&whole), team_(&team), tables_(&tables) {
        member_ = std::make_unique<TeamMember<V>>(space_, team, tables, whole, options, progress_, max_code_);
    }

    // Bytes one process needs to solve `canonical` (solve()) with at most
    // `pairs_at_once` big pairs at once: its values, whole
    // (SolvedValues::bytes_for) or a level at a time as `options` say
    // (LevelValues::most_bytes), and, for each big pair in work, one byte of
    // state per position of the pair and four per entry of its buckets,
    // counted as if every position were queued, and its codes and capture
    // marks in block order while it is solved. Smaller pairs, one per
    // thread, take kilobytes.
    static std::uint64_t working_bytes(const Material& canonical, std::uint64_t pairs_at_once = 1,
                                       const SolverOptions& options = {}) {
        const Index<N> index(canonical);
        const std::uint64_t positions = static_cast<std::uint64_t>(sides_of(canonical)) * index.size();
        const std::uint64_t values =
            positions >= options.levels_from_positions
                ? LevelValues<V>::most_bytes(canonical, index, PotentialLevels<N>(canonical),
                                             options.level_band_positions)
                : SolvedValues::bytes_for(positions);
        const std::uint64_t pair = 2 * index.king_placements();
        if (pair < options.big_pair_positions) return values;
        return values + big_pairs_at_once(canonical, pairs_at_once) * (5 * pair + SolvedValues::bytes_for(pair));
    }

    // The values of the positions this process holds: all of them alone
    // (whole, or packed when held by levels: LevelValues::finish()), the
    // member's range (tables.homes()) in a team.
    SolvedMaterial solve() {
        const Material& material = space_.material();
        const PotentialLevels<N> levels(material);
        const int level_count = static_cast<int>(levels.levels().size());
        std::optional<LevelValues<V>> alone;
        int first = 0;
        if (!team_) {
            alone.emplace(space_, levels, table_positions<N>(material) >= options_.levels_from_positions,
                          options_.level_band_positions, options_.level_folder);
            std::uint32_t code = 0;
            first = alone->resume(code, progress_.note);
            max_code_.note(code);
            for (int l = 0; l < first && progress_.positions_restored; ++l)
                progress_.positions_restored(static_cast<std::uint64_t>(sides_of(material)) *
                                             levels.levels()[l].men_configurations * space_.side(0).king_placements());
        }
        for (int l = first; l < level_count; ++l) {
            if (alone) alone->start(l, max_code_.value());
            return_free_memory();  // what the level before freed
            work_profile::Scope::set_level(l);
            if (progress_.level_started) progress_.level_started(l, level_count);
            if (team_)
                member_->solve_level(levels, levels.levels()[l], l == 0);
            else
                solve_level(levels, levels.levels()[l], *alone);
        }
        if (team_) {
            tables_->home().max_code = static_cast<std::uint32_t>(team_->all_max(max_code_.value()));
            return std::move(tables_->home());
        }
        return alone->finish(max_code_.value());
    }

private:
    void report(std::uint64_t positions) const {
        if (progress_.positions_done) progress_.positions_done(positions);
    }

    // The big pairs `canonical` has at most in a level, if fewer than `pairs_at_once` (at least 1).
    static std::uint64_t big_pairs_at_once(const Material& canonical, std::uint64_t pairs_at_once) {
        const PotentialLevels<N> levels(canonical);
        std::uint64_t most = 0;
        for (const auto& level : levels.levels()) most = std::max(most, level.men_configurations);
        return std::max<std::uint64_t>(1, std::min(pairs_at_once, most));
    }

    // A big pair, its states, codes and marks in block order (set up in
    // that order: written in order, nothing ranked): with all threads inside
    // (Shared), or on this thread, beside other pairs.
    template <bool Shared>
    void solve_big_pair(const PairQueue<V>& queue, const Pair& pair, LevelValues<V>& values, PairScratch& scratch) {
        const Layout layout = layout_in(values, pair);
        const auto count = static_cast<std::uint32_t>(space_.pair_positions(pair));
        const DirectSource<V> source(*successors_, values.above());
        Layout in_blocks = layout;
        in_blocks.in_blocks = true;
        const auto set_up_range = [&](const PairStates<Shared>& states, SolvedValues& blocks, std::uint32_t first,
                                      std::uint32_t last, auto& push) {
            DirectSource<V> s = source;
            CaptureMarks marks(blocks);
            space_.for_each_position(in_blocks, first, last, s, [&](std::uint64_t l, const Position& q) {
                initialise<V>(blocks, marks, in_blocks, l, l, static_cast<std::uint32_t>(l), q, states, push, s);
            });
        };
        const auto set_up = [&](const auto&, const PairStates<Shared>& states, SolvedValues& blocks, Buckets& b) {
            if constexpr (Shared) {
                run_chunks(work_profile::Kind::set_up, count, b,
                           [&](std::uint32_t first, std::uint32_t last, Pushes& pushes) {
                               set_up_range(states, blocks, first, last, pushes);
                           });
            } else {
                auto push = [&](int plies, std::uint32_t at) {
                    add_to_buckets(b, static_cast<std::uint32_t>(plies), at);
                };
                set_up_range(states, blocks, 0, count, push);
            }
        };
        max_code_.note(queue.template solve_in_blocks<Shared>(values.current(), layout, count, scratch, set_up));
        report(count);
    }

    // A pair's layout in the level's codes (LevelValues::place()).
    Layout layout_in(const LevelValues<V>& values, const Pair& pair) const {
        Layout layout = space_.layout_of(pair, !values.by_levels());
        values.place(layout);
        return layout;
    }

    // One process: the pairs of a level in parallel, a pair on one thread;
    // big ones so in whole rounds of a pair a thread (SolverOptions), those
    // left over side by side with the threads shared out among them (a
    // material of kings only has one pair).
    void solve_level(const PotentialLevels<N>& levels, const typename PotentialLevels<N>::Level& level,
                     LevelValues<V>& values) {
        const PairQueue<V> queue(space_);
        if (2 * space_.side(0).king_placements() >= options_.big_pair_positions) {
            const std::vector<Pair> pairs = space_.pairs_of(levels, level);
            const std::size_t lanes = std::min<std::size_t>(pairs.size(), pairs_at_once_);
            if (scratches_.size() < lanes) scratches_.resize(lanes);
            // Whole rounds of a pair a thread, side by side; the pairs left
            // over (fewer than the threads) side by side too, the threads
            // shared out among them inside.
            const std::uint64_t round =
                options_.big_pairs_alone_from ? options_.big_pairs_alone_from : solver_threads();
            const std::size_t alone = pairs.size() / round * round;
            in_lanes(work_profile::Kind::big_pairs, 0, alone, lanes, [&](std::size_t i, std::size_t lane) {
                solve_big_pair<false>(queue, pairs[i], values, scratches_[lane]);
            });
            in_lanes(work_profile::Kind::shared_pairs, alone, pairs.size(), lanes, [&](std::size_t i, std::size_t lane) {
                solve_big_pair<true>(queue, pairs[i], values, scratches_[lane]);
            });
            return;
        }
        tbb::enumerable_thread_specific<PairScratch> scratches;
        space_.for_each_slice_of_pairs(levels, level, work_profile::Kind::pairs, [&](const std::vector<Pair>& pairs) {
            PairScratch& scratch = scratches.local();
            DirectSource<V> source(*successors_, values.above());
            std::uint64_t positions = 0;
            for (const Pair& pair : pairs) {
                const Layout layout = layout_in(values, pair);
                const auto count = static_cast<std::uint32_t>(space_.pair_positions(pair));
                max_code_.note(queue.solve_alone(values.current(), layout, count, scratch, source));
                positions += count;
            }
            report(positions);  // once per slice: pairs can be 2 positions
        });
    }

    PairSpace<V> space_;
    SolveProgress progress_;
    const Successors<V>* successors_;
    SolverOptions options_;
    MaxCode max_code_;
    // One process:
    std::uint64_t pairs_at_once_ = 1;
    std::vector<PairScratch> scratches_;  // a big pair's each, kept from level to level
    // A team:
    Team* team_ = nullptr;
    TeamTables<V>* tables_ = nullptr;
    std::unique_ptr<TeamMember<V>> member_;
};

}  // namespace dtb
