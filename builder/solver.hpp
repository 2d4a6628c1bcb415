// Retrograde analysis of one material (DESIGN.md §6; docs/design.md, "Solver").
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
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include "builder/solved_values.hpp"
#include "draughts/movegen.hpp"
#include "probe/index.hpp"
#include "probe/potential.hpp"

namespace dtb {

// What the solver reports while it works (called from several threads).
struct SolveProgress {
    std::function<void(int level, int levels)> level_started;
    std::function<void(std::uint64_t positions)> positions_done;
};

template <class V>
class MaterialSolver {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Bitboard = typename Position::Bitboard;
    using Move = draughts::Move<N>;

    // Block pairs of at least this many positions are solved one at a time
    // with all threads inside each; smaller ones one per thread. (Solving big
    // pairs one per thread instead, with no atomic operations, was 2 times
    // slower on Brazilian 6-piece materials: two pairs' working sets no longer
    // fit the caches.)
    static constexpr std::uint64_t shared_pair_positions = std::uint64_t{1} << 15;

    // `canonical` is solved against `successors`, which must answer for every
    // material its captures and promotions lead to.
    MaterialSolver(const Material& canonical, const Successors<V>& successors, SolveProgress progress = {})
        : material_(canonical),
          symmetric_(canonical.mirrored() == canonical),
          sides_{Index<N>(canonical), Index<N>(canonical.mirrored())},
          successors_(successors),
          progress_(std::move(progress)) {
        if (!canonical.is_canonical()) throw std::invalid_argument(canonical.name() + " is not canonical");
        // Local indices of a pair are 32-bit, and the counters one byte.
        if (2 * sides_[0].king_placements() >= std::uint64_t{1} << 32)
            throw std::runtime_error(canonical.name() + ": " + std::to_string(sides_[0].king_placements()) +
                                     " king placements per men configuration are more than one process solves; "
                                     "build it on several MPI ranks");
    }

    SolvedValues solve() {
        values_ = SolvedValues(material_, sides_[0].size());
        const PotentialLevels<N> levels(material_);
        const int level_count = static_cast<int>(levels.levels().size());
        for (int l = 0; l < level_count; ++l) {
            if (progress_.level_started) progress_.level_started(l, level_count);
            const std::vector<Pair> pairs = pairs_of(levels, levels.levels()[l].potential);
            if (2 * sides_[0].king_placements() >= shared_pair_positions) {
                for (const Pair& pair : pairs) {
                    Scratch scratch;
                    report(solve_pair<true>(pair, scratch));
                }
            } else {
                tbb::enumerable_thread_specific<Scratch> scratches;
                tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pairs.size(), 1),
                                  [&](const tbb::blocked_range<std::size_t>& r) {
                                      Scratch& scratch = scratches.local();
                                      std::uint64_t positions = 0;
                                      for (std::size_t i = r.begin(); i != r.end(); ++i)
                                          positions += solve_pair<false>(pairs[i], scratch);
                                      report(positions);  // once per chunk: pairs can be 2 positions
                                  });
            }
        }
        values_.max_code = max_code_.load();
        return std::move(values_);
    }

private:
    // The two halves of a block pair: men configuration men[0] of side 0 (M)
    // and men[1] of side 1 (M'; of M itself when M is symmetric). A
    // configuration that is its own turned-round form is a pair alone.
    struct Pair {
        std::uint64_t men[2];
        bool alone;
    };

    // Per-position state while a pair is solved: a count of king moves not
    // yet settled (0..cannot_lose-1), or one of these.
    static constexpr std::uint8_t cannot_lose = 253;  // not settled; a win or draw exit
    static constexpr std::uint8_t settled = 254;      // final value, predecessors not yet told
    static constexpr std::uint8_t done = 255;         // final value, predecessors told

    struct Scratch {
        std::vector<std::uint8_t> state;
        std::vector<std::vector<std::uint32_t>> buckets;
    };

    std::vector<Pair> pairs_of(const PotentialLevels<N>& levels, int potential) const {
        std::vector<Pair> pairs;
        const Index<N>& partner = sides_[symmetric_ ? 0 : 1];
        levels.for_each_men_configuration(potential, [&](Bitboard white_men, Bitboard black_men) {
            const std::uint64_t own = sides_[0].rank_men(white_men, black_men);
            const Position turned = Position{white_men, black_men, 0, draughts::Color::white}.flipped();
            const std::uint64_t other = partner.rank_men(turned.white, turned.black);
            if (symmetric_ && other < own) return;  // the pair of `other` holds it
            pairs.push_back({{own, other}, symmetric_ && other == own});
        });
        return pairs;
    }

    // Where the positions of a pair are: half h holds king placements
    // [h * K, (h + 1) * K) of the pair's local numbering.
    struct Layout {
        std::uint64_t king_placements;
        std::uint64_t base[2];  // global position of each half's first
        const Index<N>* index[2];
        Position men[2];  // each half's men, White to move
        bool alone;

        int half_of(std::uint32_t local) const noexcept { return local >= king_placements; }
        std::uint64_t global(std::uint32_t local) const noexcept {
            const int h = half_of(local);
            return base[h] + (local - h * king_placements);
        }
        int partner(int h) const noexcept { return alone ? 0 : 1 - h; }
        Position position(std::uint32_t local) const noexcept {
            const int h = half_of(local);
            Position p = men[h];
            index[h]->unrank_kings(local - h * king_placements, p);
            return p;
        }
    };

    Layout layout_of(const Pair& pair) const {
        Layout layout;
        layout.king_placements = sides_[0].king_placements();
        layout.alone = pair.alone;
        for (int h = 0; h < 2; ++h) {
            const int side = symmetric_ ? 0 : h;
            layout.index[h] = &sides_[side];
            layout.base[h] = (symmetric_ ? 0 : h * sides_[0].size()) + pair.men[h] * layout.king_placements;
            layout.men[h] = sides_[side].unrank_men(pair.men[h]);
        }
        return layout;
    }

    // The state array of a pair, read and written plainly when one thread
    // solves the pair, atomically when all do.
    template <bool Shared>
    struct States {
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
        std::uint8_t exchange(std::uint32_t l, std::uint8_t s) const noexcept {
            if constexpr (Shared) return std::atomic_ref<std::uint8_t>(state[l]).exchange(s, std::memory_order_relaxed);
            return std::exchange(state[l], s);
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

    // Pushes (distance, local position) into buckets: straight into the
    // pair's buckets when one thread solves it, through a per-chunk list otherwise.
    struct Pushes {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> list;
        void operator()(int plies, std::uint32_t local) { list.emplace_back(static_cast<std::uint32_t>(plies), local); }
    };

    static void add_to_buckets(Scratch& scratch, std::uint32_t distance, std::uint32_t local) {
        if (distance >= scratch.buckets.size()) scratch.buckets.resize(distance + 1);
        scratch.buckets[distance].push_back(local);
    }

    // Sets up position `local`: settles it at once if it has a capture or no
    // king move, else records its counter and best exit.
    template <bool Shared, class Push>
    void initialise(const Layout& layout, std::uint32_t local, const States<Shared>& states, Push& push) {
        const int h = layout.half_of(local);
        const Position q = layout.position(local);
        const std::uint64_t g = layout.global(local);
        std::uint16_t& code = values_.codes[g];
        auto settle = [&](Value v) {
            code = static_cast<std::uint16_t>(dtw_code(v));
            if (v.wdl == Wdl::draw) {
                states.store(local, done);  // a draw tells its predecessors nothing
            } else {
                states.store(local, settled);
                push(v.plies, local);
            }
        };
        if (draughts::has_capture<V>(q)) {
            values_.mark_capture(g);
            draughts::MoveList<N> moves;
            draughts::generate_moves<V>(q, moves);
            return settle(best_over_moves(q, moves, [&](const Position& child) { return successors_.value(child); }));
        }
        const int king_moves = draughts::count_king_moves<V>(q, draughts::Color::white);
        Value exit = Value::loss(0);  // no exit: as good as a loss in 0 when counting the slowest loss
        draughts::for_each_man_move<V>(q, draughts::Color::white, [&](int from, int to, bool promotes) {
            Position child = q;
            const Move move{0, static_cast<std::uint8_t>(from), static_cast<std::uint8_t>(to), promotes};
            draughts::make_move(child, move);
            Value v;
            if (promotes) {
                v = successors_.value(child);
            } else {
                // A man move: the turned-round child is in the other side, one level up.
                const Position turned = child.flipped();
                const int side = symmetric_ ? 0 : 1 - h;
                const std::uint64_t at = (symmetric_ ? 0 : side * sides_[0].size()) + sides_[side].rank(turned);
                v = value_of_dtw_code(values_.codes[at]);
            }
            v = before_move(v);
            if (preferred(v, exit)) exit = v;
        });
        // With no move at all, exit is still a loss in 0: the value.
        if (king_moves == 0) return settle(exit);
        if (king_moves >= cannot_lose)
            throw std::runtime_error(material_.name() + ": a position with " + std::to_string(king_moves) +
                                     " king moves; the solver counts at most 252");
        code = static_cast<std::uint16_t>(dtw_code(exit));
        if (exit.wdl == Wdl::loss) {
            states.store(local, static_cast<std::uint8_t>(king_moves));
        } else {
            states.store(local, cannot_lose);
            if (exit.wdl == Wdl::win) push(exit.plies, local);  // a win at most this long
        }
    }

    // Calls f(local) for every predecessor of position `local` inside the
    // pair: the positions of the other half from which the opponent's king
    // move leads to it. King moves are reversible: turned round, they are the
    // king moves of the side now to move.
    template <class F>
    void for_each_predecessor(const Layout& layout, std::uint32_t local, F&& f) const {
        const int h = layout.half_of(local);
        const int p = layout.partner(h);
        Position u = layout.position(local).flipped();
        u.side_to_move = draughts::Color::white;
        const Index<N>& index = *layout.index[p];
        const std::uint32_t first = static_cast<std::uint32_t>(p * layout.king_placements);
        draughts::for_each_king_move<V>(u, draughts::Color::white, [&](int from, int to) {
            const Bitboard moved = draughts::bit<Bitboard>(from) | draughts::bit<Bitboard>(to);
            Position r = u;
            r.white ^= moved;
            r.kings ^= moved;
            f(first + static_cast<std::uint32_t>(index.rank_kings(r)));
        });
    }

    // Tells the predecessors of bucket `distance`'s positions `entries`. The
    // positions are taken in groups of 64: the predecessors of a whole group
    // are listed and their state and code prefetched before any is touched,
    // so that in a large pair the random accesses overlap instead of waiting
    // in turn (they dominate the time otherwise).
    template <bool Shared, class Push>
    void propagate(const Layout& layout, std::span<const std::uint32_t> entries, std::uint32_t distance,
                   const States<Shared>& states, Push& push) {
        constexpr std::size_t group = 64;
        thread_local std::vector<std::uint32_t> predecessors;
        std::array<std::uint32_t, group + 1> first{};
        std::uint16_t* codes = values_.codes.data();
        for (std::size_t i = 0; i < entries.size(); i += group) {
            const std::size_t n = std::min(group, entries.size() - i);
            for (std::size_t j = i + group; j < std::min(i + 2 * group, entries.size()); ++j)
                __builtin_prefetch(states.state + entries[j], 1);
            predecessors.clear();
            for (std::size_t j = 0; j < n; ++j) {
                first[j] = static_cast<std::uint32_t>(predecessors.size());
                for_each_predecessor(layout, entries[i + j], [&](std::uint32_t pred) {
                    predecessors.push_back(pred);
                    __builtin_prefetch(states.state + pred, 1);
                    __builtin_prefetch(codes + layout.global(pred), 1);
                });
            }
            first[n] = static_cast<std::uint32_t>(predecessors.size());
            for (std::size_t j = 0; j < n; ++j) {
                if (states.exchange(entries[i + j], done) == done) continue;  // already told (listed twice)
                for (std::uint32_t k = first[j]; k < first[j + 1]; ++k)
                    tell(layout, predecessors[k], distance, states, push);
            }
        }
    }

    // Tells predecessor `pred` that one of its king moves leads to a
    // position settled at `distance`.
    template <bool Shared, class Push>
    void tell(const Layout& layout, std::uint32_t pred, std::uint32_t distance, const States<Shared>& states,
              Push& push) {
        std::uint16_t& code = values_.codes[layout.global(pred)];
        if (distance % 2 == 0) {  // a loss: the predecessor wins in one more
            if (!states.claim(pred)) return;
            code = static_cast<std::uint16_t>(distance + 2);
            push(static_cast<int>(distance + 1), pred);
        } else {  // a win: one king move fewer that might not lose
            if (states.load(pred) >= cannot_lose || !states.count_down(pred)) return;
            const int plies = std::max(static_cast<int>(distance) + 1, value_of_dtw_code(code).plies);
            code = static_cast<std::uint16_t>(dtw_code(Value::loss(plies)));
            states.store(pred, settled);
            push(plies, pred);
        }
    }

    void report(std::uint64_t positions) const {
        if (progress_.positions_done) progress_.positions_done(positions);
    }

    // Solves a pair; returns its number of positions.
    template <bool Shared>
    std::uint32_t solve_pair(const Pair& pair, Scratch& scratch) {
        const Layout layout = layout_of(pair);
        const std::uint32_t count = static_cast<std::uint32_t>((pair.alone ? 1 : 2) * layout.king_placements);
        scratch.state.assign(count, 0);  // the buckets are left empty by the pair before
        const States<Shared> states{scratch.state.data()};

        if constexpr (!Shared) {
            auto push = [&](int plies, std::uint32_t local) {
                add_to_buckets(scratch, static_cast<std::uint32_t>(plies), local);
            };
            for (std::uint32_t l = 0; l < count; ++l) initialise(layout, l, states, push);
            // Pushes go to later buckets only: bucket d's storage stays put.
            for (std::uint32_t d = 0; d < scratch.buckets.size(); ++d) {
                propagate(layout, std::span<const std::uint32_t>(scratch.buckets[d]), d, states, push);
                scratch.buckets[d].clear();
            }
        } else {
            std::mutex merge;
            // body(first, last, pushes) over chunks of [0, n), in parallel.
            auto run = [&](std::uint32_t n, auto&& body) {
                tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, n, 1024),
                                  [&](const tbb::blocked_range<std::uint32_t>& r) {
                                      Pushes pushes;
                                      body(r.begin(), r.end(), pushes);
                                      const std::lock_guard lock(merge);
                                      for (const auto& [d, l] : pushes.list) add_to_buckets(scratch, d, l);
                                  });
            };
            run(count, [&](std::uint32_t first, std::uint32_t last, Pushes& pushes) {
                for (std::uint32_t l = first; l != last; ++l) initialise(layout, l, states, pushes);
            });
            for (std::uint32_t d = 0; d < scratch.buckets.size(); ++d) {
                const std::vector<std::uint32_t> bucket = std::exchange(scratch.buckets[d], {});
                const std::span<const std::uint32_t> entries(bucket);
                run(static_cast<std::uint32_t>(entries.size()),
                    [&](std::uint32_t first, std::uint32_t last, Pushes& pushes) {
                        propagate(layout, entries.subspan(first, last - first), d, states, pushes);
                    });
            }
        }

        std::uint32_t max_code = 0;
        for (std::uint32_t l = 0; l < count; ++l) {
            const std::uint64_t g = layout.global(l);
            if (scratch.state[l] <= cannot_lose) values_.codes[g] = 0;  // never settled: a draw
            if (!values_.has_capture(g)) max_code = std::max<std::uint32_t>(max_code, values_.codes[g]);
        }
        std::uint32_t seen = max_code_.load();
        while (seen < max_code && !max_code_.compare_exchange_weak(seen, max_code)) {
        }
        return count;
    }

    Material material_;
    bool symmetric_;
    Index<N> sides_[2];
    const Successors<V>& successors_;
    SolveProgress progress_;
    SolvedValues values_;
    std::atomic<std::uint32_t> max_code_{0};
};

}  // namespace dtb
