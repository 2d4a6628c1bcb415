// Legal move generation for every variant (docs/design.md, "The game layer"), templated on the
// variant so that the rules are constants in the hot code.
//
//   generate_moves(p, list)  every legal move, duplicates removed
//   count_moves(p)           their number, without building quiet moves
//   has_capture(p)           whether the side to move must capture
//
// Captures are found by a depth-first search per capturing piece
// (CaptureSearch below); docs/design.md explains the rules it encodes.
#pragma once

#include <array>
#include <cstdint>

#include "draughts/bitboard.hpp"
#include "draughts/move.hpp"
#include "draughts/position.hpp"
#include "draughts/variant.hpp"

namespace draughts {

// Policy of CaptureSearch for callers that want the positions the captures
// lead to rather than a move list (the solver): the maximum rule where it
// applies, but no search for repeats. Sequences with the same start, end
// and captured set lead to one position, which such a caller may meet
// twice at no harm; the move list's check against every move kept is saved.
template <int N, int Capacity = 256>
struct CaptureBuffer {
    static constexpr bool wants_path = false;
    std::array<Move<N>, Capacity> moves;  // not initialised: costs nothing to create
    int size = 0;
    int best = 0;

    void add(const Move<N>& m, int captures, bool maximum_capture) {
        if (maximum_capture) {
            if (captures < best) return;
            if (captures > best) {
                size = 0;
                best = captures;
            }
        }
        if (size == Capacity) [[unlikely]]
            throw_too_many_moves();
        moves[size++] = m;
    }
    void clear() noexcept { size = best = 0; }
    const Move<N>* begin() const noexcept { return moves.data(); }
    const Move<N>* end() const noexcept { return moves.data() + size; }
};

namespace detail {

template <class V>
struct Directions {
    using G = typename V::geometry;

    // Calls f.template operator()<D>() for the four diagonal steps.
    template <class F>
    [[gnu::always_inline]] static constexpr void all(F&& f) {
        f.template operator()<G::up_left>();
        f.template operator()<G::up_right>();
        f.template operator()<G::down_left>();
        f.template operator()<G::down_right>();
    }

    // The two steps a man of colour Us moves forward by.
    template <Color Us, class F>
    [[gnu::always_inline]] static constexpr void forward(F&& f) {
        if constexpr (Us == Color::white) {
            f.template operator()<G::up_left>();
            f.template operator()<G::up_right>();
        } else {
            f.template operator()<G::down_left>();
            f.template operator()<G::down_right>();
        }
    }

    // The steps a man of colour Us captures along.
    template <Color Us, class F>
    [[gnu::always_inline]] static constexpr void man_captures(F&& f) {
        if constexpr (V::men_capture_backward)
            all(f);
        else
            forward<Us>(f);
    }
};

// Policy of CaptureSearch that keeps legal moves only: the maximum rule where
// it applies, and one move for sequences with the same start, end and captures.
template <int N>
struct MoveListSink {
    static constexpr bool wants_path = false;
    MoveList<N>& out;
    int best = 0;

    void add(const Move<N>& m, int captures, bool maximum_capture) {
        if (maximum_capture) {
            if (captures < best) return;
            if (captures > best) {
                out.clear();
                best = captures;
            }
        }
        if (captures >= 2)  // one capture has one path: no duplicates possible
            for (const auto& other : out)
                if (other == m) return;
        out.push_back(m);
    }
};

// Depth-first search over the capture sequences of one piece. Captured pieces
// stay on the board (they block and cannot be jumped twice) until the move
// ends; the start square counts as empty since the piece has left it.
template <class V, Color Us, class Sink>
struct CaptureSearch {
    static constexpr int N = V::board_size;
    using G = typename V::geometry;
    using B = typename V::Bitboard;
    using Dirs = Directions<V>;
    static constexpr B promotion_row = G::promotion_row(Us);

    B opponents;  // the opponent's pieces, captured ones included
    B empty;      // empty squares, the start square included
    int from;     // bit index of the start square
    Sink& sink;
    std::uint8_t path[64];  // landing squares so far (only with Sink::wants_path)
    int depth = 0;

    // A jump of one square along D from `at` (a man's, or a king's that
    // does not fly): the opponent's piece it takes and the square it lands
    // on, if both are there.
    template <int D>
    bool jump(B at, B captured, B& over, B& land) const {
        over = shift<D>(at) & opponents & ~captured;
        if (!over) return false;
        land = shift<D>(over) & empty;
        return land != 0;
    }

    // A man on `at` that has captured `captured`. Returns whether it could capture.
    bool man(B at, B captured) {
        bool any = false;
        Dirs::template man_captures<Us>([&]<int D>() {
            B over, land;
            if (!jump<D>(at, captured, over, land)) return;
            any = true;
            const B now = captured | over;
            if (land & promotion_row) {
                if constexpr (V::promotion == PromotionInCapture::ends_move) {
                    record(land, now, true);
                    return;
                } else if constexpr (V::promotion == PromotionInCapture::continues_as_king) {
                    enter(land);
                    const bool on = king<true>(land, now);
                    leave();
                    if (!on) record(land, now, true);
                    return;
                }
            }
            enter(land);
            const bool on = man(land, now);
            leave();
            if (!on) record(land, now, (land & promotion_row) != 0);
        });
        return any;
    }

    // A king on `at` (Crowned: a man crowned during this capture). Returns whether it could capture.
    template <bool Crowned>
    bool king(B at, B captured) {
        bool any = false;
        if constexpr (V::flying_kings) {
            // Along each ray, the nearest piece is the one to capture, and the
            // empty squares beyond it up to the next piece are the landings.
            const int s = lowest_bit(at);
            const B occupied = ~empty;
            Dirs::all([&]<int D>() __attribute__((always_inline)) {
                const B blockers = G::template ray<D>(s) & occupied;
                if (!blockers) return;
                const int x = G::template nearest<D>(blockers);
                const B over = bit<B>(x) & opponents & ~captured;
                if (!over) return;
                const B land = G::template slide<D>(x, occupied);
                if (!land) return;
                any = true;
                const B now = captured | over;
                // Every empty square beyond the captured piece is a landing square,
                // but where some of them let the king capture again it must use one of those.
                B dead_ends = 0;
                bool continued = false;
                const B left = opponents & ~now;  // not captured yet
                G::template for_each_nearest_first<D>(land, [&](int t) {
                    const B l = bit<B>(t);
                    // No opponent left on its diagonals: no capture goes on from there.
                    if (!(G::lines[t] & left)) {
                        dead_ends |= l;
                        return;
                    }
                    enter(l);
                    if (king<Crowned>(l, now))
                        continued = true;
                    else
                        dead_ends |= l;
                    leave();
                });
                if (!continued)
                    for_each_bit(dead_ends, [&](int d) { record(bit<B>(d), now, Crowned); });
            });
        } else {
            Dirs::all([&]<int D>() {
                B over, land;
                if (!jump<D>(at, captured, over, land)) return;
                any = true;
                const B now = captured | over;
                enter(land);
                const bool on = king<Crowned>(land, now);
                leave();
                if (!on) record(land, now, Crowned);
            });
        }
        return any;
    }

    void enter(B land) {
        if constexpr (Sink::wants_path) path[depth++] = static_cast<std::uint8_t>(lowest_bit(land));
    }
    void leave() {
        if constexpr (Sink::wants_path) --depth;
    }

    void record(B at, B captured, bool promotes) {
        const Move<N> m{captured, static_cast<std::uint8_t>(from), static_cast<std::uint8_t>(lowest_bit(at)),
                        promotes};
        if constexpr (Sink::wants_path) {
            enter(at);
            sink.add(m, path, depth);
            leave();
        } else {
            sink.add(m, popcount(captured), V::maximum_capture);
        }
    }
};

template <class V, Color Us>
struct Generator {
    static constexpr int N = V::board_size;
    using G = typename V::geometry;
    using B = typename V::Bitboard;
    using Dirs = Directions<V>;
    static constexpr Color Them = opposite(Us);

    // Men of colour Us that have a capture to start with.
    static B capturing_men(const Position<N>& p) {
        const B men = p.men(Us);
        if (!men) return 0;  // kings only: saves the shifts (two-word ones on 12x12)
        const B opp = p.pieces(Them), empty = p.empty();
        B result = 0;
        Dirs::template man_captures<Us>([&]<int D>() { result |= shift<-D>(shift<-D>(empty) & opp) & men; });
        return result;
    }

    static bool king_can_capture(const Position<N>& p) {
        const B kings = p.kings_of(Us);
        if (!kings) return false;
        const B opp = p.pieces(Them), empty = p.empty();
        if constexpr (V::flying_kings) {
            // Without a branch on the pieces found: the nearest piece along a
            // ray that goes to higher bits is its lowest bit (b & -b). So for
            // captures down the board the search runs from each king, and for
            // captures up the board from each opponent with an empty square
            // beyond it, downwards, looking for a king.
            const B occupied = p.occupied();
            bool found = false;
            for_each_bit(kings, [&](int k) {
                Dirs::all([&]<int D>() {
                    if constexpr (D > 0) {
                        const B blockers = G::template ray<D>(k) & occupied;
                        found |= (blockers & (~blockers + 1) & opp & shift<-D>(empty)) != 0;
                    }
                });
            });
            for_each_bit(opp, [&](int x) {
                Dirs::all([&]<int D>() {
                    if constexpr (D < 0) {
                        const B blockers = G::template ray<-D>(x) & occupied;
                        found |= ((blockers & (~blockers + 1) & kings) != 0) & ((shift<D>(bit<B>(x)) & empty) != 0);
                    }
                });
            });
            return found;
        } else {
            B targets = 0;
            Dirs::all([&]<int D>() { targets |= shift<D>(shift<D>(kings) & opp) & empty; });
            return targets != 0;
        }
    }

    static bool has_capture(const Position<N>& p) { return capturing_men(p) || king_can_capture(p); }

    // Runs the capture search of every piece of Us into `sink`.
    template <class Sink>
    static void search_captures(const Position<N>& p, Sink& sink) {
        const B empty = p.empty();
        CaptureSearch<V, Us, Sink> search{p.pieces(Them), empty, 0, sink, {}, 0};
        for_each_bit(capturing_men(p), [&](int s) {
            search.from = s;
            search.empty = empty | bit<B>(s);
            search.man(bit<B>(s), 0);
        });
        for_each_bit(p.kings_of(Us), [&](int s) {
            // A flying king with no opponent on its diagonals has nothing to take.
            if constexpr (V::flying_kings)
                if (!(G::lines[s] & search.opponents)) return;
            search.from = s;
            search.empty = empty | bit<B>(s);
            search.template king<false>(bit<B>(s), 0);
        });
    }

    static void quiet_moves(const Position<N>& p, MoveList<N>& out) {
        man_moves(p, [&](int from, int to, bool promotes) {
            out.push_back(Move<N>{0, static_cast<std::uint8_t>(from), static_cast<std::uint8_t>(to), promotes});
        });
        king_moves(p, [&](int from, int to) {
            out.push_back(Move<N>{0, static_cast<std::uint8_t>(from), static_cast<std::uint8_t>(to), false});
        });
    }

    // Calls f(from, to, promotes) (bit indices) for every move of a man of Us
    // that is not a capture, whether or not Us has a capture.
    template <class F>
    [[gnu::always_inline]] static void man_moves(const Position<N>& p, F&& f) {
        const B empty = p.empty();
        const B men = p.men(Us);
        Dirs::template forward<Us>([&]<int D>() {
            for_each_bit(shift<D>(men) & empty, [&](int s) { f(s - D, s, (bit<B>(s) & G::promotion_row(Us)) != 0); });
        });
    }

    // The number of moves of the kings of Us that are not captures.
    static int count_king_moves(const Position<N>& p) {
        const B kings = p.kings_of(Us);
        if (!kings) return 0;
        int n = 0;
        if constexpr (V::flying_kings) {
            const B occupied = p.occupied();
            for_each_bit(kings, [&](int k) {
                Dirs::all([&]<int D>() { n += popcount(G::template slide<D>(k, occupied)); });
            });
        } else {
            const B empty = p.empty();
            Dirs::all([&]<int D>() { n += popcount(shift<D>(kings) & empty); });
        }
        return n;
    }

    // Calls f(from, to) (bit indices) for every move of a king of Us that is
    // not a capture, whether or not Us has a capture: king by king, each
    // direction in turn, nearest square first.
    template <class F>
    [[gnu::always_inline]] static void king_moves(const Position<N>& p, F&& f) {
        const B kings = p.kings_of(Us);
        if constexpr (V::flying_kings) {
            const B occupied = p.occupied();
            for_each_bit(kings, [&](int k) {
                Dirs::all([&]<int D>() {
                    G::template for_each_nearest_first<D>(G::template slide<D>(k, occupied),
                                                         [&](int t) { f(k, t); });
                });
            });
        } else {
            const B empty = p.empty();
            Dirs::all([&]<int D>() { for_each_bit(shift<D>(kings) & empty, [&](int s) { f(s - D, s); }); });
        }
    }

    static int count_quiet_moves(const Position<N>& p) {
        const B empty = p.empty(), men = p.men(Us);
        int n = count_king_moves(p);
        Dirs::template forward<Us>([&]<int D>() { n += popcount(shift<D>(men) & empty); });
        return n;
    }

    static void generate(const Position<N>& p, MoveList<N>& out) {
        out.clear();
        if (has_capture(p)) {
            MoveListSink<N> sink{out};
            search_captures(p, sink);
        } else {
            quiet_moves(p, out);
        }
    }

    static int count(const Position<N>& p) {
        if (has_capture(p)) {
            MoveList<N> list;
            MoveListSink<N> sink{list};
            search_captures(p, sink);
            return list.size();
        }
        return count_quiet_moves(p);
    }
};

}  // namespace detail

template <class V>
void generate_moves(const Position<V::board_size>& p, MoveList<V::board_size>& out) {
    if (p.side_to_move == Color::white)
        detail::Generator<V, Color::white>::generate(p, out);
    else
        detail::Generator<V, Color::black>::generate(p, out);
}

template <class V>
int count_moves(const Position<V::board_size>& p) {
    return p.side_to_move == Color::white ? detail::Generator<V, Color::white>::count(p)
                                          : detail::Generator<V, Color::black>::count(p);
}

// Runs the capture search of the side to move into `sink` (MoveListSink,
// CaptureBuffer): nothing reaches it when there is no capture, so no
// has_capture() test is needed first.
template <class V, class Sink>
void search_captures(const Position<V::board_size>& p, Sink& sink) {
    if (p.side_to_move == Color::white)
        detail::Generator<V, Color::white>::search_captures(p, sink);
    else
        detail::Generator<V, Color::black>::search_captures(p, sink);
}

// Calls f(from, to) (bit indices) for every non-capturing move of a king of
// colour `us`, whatever the side to move and whether or not a capture is due:
// the solver's king-move edges, forwards and (they are reversible) backwards.
template <class V, class F>
void for_each_king_move(const Position<V::board_size>& p, Color us, F&& f) {
    if (us == Color::white)
        detail::Generator<V, Color::white>::king_moves(p, f);
    else
        detail::Generator<V, Color::black>::king_moves(p, f);
}

// Calls f(from, to, promotes) (bit indices) for every non-capturing move of a
// man of colour `us`, whether or not a capture is due.
template <class V, class F>
void for_each_man_move(const Position<V::board_size>& p, Color us, F&& f) {
    if (us == Color::white)
        detail::Generator<V, Color::white>::man_moves(p, f);
    else
        detail::Generator<V, Color::black>::man_moves(p, f);
}

// The number of non-capturing moves of the kings of colour `us`.
template <class V>
int count_king_moves(const Position<V::board_size>& p, Color us) {
    return us == Color::white ? detail::Generator<V, Color::white>::count_king_moves(p)
                              : detail::Generator<V, Color::black>::count_king_moves(p);
}

template <class V>
bool has_capture(const Position<V::board_size>& p) {
    return p.side_to_move == Color::white ? detail::Generator<V, Color::white>::has_capture(p)
                                          : detail::Generator<V, Color::black>::has_capture(p);
}

}  // namespace draughts
