// Values under the move-count draw rules (docs/rules.md): for every position
// of a material, the rule distance d, the plies until the governing count
// is resolved under play that is optimal for it. A position whose count
// stands at c is won when d is a win and d <= limit - c, lost likewise,
// drawn otherwise; the won (and the lost) counts of a position are all those
// below a threshold, so d is exact.
//
// The material is solved as the plain solver solves it (solver.hpp): block
// pairs, potential levels from the highest down, a bucket queue by distance
// over the king moves inside a pair. What differs:
//   - a move that starts the count afresh (a man move or capture under the
//     kings-only count, a move into another ending) resolves the count in
//     one ply: a win in 1 if its child is lost under the child's own count
//     from zero, a loss in 1 if won, a draw otherwise;
//   - any other move adds one ply to its child's distance, and a distance
//     past the limit is a draw;
//   - so wins and losses do not alternate in parity: each bucket entry's
//     kind is read from its code.
// Russian three kings against one is solved twice: after the lone king has
// stood alone on the main road (limit the road's), then before it, where
// positions with the lone king alone on the road take their value after.
//
// Small block pairs are solved one a thread, the pairs of a level in
// parallel; big ones in whole rounds of a pair a thread, those left over
// side by side with threads inside each (a material of kings only is one
// pair).
//
// A material is held whole (RuleValues, a byte a position), or, where
// SolverOptions say so (levels_from_positions), a level at a time as the
// plain solver holds it (LevelValues: the level solved and the one above
// as codes, the rest packed and spilled, the table handed on packed, a
// killed solve resumed from its last level). The codes, one byte, then
// take the two bytes of a plain code. A material with a main road (three
// kings against one, one level) is always held whole.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include "builder/system/process.hpp"
#include "builder/solver/level_values.hpp"
#include "builder/solver/pair_space.hpp"
#include "builder/solver/pair_state.hpp"
#include "builder/solver/set_up.hpp"
#include "builder/solver/solve_progress.hpp"
#include "builder/solver/solver_options.hpp"
#include "builder/values/packed_codes.hpp"
#include "builder/values/rule_values.hpp"
#include "builder/system/work_profile.hpp"
#include "draughts/movegen.hpp"
#include "probe/index.hpp"
#include "probe/potential.hpp"
#include "probe/rule_count.hpp"
#include "probe/rule_prober.hpp"
#include "probe/table_format.hpp"
#include "probe/value.hpp"

namespace dtb {

template <class V>
class RuleSolver {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Bitboard = typename Position::Bitboard;
    using Move = draughts::Move<N>;
    using Layout = typename PairSpace<V>::Layout;

    // `successors` must hold every material `canonical`'s captures and
    // promotions lead to. Throws RulesRefused for a material the rules
    // give two counts (governing_count()).
    // The pairs of a level are solved in parallel, one a thread; big ones
    // (SolverOptions) so in whole rounds of a pair a thread, those left
    // over side by side with threads inside each (as MaterialSolver does).
    // `progress.note` is told of a solve by levels resumed, or of a
    // checkpoint not trusted.
    RuleSolver(const Material& canonical, const RuleSuccessors<V>& successors, bool literal_road = false,
               const SolverOptions& options = {}, SolveProgress progress = {})
        : space_(canonical), successors_(successors), literal_road_(literal_road), options_(options),
          progress_(std::move(progress)) {
        values_.material = canonical;
        values_.count = governing_count<typename V::draw_rules>(canonical);
        values_.positions_per_side = space_.side(0).size();
        man_move_keeps_ = values_.count.continues_into(values_.count, true);
    }

    // Whether `canonical` is solved a level at a time under `options`.
    static bool by_levels(const Material& canonical, const SolverOptions& options) {
        return !governing_count<typename V::draw_rules>(canonical).has_road() &&
               table_positions<N>(canonical) >= options.levels_from_positions;
    }

    // The values whole, or, by levels, the table packed (its rule codes in
    // a plain table's frames, counted).
    SolvedRuleMaterial solve() {
        if (by_levels(values_.material, options_)) return solve_by_levels();
        const std::uint64_t positions = static_cast<std::uint64_t>(sides_of(values_.material)) * values_.positions_per_side;
        values_.captures.assign((positions + 63) / 64, 0);
        if (values_.count.has_road()) {
            values_.after_road.assign(positions, 0);
            solve_phase(values_.after_road, values_.count.road_limit, nullptr);
            values_.codes.assign(positions, 0);
            solve_phase(values_.codes, values_.count.limit, &values_.after_road);
        } else {
            values_.codes.assign(positions, 0);
            solve_phase(values_.codes, values_.count.limit, nullptr);
        }
        return std::move(values_);
    }

private:
    static constexpr std::uint8_t cannot_lose = pair_state::cannot_lose, settled = pair_state::settled,
                                  done = pair_state::done;

    // Where a pair's codes are: `own` the level solved (the pair's own
    // positions, layout.storage()), `above` the level its men's moves reach
    // (a man move's child, ManExit::child()), and the capture marks of
    // `own`. Whole, both are the table.
    template <class T>
    struct Codes {
        T* own;
        const T* above;
        std::uint64_t* captures;
    };

    // Solves every position into `codes` under a count of `limit` plies;
    // `road` (before the main road): positions with the lone king alone on
    // it take their value there.
    void solve_phase(std::vector<std::uint8_t>& codes, int limit, const std::vector<std::uint8_t>* road) {
        const PotentialLevels<N> levels(values_.material);
        const Codes<std::uint8_t> whole{codes.data(), codes.data(), values_.captures.data()};
        for (const auto& level : levels.levels()) {
            work_profile::Scope::set_level(static_cast<int>(&level - levels.levels().data()));
            solve_level(levels, level, whole, limit, road ? road->data() : nullptr, nullptr);
        }
    }

    // The material a level at a time (LevelValues), from the level a killed
    // solve left off at.
    SolvedRuleMaterial solve_by_levels() {
        const Material& material = values_.material;
        const PotentialLevels<N> levels(material);
        const int level_count = static_cast<int>(levels.levels().size());
        LevelValues<V> held(space_, levels, true, options_.level_band_positions, options_.level_folder,
                            LevelCodes::rule);
        std::uint32_t unused = 0;
        const int first = held.resume(unused, progress_.note);
        for (int l = first; l < level_count; ++l) {
            held.start(l, 0);
            return_free_memory();  // what the level before freed
            work_profile::Scope::set_level(l);
            const Codes<std::uint16_t> codes{held.current().codes.data(), held.above().codes.data(),
                                             held.current().capture.data()};
            solve_level(levels, levels.levels()[l], codes, values_.count.limit, nullptr, &held);
        }
        return PackedRules{values_.count, std::get<PackedTable>(held.finish(0))};
    }

    // A pair's layout: in the table's places (whole), or pointed at the
    // level's codes by `held`.
    Layout layout_in(const typename PairSpace<V>::Pair& pair, const LevelValues<V>* held) const {
        if (!held) return space_.layout_of(pair);
        Layout layout = space_.layout_of(pair, false);
        held->place(layout);
        return layout;
    }

    // The pairs of one level: small ones a slice of men configurations a
    // thread; big ones in whole rounds of a pair a thread, the rest side by
    // side with the threads shared out among them inside.
    template <class T>
    void solve_level(const PotentialLevels<N>& levels, const typename PotentialLevels<N>::Level& level,
                     const Codes<T>& codes, int limit, const std::uint8_t* road, const LevelValues<V>* held) {
        if (2 * space_.side(0).king_placements() < options_.big_pair_positions) {
            space_.for_each_slice_of_pairs(levels, level, work_profile::Kind::rule_pairs,
                                           [&](const std::vector<typename PairSpace<V>::Pair>& pairs) {
                                               PairScratch& scratch = scratches_.local();
                                               for (const auto& pair : pairs)
                                                   solve_pair<false>(codes, limit, road, layout_in(pair, held),
                                                                     space_.pair_positions(pair), scratch);
                                           });
            return;
        }
        const auto pairs = space_.pairs_of(levels, level);
        const std::uint64_t round = options_.big_pairs_alone_from ? options_.big_pairs_alone_from : solver_threads();
        const std::size_t alone = pairs.size() / round * round;
        if (alone > 0) {
            work_profile::Step step(work_profile::Kind::rule_pairs, alone);
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, alone, 1),
                              [&](const tbb::blocked_range<std::size_t>& r) {
                                  PairScratch& scratch = scratches_.local();
                                  for (std::size_t i = r.begin(); i != r.end(); ++i) {
                                      const auto piece = step.piece();
                                      solve_pair<false>(codes, limit, road, layout_in(pairs[i], held),
                                                        space_.pair_positions(pairs[i]), scratch);
                                  }
                              });
        }
        const std::size_t lanes = std::min(pairs.size() - alone, solver_threads());
        if (shared_scratches_.size() < lanes) shared_scratches_.resize(lanes);
        in_lanes(work_profile::Kind::shared_pairs, alone, pairs.size(), lanes, [&](std::size_t i, std::size_t lane) {
            solve_pair<true>(codes, limit, road, layout_in(pairs[i], held), space_.pair_positions(pairs[i]),
                             shared_scratches_[lane]);
        });
    }

    // The value for the mover of a move into `child` (the opponent to
    // move), a capture's or a promotion's, whose material is another: the
    // count kept (one ply more, a draw past `limit`) or started afresh in
    // the child's material (resolved in this ply).
    Value through(const Position& child, int limit) const {
        if (child.pieces(child.side_to_move) == 0) return Value::win(1);
        const auto [count, v] = successors_.find(child);
        return rule_through(v, values_.count.continues_into(count, true), limit);
    }

    // Sets up and solves one block pair: on this thread, or (Shared) with
    // every thread, the set-up and each bucket in parallel chunks. Shared,
    // the states are atomic bytes (PairStates<true>) and so are the codes
    // of the pair; a bucket holds wins and losses together (no parity), so
    // a claim (a predecessor of a loss wins) and a count-down (of a win) may
    // meet on one position: each is a compare-and-swap that leaves a
    // settled position alone. A position with a lost child never has all
    // its king moves won, so the two never both settle one.
    template <bool Shared, class T>
    void solve_pair(const Codes<T>& codes, int limit, const std::uint8_t* road, const Layout& layout,
                    std::uint64_t count, PairScratch& scratch) {
        // The scratch's buckets are left empty by the pair before.
        std::vector<std::uint8_t>& state = scratch.state;
        state.assign(count, 0);
        Buckets& buckets = scratch.buckets;
        if (buckets.size() < static_cast<std::size_t>(limit) + 1) buckets.resize(static_cast<std::size_t>(limit) + 1);
        const PairStates<Shared> states{state.data()};
        const auto load_code = [&](std::uint64_t l) -> T {
            if constexpr (Shared)
                return std::atomic_ref<T>(codes.own[layout.storage(l)]).load(std::memory_order_relaxed);
            return codes.own[layout.storage(l)];
        };
        const auto store_code = [&](std::uint64_t l, std::uint8_t c) {
            if constexpr (Shared)
                std::atomic_ref<T>(codes.own[layout.storage(l)]).store(c, std::memory_order_relaxed);
            else
                codes.own[layout.storage(l)] = c;
        };
        // Pushes: straight into the buckets alone, through each chunk's list shared.
        const auto in_chunks = [&](work_profile::Kind kind, std::uint64_t n, auto&& body) {
            if constexpr (Shared) {
                run_chunks(kind, static_cast<std::uint32_t>(n), buckets,
                           [&](std::uint32_t first, std::uint32_t last, Pushes& pushes) { body(first, last, pushes); });
            } else {
                auto push = [&](int plies, std::uint32_t at) { buckets[plies].push_back(at); };
                body(std::uint64_t{0}, n, push);
            }
        };
        in_chunks(work_profile::Kind::rule_set_up, count, [&](std::uint64_t first, std::uint64_t last, auto& push) {
            space_.for_each_position(layout, first, last, [&](std::uint64_t l, const Position& q) {
                set_up(codes, limit, road, layout, l, q, state, push);
            });
        });
        for (int d = 0; d <= limit; ++d) {
            const std::vector<std::uint32_t>& entries = buckets[d];  // pushes go to later buckets only
            in_chunks(work_profile::Kind::rule_bucket, entries.size(), [&](std::uint64_t first, std::uint64_t last, auto& push) {
                for (std::uint64_t i = first; i < last; ++i) {
                    const std::uint32_t at = entries[i];
                    if (states.load(at) == done) continue;  // settled again sooner; a bucket lists a position once
                    states.store(at, done);
                    const bool loss = value_of_rule_code(load_code(at)).wdl == Wdl::loss;
                    space_.for_each_predecessor(layout, at, [&](std::uint64_t pred) {
                        const auto p = static_cast<std::uint32_t>(pred);
                        if (loss) {  // the predecessor wins in d + 1, unless it wins as quickly by an exit
                            if (d + 1 > limit) return;
                            const std::uint8_t seen = states.load(p);
                            if (seen > cannot_lose) return;
                            if (seen == cannot_lose) {
                                const Value held = value_of_rule_code(load_code(pred));
                                if (held.wdl == Wdl::win && held.plies <= d + 1) return;
                            }
                            if (!states.claim(p)) return;
                            store_code(pred, rule_code(Value::win(d + 1)));
                            push(d + 1, p);
                        } else {  // one king move fewer that might not lose
                            if (!count_down(states, p)) return;
                            const int plies = std::max(d + 1, value_of_rule_code(load_code(pred)).plies);
                            if (plies > limit) {
                                states.store(p, done);
                                store_code(pred, 0);
                                return;
                            }
                            states.store(p, settled);
                            store_code(pred, rule_code(Value::loss(plies)));
                            push(plies, p);
                        }
                    });
                }
            });
            buckets[d].clear();
        }
        for (std::uint64_t l = 0; l < count; ++l)
            if (state[l] <= cannot_lose) codes.own[layout.storage(l)] = 0;
    }

    // One fewer king move of an unsettled position that might not lose: true
    // if that was the last. A position settled (or with a win or draw exit)
    // is left alone, also when another thread settles it meanwhile.
    template <bool Shared>
    static bool count_down(const PairStates<Shared>& states, std::uint32_t at) {
        if constexpr (Shared) {
            std::atomic_ref<std::uint8_t> s(states.state[at]);
            std::uint8_t seen = s.load(std::memory_order_relaxed);
            while (seen < cannot_lose)
                if (s.compare_exchange_weak(seen, static_cast<std::uint8_t>(seen - 1), std::memory_order_relaxed))
                    return seen == 1;
            return false;
        }
        if (states.state[at] >= cannot_lose) return false;
        return --states.state[at] == 0;
    }

    // The value of position l of the pair from its exits (its captures, its
    // men's moves, the main road), before any king move is told: settled, or
    // counting its king moves (state), a win exit queued.
    template <class T, class Push>
    void set_up(const Codes<T>& codes, int limit, const std::uint8_t* road, const Layout& layout, std::uint64_t l,
                const Position& q, std::vector<std::uint8_t>& state, Push& push) {
        T& code = codes.own[layout.storage(l)];
        auto settle = [&](Value v) {
            code = rule_code(v);
            state[l] = v.wdl == Wdl::draw ? done : settled;
            if (v.wdl != Wdl::draw) push(v.plies, static_cast<std::uint32_t>(l));
        };
        if (road && lone_king_on_road(q, literal_road_)) return settle(value_of_rule_code(road[layout.storage(l)]));
        if (draughts::has_capture<V>(q)) {
            // Pairs in parallel may share a word of marks: an atomic or.
            const std::uint64_t at = layout.storage(l);
            std::atomic_ref<std::uint64_t>(codes.captures[at / 64])
                .fetch_or(std::uint64_t{1} << (at % 64), std::memory_order_relaxed);
            draughts::MoveList<N> moves;
            draughts::generate_moves<V>(q, moves);
            return settle(best_of_moves(q, moves, [&](const Move&, const Position& child) {
                return through(child, limit);
            }));
        }
        // The man moves of the pair's men (PairSpace::ManExit): a promotion's
        // child found by its material, any other's ranked in this material
        // directly (a pair solved before: only read here).
        const Value exit = best_man_exit<V>(
            layout, layout.half_of(l), q, [&](const Position& child) { return through(child, limit); },
            [&](const auto& e, Bitboard white_kings, Bitboard black_kings) {
                return rule_through(value_of_rule_code(codes.above[e.child(white_kings, black_kings)]), man_move_keeps_,
                                    limit);
            });
        const int king_moves = draughts::count_king_moves<V>(q, draughts::Color::white);
        if (king_moves == 0) return settle(exit);
        if (king_moves >= cannot_lose)
            throw std::runtime_error(values_.material.name() + ": too many king moves for the rule solver");
        code = rule_code(exit);
        if (exit.wdl == Wdl::loss) {
            state[l] = static_cast<std::uint8_t>(king_moves);
        } else {
            state[l] = cannot_lose;
            if (exit.wdl == Wdl::win) push(exit.plies, static_cast<std::uint32_t>(l));
        }
    }

    PairSpace<V> space_;
    const RuleSuccessors<V>& successors_;
    bool literal_road_;
    SolverOptions options_;
    SolveProgress progress_;
    tbb::enumerable_thread_specific<PairScratch> scratches_;  // a thread's each, for pairs one a thread
    std::vector<PairScratch> shared_scratches_;  // a lane's each, for big pairs with threads inside
    RuleValues values_;
    bool man_move_keeps_ = false;  // whether a man move keeps this material's count
};

}  // namespace dtb
