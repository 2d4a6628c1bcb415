// Retrograde analysis of one material (DESIGN.md §6; docs/design.md, "Solver"
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
// One process solves a whole material. A team of several (team.hpp) solves it
// together, level by level: each member takes a share of the level's pairs
// (or, when the level has few pairs, a share of every pair), asks the members
// that hold them for the values its positions' exits and captures lead to
// (TeamTables), solves, and sends its results to the members whose ranges
// hold them. Pairs shared by several members run their bucket queues in
// step, one exchange of predecessor updates per distance.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include "builder/solved_values.hpp"
#include "builder/team.hpp"
#include "builder/team_tables.hpp"
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
    // Block pairs of at most this many positions (3 bytes each) have their
    // predecessors told in place, without listing and prefetching them first.
    static constexpr std::uint64_t small_pair_positions = std::uint64_t{1} << 12;

    // One process: `canonical` is solved against `successors`, which must
    // answer for every material its captures and promotions lead to.
    MaterialSolver(const Material& canonical, const Successors<V>& successors, SolveProgress progress = {})
        : MaterialSolver(canonical, progress) {
        successors_ = &successors;
        if (2 * sides_[0].king_placements() >= std::uint64_t{1} << 32)
            throw std::runtime_error(canonical.name() + ": " + std::to_string(sides_[0].king_placements()) +
                                     " king placements per men configuration are more than one process solves; "
                                     "build it on several MPI ranks");
    }

    // A member of `team`: `tables` holds the team's share of the material and
    // of the materials it leads to that are shared out; `whole` the materials
    // it leads to that every member holds whole (the same on every member).
    MaterialSolver(const Material& canonical, Team& team, TeamTables<V>& tables, const Successors<V>& whole,
                   const TeamOptions& options, SolveProgress progress = {})
        : MaterialSolver(canonical, progress) {
        team_ = &team;
        tables_ = &tables;
        successors_ = &whole;
        options_ = options;
        buffers_ = std::make_unique<TeamBuffers>(team.size());
    }

    // Bytes one process needs to solve `canonical` (solve()): its values
    // (SolvedValues::bytes_for) and, for a block pair solved with all
    // threads, one byte of state per position of the pair and four per entry
    // of its buckets, counted as if every position were queued. Smaller
    // pairs, one per thread, take kilobytes.
    static std::uint64_t working_bytes(const Material& canonical) {
        const Index<N> index(canonical);
        const std::uint64_t positions = static_cast<std::uint64_t>(sides_of(canonical)) * index.size();
        const std::uint64_t pair = 2 * index.king_placements();
        return SolvedValues::bytes_for(positions) + (pair >= shared_pair_positions ? 5 * pair : 0);
    }

    // The values of the positions this process holds: all of them alone, the
    // member's range (tables.homes()) in a team.
    SolvedValues solve() {
        const PotentialLevels<N> levels(material_);
        const int level_count = static_cast<int>(levels.levels().size());
        if (!team_) values_ = SolvedValues(material_, sides_[0].size());
        for (int l = 0; l < level_count; ++l) {
            if (progress_.level_started) progress_.level_started(l, level_count);
            if (team_)
                solve_level_in_team(levels, levels.levels()[l], l == 0);
            else
                solve_level(levels, levels.levels()[l].potential);
        }
        if (team_) {
            tables_->home().max_code = static_cast<std::uint32_t>(team_->all_max(max_code_.load()));
            return std::move(tables_->home());
        }
        values_.max_code = max_code_.load();
        return std::move(values_);
    }

private:
    MaterialSolver(const Material& canonical, SolveProgress progress)
        : material_(canonical),
          symmetric_(canonical.mirrored() == canonical),
          sides_{Index<N>(canonical), Index<N>(canonical.mirrored())},
          progress_(std::move(progress)) {
        if (!canonical.is_canonical()) throw std::invalid_argument(canonical.name() + " is not canonical");
    }

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

    using Buckets = std::vector<std::vector<std::uint32_t>>;
    struct Scratch {
        std::vector<std::uint8_t> state;
        Buckets buckets;
    };

    // Pairs of potential p: the level's men configurations first .. first + count - 1.
    std::vector<Pair> pairs_of(const PotentialLevels<N>& levels, int potential, std::uint64_t first = 0,
                               std::uint64_t count = ~std::uint64_t{0}) const {
        std::vector<Pair> pairs;
        const Index<N>& partner = sides_[symmetric_ ? 0 : 1];
        levels.for_each_men_configuration(potential, first, count, [&](Bitboard white_men, Bitboard black_men) {
            const std::uint64_t own = sides_[0].rank_men(white_men, black_men);
            const Position turned = Position{white_men, black_men, 0, draughts::Color::white}.flipped();
            const std::uint64_t other = partner.rank_men(turned.white, turned.black);
            if (symmetric_ && other < own) return;  // the pair of `other` holds it
            pairs.push_back({{own, other}, symmetric_ && other == own});
        });
        return pairs;
    }

    std::uint64_t pair_positions(const Pair& pair) const noexcept {
        return (pair.alone ? 1 : 2) * sides_[0].king_placements();
    }

    // A pair split over the team, each half on its own: member j holds the
    // same share of the king placements of both halves, so that a king move
    // (which goes from one half to the other) stays with its member more
    // often than if the halves went to different members. Member j holds
    // positions [bounds[j], bounds[j + 1]) of a half, at state index
    // lock_base[j] of its queue.
    struct Split {
        std::vector<std::uint64_t> bounds;
        std::vector<std::uint32_t> lock_base;
        int owner(std::uint64_t local) const noexcept {
            return static_cast<int>(std::upper_bound(bounds.begin() + 1, bounds.end() - 1, local) - bounds.begin()) -
                   1;
        }
    };
    struct SplitPair {
        Split half[2];
    };

    // A man move of a half's men configuration, whatever the kings (it is
    // legal where no king stands on `to`). One that does not promote leads
    // into this material, turned round into the other side one level up:
    // its children have the men configuration at `base` (global position of
    // king placement 0) of `index`'s side, and their kings are ranked among
    // `free`, the squares the child's men leave (in this half's frame).
    struct ManExit {
        std::uint8_t from, to;
        bool promotes;
        Bitboard target;  // the bit of `to`
        Bitboard free;
        std::uint64_t base;
        const Index<N>* index;

        // The global position of the child of the position with these kings.
        std::uint64_t child(Bitboard white_kings, Bitboard black_kings) const noexcept {
            return base + index->rank_kings_turned(white_kings, black_kings, free);
        }
    };
    static constexpr int max_man_exits = 24;

    // Where the positions of a pair are. Half h holds king placements
    // [h * K, (h + 1) * K) of the pair's local numbering. A local position l
    // keeps its code at storage(l) of the values being written (the material's
    // own when one process solves it, a level's work area in a team) and its
    // state at state(l).
    struct Layout {
        std::uint64_t king_placements;
        std::uint64_t base[2];  // global position of each half's first
        std::int64_t storage_base[2];
        std::int64_t state_shift[2];
        const Index<N>* index[2];
        Position men[2];  // each half's men, White to move
        Bitboard free[2];  // the squares each half's men leave
        std::array<ManExit, max_man_exits> man_exits[2];
        int man_exit_count[2];
        bool alone;
        const SplitPair* split;  // null unless the pair is split over the team

        int half_of(std::uint64_t local) const noexcept { return local >= king_placements; }
        std::uint64_t global(std::uint64_t local) const noexcept {
            const int h = half_of(local);
            return base[h] + (local - h * king_placements);
        }
        std::uint64_t storage(std::uint64_t local) const noexcept {
            return static_cast<std::uint64_t>(storage_base[half_of(local)] + static_cast<std::int64_t>(local));
        }
        std::uint32_t state(std::uint64_t local) const noexcept {
            return static_cast<std::uint32_t>(state_shift[half_of(local)] + static_cast<std::int64_t>(local));
        }
        int partner(int h) const noexcept { return alone ? 0 : 1 - h; }
        Position position(std::uint64_t local) const noexcept {
            const int h = half_of(local);
            Position p = men[h];
            index[h]->unrank_kings(local - h * king_placements, p);
            return p;
        }
    };

    // The layout of a pair whose codes are the material's own (one process).
    Layout layout_of(const Pair& pair) const {
        Layout layout;
        layout.king_placements = sides_[0].king_placements();
        layout.alone = pair.alone;
        layout.state_shift[0] = layout.state_shift[1] = 0;
        layout.split = nullptr;
        for (int h = 0; h < 2; ++h) {
            const int side = symmetric_ ? 0 : h;
            layout.index[h] = &sides_[side];
            layout.base[h] = (symmetric_ ? 0 : h * sides_[0].size()) + pair.men[h] * layout.king_placements;
            layout.storage_base[h] =
                static_cast<std::int64_t>(layout.base[h]) - static_cast<std::int64_t>(h * layout.king_placements);
            layout.men[h] = sides_[side].unrank_men(pair.men[h]);
            layout.free[h] = Position::geometry::board & ~layout.men[h].occupied();
            set_man_exits(layout, h);
        }
        return layout;
    }

    // The man moves of half h's men configuration (for_each_man_move's order).
    void set_man_exits(Layout& layout, int h) const {
        int& n = layout.man_exit_count[h];
        n = 0;
        const Position& men = layout.men[h];
        draughts::for_each_man_move<V>(men, draughts::Color::white, [&](int from, int to, bool promotes) {
            if (n == max_man_exits)
                throw std::runtime_error(material_.name() + ": more man moves than the solver counts (" +
                                         std::to_string(max_man_exits) + ")");
            ManExit& e = layout.man_exits[h][n++];
            e.from = static_cast<std::uint8_t>(from);
            e.to = static_cast<std::uint8_t>(to);
            e.promotes = promotes;
            e.target = draughts::bit<Bitboard>(to);
            e.free = layout.free[h] ^ draughts::bit<Bitboard>(from) ^ e.target;
            e.base = 0;
            e.index = nullptr;
            if (promotes) return;
            Position child = men;
            draughts::make_move(child, Move{0, e.from, e.to, false});
            const Position turned = child.flipped();
            const int side = symmetric_ ? 0 : 1 - h;
            e.index = &sides_[side];
            e.base = (symmetric_ ? 0 : side * sides_[0].size()) +
                     sides_[side].rank_men(turned.white, turned.black) * sides_[side].king_placements();
        });
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

    static void add_to_buckets(Buckets& buckets, std::uint32_t distance, std::uint32_t at) {
        if (distance >= buckets.size()) buckets.resize(distance + 1);
        buckets[distance].push_back(at);
    }

    // body(first, last, pushes) over chunks of [0, n) in parallel; the pushes
    // go into `buckets`.
    template <class Body>
    static void run_chunks(std::uint32_t n, Buckets& buckets, Body&& body) {
        std::mutex merge;
        tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, n, 1024), [&](const tbb::blocked_range<std::uint32_t>& r) {
            Pushes pushes;
            body(r.begin(), r.end(), pushes);
            const std::lock_guard lock(merge);
            for (const auto& [d, at] : pushes.list) add_to_buckets(buckets, d, at);
        });
    }

    // Where the values outside a pair come from when one process solves the
    // material: other materials from `successors_`, this one from its values.
    //
    // Positions are set up in groups (for_each_position): prepare() finds
    // the captures of a whole group and the codes they lead to, prefetching
    // each, before capture_value() reads any (in the tables of smaller
    // materials, most are cache misses, and those of a group now overlap).
    struct DirectSource {
        explicit DirectSource(const MaterialSolver& s) : solver(s) {}
        const MaterialSolver& solver;
        struct Child {
            const std::uint16_t* code;  // null: `value` read through the prober
            Value value;
        };
        std::vector<Child> children;                                // a group's, position by position
        std::vector<std::pair<std::uint32_t, std::uint32_t>> captures;  // per position of the group: its children
        std::size_t next = 0;                                       // the position capture_value() answers next

        static constexpr std::uint32_t no_capture = ~std::uint32_t{0};

        void prepare(std::span<const Position> group) {
            children.clear();
            captures.clear();
            next = 0;
            for (const Position& q : group) {
                if (!draughts::has_capture<V>(q)) {
                    captures.emplace_back(no_capture, no_capture);
                    continue;
                }
                const auto first = static_cast<std::uint32_t>(children.size());
                draughts::MoveList<N> moves;
                draughts::generate_moves<V>(q, moves);
                for (const Move& m : moves) {
                    Position child = q;
                    draughts::make_move(child, m);
                    if (const std::uint16_t* code = solver.successors_->held_code(child)) {
                        __builtin_prefetch(code);
                        children.push_back({code, Value::draw()});
                    } else {
                        children.push_back({nullptr, solver.successors_->value(child)});
                    }
                }
                captures.emplace_back(first, static_cast<std::uint32_t>(children.size()));
            }
        }
        // The value of the group's next position if it has a capture.
        std::optional<Value> capture_value(const Layout&, std::uint64_t, const Position&) {
            const auto [first, last] = captures[next++];
            if (first == no_capture) return std::nullopt;
            Value best = Value::loss(0);  // as best_over_moves()
            for (std::uint32_t i = first; i < last; ++i) {
                const Child& c = children[i];
                const Value v = before_move(c.code ? value_of_dtw_code(*c.code) : c.value);
                if (preferred(v, best)) best = v;
            }
            return best;
        }
        Value promotion(const Position& child) const { return solver.successors_->value(child); }
        Value man_move(const ManExit& e, Bitboard white_kings, Bitboard black_kings) const {
            return value_of_dtw_code(solver.values_.code(e.child(white_kings, black_kings)));
        }
    };

    // Calls f(local, position) for the positions of a pair's local range
    // [first, last), in order, in groups that `source` prepares first (if
    // it prepares anything).
    template <class Source, class F>
    void for_each_position(const Layout& layout, std::uint64_t first, std::uint64_t last, Source& source,
                           F&& f) const {
        if constexpr (requires { source.prepare(std::span<const Position>()); }) {
            constexpr std::size_t group = 16;
            std::array<Position, group> positions;
            std::array<std::uint64_t, group> locals;
            std::size_t n = 0;
            auto run = [&] {
                source.prepare(std::span<const Position>(positions.data(), n));
                for (std::size_t i = 0; i < n; ++i) f(locals[i], positions[i]);
                n = 0;
            };
            for_each_position(layout, first, last, [&](std::uint64_t l, const Position& q) {
                positions[n] = q;
                locals[n] = l;
                if (++n == group) run();
            });
            run();
        } else {
            for_each_position(layout, first, last, f);
        }
    }

    // Calls f(local, position) for the positions of a pair's local range
    // [first, last), in order.
    template <class F>
    void for_each_position(const Layout& layout, std::uint64_t first, std::uint64_t last, F&& f) const {
        while (first < last) {
            const int h = layout.half_of(first);
            const std::uint64_t begin = h * layout.king_placements;
            const std::uint64_t end = std::min(last, begin + layout.king_placements);
            typename Index<N>::KingCursor kings(*layout.index[h], layout.men[h], first - begin);
            const Position& men = layout.men[h];
            for (std::uint64_t l = first;;) {
                const Bitboard white_kings = kings.white_kings(), black_kings = kings.black_kings();
                f(l, Position{men.white | white_kings, men.black | black_kings, white_kings | black_kings,
                              draughts::Color::white});
                if (++l == end) break;
                kings.next();
            }
            first = end;
        }
    }

    // Sets up position q, local position `local`: settles it at once if it
    // has a capture or no king move, else records its counter and best exit.
    template <bool Shared, class Push, class Source>
    void initialise(SolvedValues& store, const Layout& layout, std::uint64_t local, const Position& q,
                    const States<Shared>& states, Push& push, Source& source) {
        const std::uint64_t s = layout.storage(local);
        const std::uint32_t at = layout.state(local);
        std::uint16_t& code = store.code(s);
        auto settle = [&](Value v) {
            code = static_cast<std::uint16_t>(dtw_code(v));
            if (v.wdl == Wdl::draw) {
                states.store(at, done);  // a draw tells its predecessors nothing
            } else {
                states.store(at, settled);
                push(v.plies, at);
            }
        };
        if (const std::optional<Value> v = source.capture_value(layout, local, q)) {
            store.mark_capture(s);
            return settle(*v);
        }
        const int h = layout.half_of(local);
        const int king_moves = draughts::count_king_moves<V>(q, draughts::Color::white);
        Value exit = Value::loss(0);  // no exit: as good as a loss in 0 when counting the slowest loss
        const Bitboard white_kings = q.kings_of(draughts::Color::white), black_kings = q.kings_of(draughts::Color::black);
        for (int i = 0; i < layout.man_exit_count[h]; ++i) {
            const ManExit& e = layout.man_exits[h][i];
            if (e.target & q.kings) continue;
            Value v;
            if (e.promotes) {
                Position child = q;
                draughts::make_move(child, Move{0, e.from, e.to, true});
                v = before_move(source.promotion(child));
            } else {
                v = before_move(source.man_move(e, white_kings, black_kings));
            }
            if (preferred(v, exit)) exit = v;
        }
        // With no move at all, exit is still a loss in 0: the value.
        if (king_moves == 0) return settle(exit);
        if (king_moves >= cannot_lose)
            throw std::runtime_error(material_.name() + ": a position with " + std::to_string(king_moves) +
                                     " king moves; the solver counts at most 252");
        code = static_cast<std::uint16_t>(dtw_code(exit));
        if (exit.wdl == Wdl::loss) {
            states.store(at, static_cast<std::uint8_t>(king_moves));
        } else {
            states.store(at, cannot_lose);
            if (exit.wdl == Wdl::win) push(exit.plies, at);  // a win at most this long
        }
    }

    // Calls f(local) for every predecessor of position `local` inside the
    // pair: the positions of the other half from which the opponent's king
    // move leads to it. King moves are reversible: the opponent's king moves
    // from this position, ranked turned round in the other half.
    template <class F>
    void for_each_predecessor(const Layout& layout, std::uint64_t local, F&& f) const {
        const int h = layout.half_of(local);
        const Position u = layout.position(local);
        const Bitboard white_kings = u.kings_of(draughts::Color::white), black_kings = u.kings_of(draughts::Color::black);
        const Index<N>& index = *layout.index[layout.partner(h)];
        const std::uint64_t first = layout.partner(h) * layout.king_placements;
        draughts::for_each_king_move<V>(u, draughts::Color::black, [&](int from, int to) {
            const Bitboard moved = draughts::bit<Bitboard>(from) | draughts::bit<Bitboard>(to);
            f(first + index.rank_kings_turned(white_kings, black_kings ^ moved, layout.free[h]));
        });
    }

    // Tells the predecessors of `entries` (state indices of positions settled
    // at `distance`). `locate(entry)` gives an entry's layout and local
    // position; `away(layout, local)` takes a predecessor that another member
    // holds (and returns true) or leaves it (false). The entries are taken in
    // groups of 64: the predecessors of a whole group are listed and their
    // state and code prefetched before any is touched, so that in a large pair
    // the random accesses overlap instead of waiting in turn (they dominate
    // the time otherwise).
    template <bool Shared, class Push, class Locate, class Away>
    void propagate(SolvedValues& store, std::span<const std::uint32_t> entries, std::uint32_t distance,
                   const States<Shared>& states, Push& push, Locate&& locate, Away&& away) {
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
                for_each_predecessor(*layout, local, [&](std::uint64_t pred) {
                    if (away(*layout, pred)) return;
                    predecessors.push_back(pred);
                    __builtin_prefetch(states.state + layout->state(pred), 1);
                    __builtin_prefetch(&store.code(layout->storage(pred)), 1);
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
    static void tell(std::uint16_t& code, std::uint32_t at, std::uint32_t distance, const States<Shared>& states,
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
    std::uint32_t finish(SolvedValues& store, const Layout& layout, std::uint64_t first, std::uint64_t last,
                         const std::uint8_t* state) {
        std::uint32_t max_code = 0;
        for (std::uint64_t l = first; l < last; ++l) {
            const std::uint64_t s = layout.storage(l);
            if (state[layout.state(l)] <= cannot_lose) store.code(s) = 0;
            if (!store.has_capture(s)) max_code = std::max<std::uint32_t>(max_code, store.code(s));
        }
        return max_code;
    }

    void note_max_code(std::uint32_t max_code) {
        std::uint32_t seen = max_code_.load();
        while (seen < max_code && !max_code_.compare_exchange_weak(seen, max_code)) {
        }
    }

    void report(std::uint64_t positions) const {
        if (progress_.positions_done) progress_.positions_done(positions);
    }

    // Works the queue of a pair that one member holds whole, from bucket 0 on.
    template <bool Shared, class Push>
    void run_queue(SolvedValues& store, const Layout& layout, Scratch& scratch, const States<Shared>& states,
                   Push& push) {
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
                        for_each_predecessor(layout, at, [&](std::uint64_t pred) {
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

    // Solves a pair on one thread; `source` answers its positions in local order.
    template <class Source>
    std::uint32_t solve_pair_alone(SolvedValues& store, const Layout& layout, std::uint32_t count, Scratch& scratch,
                                   Source& source) {
        scratch.state.assign(count, 0);  // the buckets are left empty by the pair before
        const States<false> states{scratch.state.data()};
        auto push = [&](int plies, std::uint32_t at) {
            add_to_buckets(scratch.buckets, static_cast<std::uint32_t>(plies), at);
        };
        for_each_position(layout, 0, count, source, [&](std::uint64_t l, const Position& q) {
            initialise(store, layout, l, q, states, push, source);
        });
        run_queue(store, layout, scratch, states, push);
        note_max_code(finish(store, layout, 0, count, scratch.state.data()));
        return count;
    }

    // Solves a pair with all threads; initialise_all(states, buckets) sets up its positions.
    template <class InitialiseAll>
    std::uint32_t solve_pair_shared(SolvedValues& store, const Layout& layout, std::uint32_t count, Scratch& scratch,
                                    InitialiseAll&& initialise_all) {
        scratch.state.assign(count, 0);
        const States<true> states{scratch.state.data()};
        initialise_all(states, scratch.buckets);
        Pushes unused;
        run_queue(store, layout, scratch, states, unused);
        note_max_code(finish(store, layout, 0, count, scratch.state.data()));
        return count;
    }

    // One process: the pairs of a level in parallel, big ones one at a time with all threads.
    void solve_level(const PotentialLevels<N>& levels, int potential) {
        const std::vector<Pair> pairs = pairs_of(levels, potential);
        if (2 * sides_[0].king_placements() >= shared_pair_positions) {
            for (const Pair& pair : pairs) {
                const Layout layout = layout_of(pair);
                const auto count = static_cast<std::uint32_t>(pair_positions(pair));
                Scratch scratch;
                const DirectSource source(*this);
                report(solve_pair_shared(values_, layout, count, scratch, [&](const States<true>& states, Buckets& b) {
                    run_chunks(count, b, [&](std::uint32_t first, std::uint32_t last, Pushes& pushes) {
                        DirectSource s = source;
                        for_each_position(layout, first, last, s, [&](std::uint64_t l, const Position& q) {
                            initialise(values_, layout, l, q, states, pushes, s);
                        });
                    });
                }));
            }
            return;
        }
        tbb::enumerable_thread_specific<Scratch> scratches;
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pairs.size(), 1),
                          [&](const tbb::blocked_range<std::size_t>& r) {
                              Scratch& scratch = scratches.local();
                              DirectSource source(*this);
                              std::uint64_t positions = 0;
                              for (std::size_t i = r.begin(); i != r.end(); ++i) {
                                  const Layout layout = layout_of(pairs[i]);
                                  positions += solve_pair_alone(values_, layout,
                                                                static_cast<std::uint32_t>(pair_positions(pairs[i])),
                                                                scratch, source);
                              }
                              report(positions);  // once per chunk: pairs can be 2 positions
                          });
    }

    // ---- A team member's level ----------------------------------------------

    // What a member solves of a level: a pair whole, or its share
    // [first, last) of a pair split over the team. Its codes go to the
    // level's work area from `work` on.
    struct Portion {
        Pair pair;
        std::uint64_t first, last;
        std::uint64_t work;
        const SplitPair* split;  // null for a whole pair
        std::uint32_t lock_base;  // a split pair's: the state index of `first` in the member's queue
        // Where the member's positions of each half of the pair are: local
        // position l at work l + storage_shift[h], state l + state_shift[h]
        // (a split pair's halves are two portions; set by place()).
        std::int64_t storage_shift[2] = {0, 0};
        std::int64_t state_shift[2] = {0, 0};
        std::uint32_t count() const noexcept { return static_cast<std::uint32_t>(last - first); }
        int half(std::uint64_t king_placements) const noexcept { return first >= king_placements; }
    };

    // Numbers the portions' work areas in order, and tells each portion of a
    // split pair where its sibling (the member's share of the other half) is.
    void place(std::vector<Portion>& portions) const {
        const std::uint64_t K = sides_[0].king_placements();
        std::uint64_t work = 0;
        for (Portion& p : portions) {
            p.work = std::exchange(work, work + p.count());
            const std::int64_t storage = static_cast<std::int64_t>(p.work) - static_cast<std::int64_t>(p.first);
            if (!p.split) {
                p.storage_shift[0] = p.storage_shift[1] = storage;
                p.state_shift[0] = p.state_shift[1] = -static_cast<std::int64_t>(p.first);  // the pair's own scratch
            } else {
                const int h = p.half(K);
                p.storage_shift[h] = storage;
                p.state_shift[h] = static_cast<std::int64_t>(p.lock_base) - static_cast<std::int64_t>(p.first);
            }
        }
        for (std::size_t i = 0; i + 1 < portions.size(); ++i) {
            Portion &a = portions[i], &b = portions[i + 1];
            if (!a.split || a.split != b.split) continue;  // the two halves of one split pair
            a.storage_shift[1] = b.storage_shift[1];
            a.state_shift[1] = b.state_shift[1];
            b.storage_shift[0] = a.storage_shift[0];
            b.state_shift[0] = a.state_shift[0];
        }
    }

    // A run of positions whose lookups are made and answered together, in
    // order: the whole pairs portions[p0, p1) (small pairs), or positions
    // [first, last) of portions[p0] (big or split pairs).
    struct Chunk {
        std::size_t p0, p1;
        std::uint64_t first, last;
        const std::uint16_t* entries;  // its answers (look_up())
    };

    // The layout of a portion inside the level's work area (place()).
    Layout layout_in_work(const Portion& portion) const {
        Layout layout = layout_of(portion.pair);
        for (int h = 0; h < 2; ++h) {
            layout.storage_base[h] = portion.storage_shift[h];
            layout.state_shift[h] = portion.state_shift[h];
        }
        layout.split = portion.split;
        return layout;
    }

    // Values from outside a pair in a team: those of the materials every
    // member holds whole read here, the others answered by their members
    // (look_up()) and consumed in the order they were asked: per position
    // without a capture, one per man move not read here; per position with
    // one, meta - 1 of them, on top of the best over the captures read here
    // (left in the position's code by ask()).
    struct EntrySource {
        const MaterialSolver& solver;
        const SolvedValues& store;
        const std::uint8_t* meta;  // by storage index: 0 without a capture, else the answers asked + 1
        const std::uint16_t* entries;
        std::optional<Value> capture_value(const Layout& layout, std::uint64_t local, const Position&) {
            const std::uint64_t s = layout.storage(local);
            if (meta[s] == 0) return std::nullopt;
            Value best = value_of_dtw_code(store.code(s));
            for (std::uint8_t i = 1; i < meta[s]; ++i) {
                const Value v = before_move(value_of_dtw_code(*entries++));
                if (preferred(v, best)) best = v;
            }
            return best;
        }
        Value promotion(const Position& child) {
            if (const std::optional<Value> v = solver.successors_->held_value(child)) return *v;
            return value_of_dtw_code(*entries++);
        }
        Value man_move(const ManExit&, Bitboard, Bitboard) { return value_of_dtw_code(*entries++); }
    };

    // The words of the values that `local` needs from other members, in the
    // order initialise() takes them; sets its meta, and for a position with
    // a capture leaves the best over the captures read here in its code.
    void ask(SolvedValues& store, const Layout& layout, std::uint64_t local, const Position& q, std::uint8_t* meta,
             std::vector<std::uint64_t>& words) const {
        const std::uint64_t s = layout.storage(local);
        if (draughts::has_capture<V>(q)) {
            draughts::MoveList<N> moves;
            draughts::generate_moves<V>(q, moves);
            Value best = Value::loss(0);
            std::size_t asked = 0;
            for (const Move& m : moves) {
                Position child = q;
                draughts::make_move(child, m);
                if (const std::optional<Value> v = successors_->held_value(child)) {
                    if (preferred(before_move(*v), best)) best = before_move(*v);
                } else {
                    words.push_back(tables_->locate(child));
                    ++asked;
                }
            }
            if (asked > 254)
                throw std::runtime_error(material_.name() + ": a position with " + std::to_string(asked) +
                                         " captures; a team counts at most 254");
            meta[s] = static_cast<std::uint8_t>(asked + 1);
            store.code(s) = static_cast<std::uint16_t>(dtw_code(best));
            return;
        }
        meta[s] = 0;
        const int h = layout.half_of(local);
        for (int i = 0; i < layout.man_exit_count[h]; ++i) {
            const ManExit& e = layout.man_exits[h][i];
            if (e.target & q.kings) continue;
            if (!e.promotes) {
                words.push_back(TeamTables<V>::word(
                    0, e.child(q.kings_of(draughts::Color::white), q.kings_of(draughts::Color::black))));
                continue;
            }
            Position child = q;
            draughts::make_move(child, Move{0, e.from, e.to, true});
            if (!successors_->held_value(child)) words.push_back(tables_->locate(child));
        }
    }

    // Calls f(layout, first, last) for the runs of positions of a chunk.
    template <class F>
    void for_each_run(const Chunk& c, const std::vector<Portion>& portions, F&& f) const {
        if (c.p1 > c.p0 + 1 || c.last == 0) {
            for (std::size_t p = c.p0; p < c.p1; ++p)
                f(layout_in_work(portions[p]), portions[p].first, portions[p].last);
        } else {
            f(layout_in_work(portions[c.p0]), c.first, c.last);
        }
    }

    // Where the rounds of a team's exchange start when n items of size(i)
    // positions are taken in order, at most lookup_positions positions a
    // round (an item bigger: a round of its own); n last.
    template <class Size>
    std::vector<std::size_t> round_starts(std::size_t n, Size&& size) const {
        std::vector<std::size_t> starts{0};
        std::uint64_t in_round = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t count = size(i);
            if (in_round > 0 && in_round + count > options_.lookup_positions) {
                starts.push_back(i);
                in_round = 0;
            }
            in_round += count;
        }
        starts.push_back(n);
        return starts;
    }

    // Looks up every value the member's positions need from outside their
    // pairs, in rounds that every member takes part in (answering the others'
    // questions even when it has none): each chunk gets its answers, in one
    // buffer of `entries` per round; `meta` the number of captures of each position.
    void look_up(SolvedValues& store, std::vector<Chunk>& chunks, const std::vector<Portion>& portions,
                 std::vector<std::uint8_t>& meta, std::vector<std::vector<std::uint16_t>>& entries) {
        const int members = team_->size();
        // Rounds of at most lookup_positions positions (and one chunk at least).
        const std::vector<std::size_t> round_start = round_starts(chunks.size(), [&](std::size_t c) {
            std::uint64_t n = 0;
            for_each_run(chunks[c], portions, [&](const Layout&, std::uint64_t f, std::uint64_t l) { n += l - f; });
            return n;
        });
        const std::uint64_t rounds = team_->all_max(round_start.size() - 1);
        TeamBuffers& b = *buffers_;
        Mailbox<std::uint64_t>& questions = b.questions;
        Mailbox<std::uint16_t>& answers = b.answers;
        std::vector<std::vector<std::uint64_t>>& words = b.words;
        std::vector<std::vector<std::size_t>>& start = b.start;
        std::vector<std::uint64_t>& sent = b.asked;
        std::vector<std::uint16_t>& replies = b.replies;
        std::size_t round_buffers = 0;
        std::vector<std::size_t> counts(members), part(members + 1);
        for (std::uint64_t r = 0; r < rounds; ++r) {
            const std::size_t c0 = r + 1 < round_start.size() ? round_start[r] : chunks.size();
            const std::size_t c1 = r + 1 < round_start.size() ? round_start[r + 1] : chunks.size();
            const std::size_t n = c1 - c0;
            if (words.size() < n) {
                words.resize(n);
                start.resize(n);
            }
            // The questions, chunk by chunk.
            tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
                words[i].clear();
                start[i].assign(members, 0);
                for_each_run(chunks[c0 + i], portions, [&](const Layout& layout, std::uint64_t f, std::uint64_t l) {
                    for_each_position(layout, f, l, [&](std::uint64_t x, const Position& q) {
                        ask(store, layout, x, q, meta.data(), words[i]);
                    });
                });
                for (std::uint64_t w : words[i])
                    if (w != TeamTables<V>::no_piece) ++start[i][tables_->owner(w)];
            });
            // Sent to the members holding them, in chunk order: chunk i's
            // questions to member j start at start[i][j] of j's part.
            std::fill(counts.begin(), counts.end(), 0);
            for (int j = 0; j < members; ++j)
                for (std::size_t i = 0; i < n; ++i) counts[j] += std::exchange(start[i][j], counts[j]);
            for (int j = 0; j < members; ++j) part[j + 1] = part[j] + counts[j];
            sent.resize(part[members]);
            tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
                std::vector<std::size_t> at(members);
                for (int j = 0; j < members; ++j) at[j] = part[j] + start[i][j];
                for (std::uint64_t w : words[i])
                    if (w != TeamTables<V>::no_piece) sent[at[tables_->owner(w)]++] = w;
            });
            questions.send(*team_, sent, counts);
            // The answers to the others' questions.
            replies.resize(questions.received());
            std::size_t offset = 0;
            for (int j = 0; j < members; ++j) {
                const std::span<const std::uint64_t> q = questions.from(j);
                tbb::parallel_for(tbb::blocked_range<std::size_t>(0, q.size(), 4096),
                                  [&](const tbb::blocked_range<std::size_t>& r) {
                                      for (std::size_t x = r.begin(); x != r.end(); ++x)
                                          replies[offset + x] = tables_->code(q[x]);
                                  });
                counts[j] = q.size();
                offset += q.size();
            }
            answers.send(*team_, replies, counts);
            // Into the round's entries, in the order asked.
            std::vector<std::uint64_t> entry_first(n + 1, 0);
            for (std::size_t i = 0; i < n; ++i) entry_first[i + 1] = entry_first[i] + words[i].size();
            if (round_buffers == entries.size()) entries.emplace_back();
            std::vector<std::uint16_t>& round = entries[round_buffers++];
            round.resize(entry_first[n]);
            tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
                chunks[c0 + i].entries = round.data() + entry_first[i];
                std::vector<std::size_t> at(start[i]);
                std::uint16_t* out = round.data() + entry_first[i];
                for (std::uint64_t w : words[i]) {
                    if (w == TeamTables<V>::no_piece) {
                        *out++ = static_cast<std::uint16_t>(dtw_code(Value::loss(0)));
                    } else {
                        const int j = tables_->owner(w);
                        *out++ = answers.from(j)[at[j]++];
                    }
                }
            });
        }
    }

    // Sends the codes and capture marks of the member's positions of a level
    // to the members whose ranges hold them, and takes in those it holds.
    // A record: global start, count, the codes, the capture marks (one byte
    // per 8 positions), zero bytes up to a multiple of 8.
    void send_home(const std::vector<Portion>& portions, const SolvedValues& work) {
        const int members = team_->size();
        const Ranges& homes = tables_->homes();
        // Rounds of at most lookup_positions positions, as many for every
        // member: portions cut into pieces no bigger, a round of pieces.
        struct Piece {
            std::size_t portion;
            std::uint64_t first, last;
        };
        std::vector<Piece> pieces;
        for (std::size_t p = 0; p < portions.size(); ++p)
            for (std::uint64_t f = portions[p].first; f < portions[p].last; f += options_.lookup_positions)
                pieces.push_back({p, f, std::min<std::uint64_t>(portions[p].last, f + options_.lookup_positions)});
        const std::vector<std::size_t> round_start =
            round_starts(pieces.size(), [&](std::size_t i) { return pieces[i].last - pieces[i].first; });
        const std::uint64_t rounds = team_->all_max(round_start.size() - 1);
        Mailbox<std::byte>& mail = buffers_->results;
        for (std::uint64_t r = 0; r < rounds; ++r) {
            const std::size_t i0 = r + 1 < round_start.size() ? round_start[r] : pieces.size();
            const std::size_t i1 = r + 1 < round_start.size() ? round_start[r + 1] : pieces.size();
            for (std::size_t i = i0; i < i1; ++i) {
                const Portion& portion = portions[pieces[i].portion];
                const Layout layout = layout_in_work(portion);
                // Runs of consecutive global positions: a half at a time, cut where the ranges change hands.
                std::uint64_t l = pieces[i].first;
                while (l < pieces[i].last) {
                    const int h = layout.half_of(l);
                    const std::uint64_t g = layout.global(l);
                    const int home = homes.owner(g);
                    const std::uint64_t half_end = (h + 1) * layout.king_placements;
                    const std::uint64_t end = std::min<std::uint64_t>(
                        {pieces[i].last, half_end, l + (homes.first(home + 1) - g)});
                    const auto count = static_cast<std::uint32_t>(end - l);
                    std::vector<std::byte>& o = mail.to(home);
                    const std::size_t at = o.size();
                    const std::size_t marks = (count + 7) / 8;
                    o.resize(at + (16 + 2 * std::size_t{count} + marks + 7) / 8 * 8, std::byte{0});
                    std::byte* rec = o.data() + at;
                    store_u64(rec, g);
                    store_u64(rec + 8, count);
                    std::memcpy(rec + 16, work.codes.data() + (layout.storage(l) - work.first), 2 * std::size_t{count});
                    for (std::uint32_t x = 0; x < count; ++x)
                        if (work.has_capture(layout.storage(l + x)))
                            rec[16 + 2 * count + x / 8] |= static_cast<std::byte>(1 << (x % 8));
                    l += count;
                }
            }
            mail.exchange(*team_);
            SolvedValues& home = tables_->home();
            for (int j = 0; j < members; ++j) {
                const std::span<const std::byte> in = mail.from(j);
                for (std::size_t at = 0; at < in.size();) {
                    const std::byte* rec = in.data() + at;
                    const std::uint64_t g = load_u64(rec), count = load_u64(rec + 8);
                    if (!home.holds(g) || !home.holds(g + count - 1))
                        throw std::logic_error("a team member sent positions this member does not hold");
                    std::memcpy(&home.code(g), rec + 16, 2 * count);
                    for (std::uint64_t x = 0; x < count; ++x)
                        if (std::to_integer<int>(rec[16 + 2 * count + x / 8]) >> (x % 8) & 1) home.mark_capture(g + x);
                    at += (16 + 2 * count + (count + 7) / 8 + 7) / 8 * 8;
                }
            }
        }
    }

    // The queue of the pairs split over the team, worked in step: at each
    // distance every member tells the predecessors of its positions settled
    // at that distance, sends those another member holds to it, and applies
    // those it receives. `portions[first..]` are the member's shares of the
    // split pairs, their states in `lock` from their lock_base on.
    void run_split_queue(SolvedValues& work, const std::vector<Portion>& portions, std::size_t first,
                         std::vector<std::uint8_t>& lock, Buckets& buckets) {
        const int members = team_->size(), me = team_->rank();
        const States<true> states{lock.data()};
        std::vector<Layout> layouts;
        std::vector<std::uint32_t> bases;  // lock index of each portion's first position
        std::vector<std::int64_t> shifts;  // state index to local position, each portion
        const std::uint64_t K = sides_[0].king_placements();
        for (std::size_t p = first; p < portions.size(); ++p) {
            layouts.push_back(layout_in_work(portions[p]));
            bases.push_back(portions[p].lock_base);
            shifts.push_back(portions[p].state_shift[portions[p].half(K)]);
        }
        auto locate = [&](std::uint32_t at) {
            const std::size_t i = std::upper_bound(bases.begin(), bases.end(), at) - bases.begin() - 1;
            return std::pair{&layouts[i], static_cast<std::uint64_t>(static_cast<std::int64_t>(at) - shifts[i])};
        };
        constexpr std::uint64_t none = ~std::uint64_t{0};
        auto next = [&](std::uint64_t after) {
            std::uint64_t d = after + 1;
            while (d < buckets.size() && buckets[d].empty()) ++d;
            return team_->all_min(d < buckets.size() ? d : none);
        };
        // Each thread's updates for the other members, kept from batch to batch.
        tbb::enumerable_thread_specific<std::vector<std::vector<std::uint32_t>>> outboxes(
            [&] { return std::vector<std::vector<std::uint32_t>>(members); });
        Mailbox<std::uint32_t>& mail = buffers_->updates;
        std::vector<std::uint32_t>& sent = buffers_->told;
        std::vector<std::size_t> counts(members);
        for (std::uint64_t d = next(none); d != none; d = next(d)) {
            // d is the team's next distance: this member may have nothing at it.
            const std::vector<std::uint32_t> bucket = d < buckets.size() ? std::exchange(buckets[d], {})
                                                                         : std::vector<std::uint32_t>{};
            const std::uint64_t batch = options_.update_positions;
            const std::uint64_t batches = team_->all_max((bucket.size() + batch - 1) / batch);
            for (std::uint64_t b = 0; b < batches; ++b) {
                const std::size_t from = std::min<std::size_t>(bucket.size(), b * batch);
                const std::span<const std::uint32_t> entries =
                    std::span<const std::uint32_t>(bucket).subspan(from, std::min<std::size_t>(batch, bucket.size() - from));
                run_chunks(static_cast<std::uint32_t>(entries.size()), buckets,
                           [&](std::uint32_t f, std::uint32_t l, Pushes& pushes) {
                               auto& outbox = outboxes.local();
                               auto away = [&](const Layout& layout, std::uint64_t pred) {
                                   const Split& split = layout.split->half[layout.half_of(pred)];
                                   const int owner = split.owner(pred);
                                   if (owner == me) return false;
                                   outbox[owner].push_back(split.lock_base[owner] +
                                                           static_cast<std::uint32_t>(pred - split.bounds[owner]));
                                   return true;
                               };
                               propagate(work, entries.subspan(f, l - f), static_cast<std::uint32_t>(d), states, pushes,
                                         locate, away);
                           });
                // Into one buffer in member order, then to the members.
                std::fill(counts.begin(), counts.end(), 0);
                for (const auto& outbox : outboxes)
                    for (int j = 0; j < members; ++j) counts[j] += outbox[j].size();
                std::size_t total = 0;
                for (int j = 0; j < members; ++j) total += counts[j];
                sent.resize(total);
                std::size_t at = 0;
                for (int j = 0; j < members; ++j)
                    for (auto& outbox : outboxes) {
                        std::copy(outbox[j].begin(), outbox[j].end(), sent.begin() + static_cast<std::ptrdiff_t>(at));
                        at += outbox[j].size();
                        outbox[j].clear();
                    }
                mail.send(*team_, sent, counts);
                for (int j = 0; j < members; ++j) {
                    const std::span<const std::uint32_t> told = mail.from(j);
                    run_chunks(static_cast<std::uint32_t>(told.size()), buckets,
                               [&](std::uint32_t f, std::uint32_t l, Pushes& pushes) {
                                   // In groups whose states and codes are prefetched first, as in propagate().
                                   constexpr std::uint32_t group = 64;
                                   std::array<std::uint16_t*, group> codes;
                                   for (std::uint32_t x = f; x < l; x += group) {
                                       const std::uint32_t n = std::min(group, l - x);
                                       for (std::uint32_t y = 0; y < n; ++y) {
                                           const auto [layout, local] = locate(told[x + y]);
                                           codes[y] = &work.code(layout->storage(local));
                                           __builtin_prefetch(codes[y], 1);
                                           __builtin_prefetch(states.state + told[x + y], 1);
                                       }
                                       for (std::uint32_t y = 0; y < n; ++y)
                                           tell(*codes[y], told[x + y], static_cast<std::uint32_t>(d), states, pushes);
                                   }
                               });
                }
            }
        }
    }

    // A team member's part of one level.
    void solve_level_in_team(const PotentialLevels<N>& levels, const typename PotentialLevels<N>::Level& level,
                             bool top) {
        const int members = team_->size(), me = team_->rank();
        const std::uint64_t configurations = level.men_configurations;
        const std::uint64_t K = sides_[0].king_placements();
        // The member's portions: its share of the level's men configurations,
        // whole, or its share of every pair when there are too few to go round.
        std::vector<Portion> portions;
        std::uint64_t work = 0;
        // Whole pairs are numbered with 32 bits: bigger ones are always split.
        const bool split = (configurations < options_.configurations_per_member * static_cast<std::uint64_t>(members) ||
                            2 * K >= std::uint64_t{1} << 31) &&
                           2 * K >= options_.min_split_positions;
        std::vector<SplitPair> splits;
        if (split) {
            const std::vector<Pair> pairs = pairs_of(levels, level.potential);
            splits.resize(pairs.size());
            std::vector<std::uint64_t> lock_next(members, 0);
            for (std::size_t i = 0; i < pairs.size(); ++i)
                for (int h = 0; h < (pairs[i].alone ? 1 : 2); ++h) {
                    Split& s = splits[i].half[h];
                    for (int j = 0; j <= members; ++j) s.bounds.push_back(h * K + share_bound(K, j, members));
                    for (int j = 0; j < members; ++j) {
                        s.lock_base.push_back(static_cast<std::uint32_t>(lock_next[j]));
                        lock_next[j] += s.bounds[j + 1] - s.bounds[j];
                    }
                    if (lock_next[me] >= std::uint64_t{1} << 32)
                        throw std::runtime_error(material_.name() + ": more than 2^32 positions of one level on one "
                                                 "member; build it on more ranks");
                    const std::uint64_t f = s.bounds[me], l = s.bounds[me + 1];
                    if (f < l)
                        portions.push_back({pairs[i], f, l, std::exchange(work, work + (l - f)), &splits[i], s.lock_base[me]});
                }
        } else {
            // The level's configurations in slices dealt out in turn, 16 a
            // member: neighbouring configurations cost alike, so one slice
            // each would leave some members with the dear ones.
            const std::uint64_t slices = std::min<std::uint64_t>(configurations, 16 * static_cast<std::uint64_t>(members));
            for (std::uint64_t i = me; i < slices; i += members) {
                const std::uint64_t first = share_bound(configurations, static_cast<int>(i), static_cast<int>(slices));
                const std::uint64_t last = share_bound(configurations, static_cast<int>(i + 1), static_cast<int>(slices));
                for (const Pair& pair : pairs_of(levels, level.potential, first, last - first)) {
                    const auto size = static_cast<std::uint32_t>(pair_positions(pair));
                    portions.push_back({pair, 0, size, std::exchange(work, work + size), nullptr, 0});
                }
            }
        }
        // Small whole pairs first (chunks of several), then the big ones and
        // the shares of split pairs (chunks of slices).
        const std::uint64_t big = options_.shared_pair_positions;
        std::stable_partition(portions.begin(), portions.end(), [&](const Portion& p) {
            return !p.split && p.count() < big;
        });
        place(portions);
        work = 0;
        for (const Portion& p : portions) work += p.count();
        constexpr std::uint32_t slice = 4096;
        std::vector<Chunk> chunks;
        std::size_t small = 0;
        while (small < portions.size() && !portions[small].split && portions[small].count() < big) {
            std::size_t end = small;
            std::uint64_t n = 0;
            while (end < portions.size() && !portions[end].split && portions[end].count() < big &&
                   n < slice)
                n += portions[end++].count();
            chunks.push_back({small, end, 0, 0, nullptr});
            small = end;
        }
        for (std::size_t p = small; p < portions.size(); ++p)
            for (std::uint64_t f = portions[p].first; f < portions[p].last; f += slice)
                chunks.push_back({p, p + 1, f, std::min<std::uint64_t>(portions[p].last, f + slice), nullptr});

        SolvedValues& store = buffers_->work;
        store.material = material_;
        store.codes.resize(work);  // every code is written before it is read
        store.capture.assign((work + 63) / 64, 0);
        // Whether the level needs values from other members: those of the
        // materials shared out, and of man moves (none from the top level:
        // a man move there would raise the highest potential).
        const bool asks = tables_->shares_successors() || (material_.men() > 0 && !top);
        std::vector<std::uint8_t>& meta = buffers_->meta;
        std::vector<std::vector<std::uint16_t>>& entries = buffers_->entries;
        meta.resize(asks ? work : 0);  // ask() writes every position's
        if (asks) look_up(store, chunks, portions, meta, entries);
        // The values of a chunk's positions from outside their pairs.
        auto with_source = [&](const Chunk& chunk, auto&& f) {
            if (asks) {
                EntrySource source{*this, store, meta.data(), chunk.entries};
                f(source);
            } else {
                DirectSource source(*this);
                f(source);
            }
        };

        // Small whole pairs, a chunk per task.
        std::size_t c = 0;
        const std::size_t small_chunks = std::find_if(chunks.begin(), chunks.end(), [&](const Chunk& ch) {
                                             return ch.p0 >= small;
                                         }) - chunks.begin();
        {
            tbb::enumerable_thread_specific<Scratch> scratches;
            tbb::parallel_for(std::size_t{0}, small_chunks, [&](std::size_t i) {
                Scratch& scratch = scratches.local();
                std::uint64_t positions = 0;
                with_source(chunks[i], [&](auto& source) {
                    for (std::size_t p = chunks[i].p0; p < chunks[i].p1; ++p)
                        positions += solve_pair_alone(store, layout_in_work(portions[p]), portions[p].count(), scratch,
                                                      source);
                });
                report(positions);
            });
            c = small_chunks;
        }
        // Big whole pairs, one at a time with all threads.
        std::size_t first_split = small;
        while (first_split < portions.size() && !portions[first_split].split) ++first_split;
        for (std::size_t p = small; p < first_split; ++p) {
            const std::size_t c0 = c;
            while (c < chunks.size() && chunks[c].p0 == p) ++c;
            const Layout layout = layout_in_work(portions[p]);
            Scratch scratch;
            report(solve_pair_shared(store, layout, portions[p].count(), scratch,
                                     [&](const States<true>& states, Buckets& buckets) {
                                         initialise_chunks(store, chunks, c0, c, with_source, states, buckets,
                                                           [&](std::size_t) { return layout; });
                                     }));
        }
        // The shares of split pairs, in step with the team.
        if (split) {
            std::uint64_t lock_size = 0;
            for (std::size_t p = first_split; p < portions.size(); ++p) lock_size += portions[p].count();
            std::vector<std::uint8_t>& lock = buffers_->lock;
            lock.assign(lock_size, 0);
            Buckets buckets;
            const States<true> states{lock.data()};
            initialise_chunks(store, chunks, c, chunks.size(), with_source, states, buckets,
                              [&](std::size_t p) { return layout_in_work(portions[p]); });
            run_split_queue(store, portions, first_split, lock, buckets);
            std::uint32_t max_code = 0;
            for (std::size_t p = first_split; p < portions.size(); ++p)
                max_code = std::max(max_code, finish(store, layout_in_work(portions[p]),
                                                     portions[p].first, portions[p].last, lock.data()));
            note_max_code(max_code);
            report(lock_size);
        }
        send_home(portions, store);
    }

    // Sets up the positions of chunks [c0, c1) (each one portion's slice) in
    // parallel, their states through layout_of_portion(p).
    template <class WithSource, class LayoutOf>
    void initialise_chunks(SolvedValues& store, const std::vector<Chunk>& chunks, std::size_t c0, std::size_t c1,
                           WithSource&& with_source, const States<true>& states, Buckets& buckets,
                           LayoutOf&& layout_of_portion) {
        std::mutex merge;
        tbb::parallel_for(c0, c1, [&](std::size_t i) {
            const Chunk& chunk = chunks[i];
            const Layout layout = layout_of_portion(chunk.p0);
            Pushes pushes;
            with_source(chunk, [&](auto& source) {
                for_each_position(layout, chunk.first, chunk.last, source, [&](std::uint64_t l, const Position& q) {
                    initialise(store, layout, l, q, states, pushes, source);
                });
            });
            const std::lock_guard lock(merge);
            for (const auto& [d, at] : pushes.list) add_to_buckets(buckets, d, at);
        });
    }

    // A team member's buffers, kept from level to level: each level's would
    // otherwise be new memory, which the kernel maps and zeroes page by page.
    struct TeamBuffers {
        explicit TeamBuffers(int members)
            : questions(members), answers(members), results(members), updates(members) {}
        Mailbox<std::uint64_t> questions;
        Mailbox<std::uint16_t> answers;
        Mailbox<std::byte> results;
        Mailbox<std::uint32_t> updates;
        std::vector<std::vector<std::uint64_t>> words;  // per chunk of a round, in the order asked
        std::vector<std::vector<std::size_t>> start;    // per chunk and member: where its questions start
        std::vector<std::uint64_t> asked;
        std::vector<std::uint16_t> replies;
        std::vector<std::uint32_t> told;
        SolvedValues work;                                // the codes of the level's positions
        std::vector<std::uint8_t> meta, lock;
        std::vector<std::vector<std::uint16_t>> entries;  // the answers, a buffer per round
    };

    Material material_;
    bool symmetric_;
    Index<N> sides_[2];
    SolveProgress progress_;
    // One process:
    const Successors<V>* successors_ = nullptr;
    SolvedValues values_;
    // A team:
    Team* team_ = nullptr;
    TeamTables<V>* tables_ = nullptr;
    TeamOptions options_;
    std::unique_ptr<TeamBuffers> buffers_;
    std::atomic<std::uint32_t> max_code_{0};
};

}  // namespace dtb
