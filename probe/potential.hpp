// Potential levels (docs/design.md, "Solver"). A man's advancement is the number of rows
// it has moved from its own back row; the potential of a men configuration is
// the sum over all men of both colours. Every move of a man that is not a
// capture adds exactly one, king moves add nothing, so the solver takes the
// levels from the highest potential down, each depending only on the levels
// above it and on other materials.
#pragma once

#include <cstdint>
#include <vector>

#include "draughts/position.hpp"
#include "probe/material.hpp"

namespace dtb {

template <int N>
constexpr int advancement(draughts::Color c, int square) noexcept {
    const int row = draughts::Geometry<N>::row_of_square(square);
    return c == draughts::Color::white ? N - 1 - row : row;
}

template <int N>
constexpr int potential(typename draughts::Geometry<N>::Bitboard white_men,
                        typename draughts::Geometry<N>::Bitboard black_men) noexcept {
    using G = draughts::Geometry<N>;
    int sum = 0;
    draughts::for_each_bit(white_men, [&](int b) { sum += advancement<N>(draughts::Color::white, G::square_of_bit[b]); });
    draughts::for_each_bit(black_men, [&](int b) { sum += advancement<N>(draughts::Color::black, G::square_of_bit[b]); });
    return sum;
}

// The men configurations of a material grouped by potential. Counts come from
// a table of ways[square][white men][black men][potential]: the number of
// ways to place that many men on the squares from `square` on with that
// total advancement. The same table steers the enumeration of one level, so
// it never walks into a dead end. Memory: (squares + 1) x (white men + 1) x
// (black men + 1) x (highest potential + 1) counts, about 1 MB for 4 men a
// side on 12x12.
template <int N>
class PotentialLevels {
public:
    using geometry = draughts::Geometry<N>;
    using Bitboard = typename geometry::Bitboard;

    struct Level {
        int potential;
        std::uint64_t men_configurations;
    };

    explicit PotentialLevels(const Material& m);

    // The levels that hold at least one men configuration, highest potential
    // first. A material without men has one level, potential 0.
    const std::vector<Level>& levels() const noexcept { return levels_; }

    // Calls f(white_men, black_men) for every men configuration of potential p.
    template <class F>
    void for_each_men_configuration(int p, F&& f) const {
        for_each_men_configuration(p, 0, ~std::uint64_t{0}, f);
    }

    // The same for configurations first .. first + count - 1 of potential p,
    // in the same order, without walking those before `first`: a team member
    // enumerates its share of a level only.
    template <class F>
    void for_each_men_configuration(int p, std::uint64_t first, std::uint64_t count, F&& f) const {
        if (count == 0 || p < 0 || p > max_potential_ || ways(0, white_men_, black_men_, p) == 0) return;
        Walk walk{first, count};
        visit(0, white_men_, black_men_, p, 0, 0, walk, f);
    }

    // The place of a men configuration among those of its potential, in
    // for_each_men_configuration()'s order: the configurations that walk
    // skips before it, counted from the same table. Each man adds those of
    // the choices the walk takes before his on his square (an empty square,
    // and for Black's a White man), so it costs a lookup or two a man.
    std::uint64_t rank_in_level(Bitboard white_men, Bitboard black_men) const noexcept {
        int white = white_men_, black = black_men_, p = potential<N>(white_men, black_men);
        std::uint64_t rank = 0;
        // Bits rise with squares (Geometry::bit_of_square), so the men come in the walk's order.
        draughts::for_each_bit(white_men | black_men, [&](int b) {
            const int square = geometry::square_of_bit[b];
            const int up = advancement<N>(draughts::Color::white, square);
            rank += ways(square + 1, white, black, p);
            if (draughts::bit<Bitboard>(b) & white_men) {
                --white;
                p -= up;
                return;
            }
            if (white > 0 && geometry::row_of_square(square) != 0 && p >= up)
                rank += ways(square + 1, white - 1, black, p - up);
            --black;
            p -= advancement<N>(draughts::Color::black, square);
        });
        return rank;
    }

private:
    std::size_t slot(int square, int white, int black, int p) const noexcept {
        return ((static_cast<std::size_t>(square) * (white_men_ + 1) + white) * (black_men_ + 1) + black) *
                   (max_potential_ + 1) +
               p;
    }
    std::uint64_t ways(int square, int white, int black, int p) const noexcept {
        return ways_[slot(square, white, black, p)];
    }

    // Configurations still to skip and still to visit.
    struct Walk {
        std::uint64_t skip;
        std::uint64_t left;
        // Whether a subtree of `ways` configurations is entered; skips it whole if not.
        bool enter(std::uint64_t ways) noexcept {
            if (ways == 0 || left == 0) return false;
            if (skip >= ways) {
                skip -= ways;
                return false;
            }
            return true;
        }
    };

    template <class F>
    void visit(int square, int white, int black, int p, Bitboard white_men, Bitboard black_men, Walk& walk,
               F& f) const {
        if (white == 0 && black == 0) {  // ways() > 0 guarantees p == 0 here; enter() that skip == 0
            f(white_men, black_men);
            --walk.left;
            return;
        }
        const Bitboard here = draughts::bit<Bitboard>(geometry::bit_of_square(square));
        if (walk.enter(ways(square + 1, white, black, p)))
            visit(square + 1, white, black, p, white_men, black_men, walk, f);
        const int row = geometry::row_of_square(square);
        const int up = advancement<N>(draughts::Color::white, square);
        if (white > 0 && row != 0 && p >= up && walk.enter(ways(square + 1, white - 1, black, p - up)))
            visit(square + 1, white - 1, black, p - up, white_men | here, black_men, walk, f);
        const int down = advancement<N>(draughts::Color::black, square);
        if (black > 0 && row != N - 1 && p >= down && walk.enter(ways(square + 1, white, black - 1, p - down)))
            visit(square + 1, white, black - 1, p - down, white_men, black_men | here, walk, f);
    }

    int white_men_, black_men_, max_potential_;
    std::vector<std::uint64_t> ways_;
    std::vector<Level> levels_;
};

}  // namespace dtb
