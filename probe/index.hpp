// The index of a material (docs/design.md, "Materials, index, symmetry"): a bijection between the legal
// placements of its pieces on an N x N board and 0..size()-1, without gaps.
//
//   index = men_configuration * king_placements() + king placement
//
// Men come first. Black's men are split by how many of them (j) stand on row 1,
// White's promotion row, where White's men never stand; for each j the
// squares left to White's men are known, so the two colours are ranked
// together without gaps:
//
//   men_configuration = offset[j] + (rank(black on row 1) * C(middle, bm - j)
//                        + rank(black in the middle rows)) * C(white squares, wm)
//                        + rank(white men among the squares left to them)
//
// Kings are ranked among the squares the men leave empty, White's first, then
// Black's among the squares still empty. Every men configuration therefore
// owns one contiguous block of king placements. docs/design.md ("Index") has
// the derivation and the size limits.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>

#include "draughts/position.hpp"
#include "probe/combination.hpp"
#include "probe/divisor.hpp"
#include "probe/material.hpp"

namespace dtb {

// A material whose positions do not fit a 64-bit index on the board.
class IndexError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// Largest index size accepted: one below 2^64 so that no binomial used by the
// index is ever the saturated value.
inline constexpr std::uint64_t max_index_size = ~std::uint64_t{0} - 1;

// The number of placements of a material on an N x N board, exactly, in 128
// bits (0 if it has none): what Index numbers, also for materials beyond it.
draughts::u128 placement_count(const Material& m, int board_size);

template <int N>
class Index {
public:
    using geometry = draughts::Geometry<N>;
    using Bitboard = typename geometry::Bitboard;
    using Position = draughts::Position<N>;

    // Throws IndexError if the material has more than max_index_size
    // placements, MaterialError if a count is negative.
    explicit Index(const Material& material);

    const Material& material() const noexcept { return material_; }
    // Legal placements: positions per side to move.
    std::uint64_t size() const noexcept { return size_; }
    std::uint64_t men_configurations() const noexcept { return men_configurations_; }
    // Placements of the kings for each men configuration (the block size).
    std::uint64_t king_placements() const noexcept { return king_placements_; }

    // `p` must be a legal placement of this material (legal_placement(p) and
    // material_of(p) == material()); the side to move is not part of the index.
    std::uint64_t rank(const Position& p) const noexcept {
        return rank_men(p.men(draughts::Color::white), p.men(draughts::Color::black)) * king_placements_ +
               rank_kings(p);
    }

    // rank(q.flipped()) for a legal placement q of the mirrored material,
    // without turning q round: every group is ranked with the squares
    // counted from the top (combination::rank_reversed) among the turned
    // sets of squares, which are constants. The solver looks up the
    // children of captures and promotions this way (Black to move in them).
    std::uint64_t rank_turned(const Position& q) const noexcept {
        const Bitboard men = q.occupied() & ~q.kings;
        return rank_men_turned(q.white & men, q.black & men) * king_placements_ +
               rank_kings_turned(q.kings_of(draughts::Color::white), q.kings_of(draughts::Color::black),
                                 geometry::board & ~men);
    }

    // The men configuration of rank_turned(q), from q's men.
    std::uint64_t rank_men_turned(Bitboard white_men, Bitboard black_men) const noexcept {
        // Turned round, q's white men are Black's, q's black men White's.
        const Bitboard on_row_1 = white_men & last_row;  // on row 1 once turned
        const Bitboard in_middle = white_men ^ on_row_1;
        const Split& s = splits_[draughts::popcount(on_row_1)];
        return s.offset + (combination::rank_reversed(on_row_1, last_row) * s.middle_placements +
                           combination::rank_reversed(in_middle, middle)) *
                              s.white_placements +
               combination::rank_reversed(black_men, turned_white_area & ~in_middle);
    }

    // The placement of `index` < size(), with White to move.
    Position unrank(std::uint64_t index) const noexcept {
        const std::uint64_t men = index / king_divider_;
        Position p = unrank_men(men);
        unrank_kings(index - men * king_placements_, p);
        return p;
    }

    // Index of a men configuration, 0..men_configurations()-1.
    std::uint64_t rank_men(Bitboard white_men, Bitboard black_men) const noexcept {
        const Bitboard on_row_1 = black_men & row_1;
        const Bitboard in_middle = black_men ^ on_row_1;
        const Split& s = splits_[draughts::popcount(on_row_1)];
        return s.offset +
               (combination::rank(on_row_1, row_1) * s.middle_placements + combination::rank(in_middle, middle)) *
                   s.white_placements +
               combination::rank(white_men, white_area & ~in_middle);
    }

    // The men of configuration `men` < men_configurations(), no kings, White to move.
    Position unrank_men(std::uint64_t men) const noexcept {
        // Without branches: the offsets of the splits before the first are 0
        // and of those after the last the largest number.
        int j = 0;
        for (int t = 1; t <= geometry::half; ++t) j += men >= splits_[t].offset;
        const Split& s = splits_[j];
        const std::uint64_t r = men - s.offset;
        const std::uint64_t black = r / s.white_divider;
        const std::uint64_t white = r - black * s.white_placements;
        const std::uint64_t on_row_1 = black / s.middle_divider;
        const std::uint64_t in_middle = black - on_row_1 * s.middle_placements;
        const Bitboard black_middle = combination::unrank(in_middle, material_.black_men - j, middle);
        Position p;
        p.black = combination::unrank(on_row_1, j, row_1) | black_middle;
        p.white = combination::unrank(white, material_.white_men, white_area & ~black_middle);
        return p;
    }

    // The king placement of p among those of its men configuration, 0..king_placements()-1.
    std::uint64_t rank_kings(const Position& p) const noexcept {
        return rank_kings(p.kings_of(draughts::Color::white), p.kings_of(draughts::Color::black),
                          geometry::board & ~(p.occupied() & ~p.kings));
    }
    // The same for kings `white_kings` and `black_kings` among `free`, the squares the men leave.
    std::uint64_t rank_kings(Bitboard white_kings, Bitboard black_kings, Bitboard free) const noexcept {
        return combination::rank(white_kings, free) * black_king_placements_ +
               combination::rank(black_kings, free & ~white_kings);
    }

    // The king placements of one men configuration in rank order, from a
    // given one on: each from the one before (the next set of as many
    // squares in colexicographic order, which is rank order, is a few bit
    // operations), instead of unranked.
    class KingCursor {
    public:
        // From placement `kings` of the men of `men` (no kings).
        KingCursor(const Index& index, const Position& men, std::uint64_t kings) noexcept
            : free_(geometry::board & ~men.occupied()),
              white_count_(index.material_.white_kings),
              black_count_(index.material_.black_kings),
              black_end_(Bitboard{1} << (draughts::popcount(free_) - white_count_)) {
            const std::uint64_t white = kings / index.black_king_divider_;
            white_ = combination::unrank_compressed<Bitboard>(white, white_count_);
            black_ = combination::unrank_compressed<Bitboard>(kings - white * index.black_king_placements_, black_count_);
            place();
        }
        Bitboard white_kings() const noexcept { return white_kings_; }
        Bitboard black_kings() const noexcept { return black_kings_; }
        // To the next placement; the caller stops at the last.
        [[gnu::always_inline]] void next() noexcept {
            if (black_count_ > 0) {
                black_ = combination::next_compressed(black_);
                if (black_ < black_end_) {
                    black_kings_ = draughts::deposit_bits(black_, free_ & ~white_kings_);
                    return;
                }
            }
            black_ = (Bitboard{1} << black_count_) - 1;
            white_ = combination::next_compressed(white_);
            place();
        }

    private:
        [[gnu::always_inline]] void place() noexcept {
            white_kings_ = draughts::deposit_bits(white_, free_);
            black_kings_ = draughts::deposit_bits(black_, free_ & ~white_kings_);
        }
        Bitboard free_;
        int white_count_, black_count_;
        Bitboard black_end_;
        Bitboard white_ = 0, black_ = 0;  // compressed: positions among the squares available
        Bitboard white_kings_ = 0, black_kings_ = 0;
    };

    // rank_kings(q.flipped()) for a position q of the mirrored material with
    // kings `white_kings` and `black_kings` and empty squares besides them
    // `free` (the squares its men leave), without turning q round: the
    // solver's exits and predecessors cross between the two halves of a pair.
    std::uint64_t rank_kings_turned(Bitboard white_kings, Bitboard black_kings, Bitboard free) const noexcept {
        // Turned round, q's black kings are White's and are ranked first.
        return combination::rank_reversed(black_kings, free) * black_king_placements_ +
               combination::rank_reversed(white_kings, free & ~black_kings);
    }

    // rank_kings_turned(white_kings, black_kings with the king on `from`
    // moved to `to`, free) for the moves of one position's black kings (the
    // solver's predecessors): each group's pieces are placed once.
    class BlackKingMovesTurned {
    public:
        BlackKingMovesTurned(const Index& index, Bitboard white_kings, Bitboard black_kings, Bitboard free) noexcept
            : black_(black_kings, free), white_(white_kings, free & ~black_kings), stride_(index.black_king_placements_) {}
        std::uint64_t rank(int from, int to) noexcept { return black_.rank(from, to) * stride_ + white_.rank(from, to); }

    private:
        combination::MovedRanks<Bitboard> black_;
        combination::RankBesideMove<Bitboard> white_;
        std::uint64_t stride_;
    };

    // Adds the kings of placement `kings` to the men of p (which has no kings).
    void unrank_kings(std::uint64_t kings, Position& p) const noexcept {
        const std::uint64_t white = kings / black_king_divider_;
        const std::uint64_t black = kings - white * black_king_placements_;
        const Bitboard free = geometry::board & ~p.occupied();
        const Bitboard white_kings = combination::unrank(white, material_.white_kings, free);
        const Bitboard black_kings = combination::unrank(black, material_.black_kings, free & ~white_kings);
        p.white |= white_kings;
        p.black |= black_kings;
        p.kings = white_kings | black_kings;
    }

private:
    static constexpr Bitboard row_1 = geometry::row_mask(0);
    static constexpr Bitboard middle = geometry::board & ~row_1 & ~geometry::row_mask(N - 1);
    static constexpr Bitboard white_area = geometry::board & ~row_1;
    // The same sets turned round (middle is its own).
    static constexpr Bitboard last_row = geometry::row_mask(N - 1);
    static constexpr Bitboard turned_white_area = geometry::board & ~last_row;

    // Men configurations with j of Black's men on row 1.
    struct Split {
        std::uint64_t offset = 0;
        std::uint64_t middle_placements = 1;  // Black's other men in the middle rows
        std::uint64_t white_placements = 1;   // White's men among the squares left
        Divisor middle_divider;
        Divisor white_divider;
    };

    Material material_;
    std::uint64_t size_ = 0;
    std::uint64_t men_configurations_ = 0;
    std::uint64_t king_placements_ = 1;
    std::uint64_t black_king_placements_ = 1;
    Divisor king_divider_;
    Divisor black_king_divider_;
    std::array<Split, geometry::half + 1> splits_{};
};

// The material a placement holds.
template <int N>
Material material_of(const draughts::Position<N>& p) noexcept {
    using draughts::Color, draughts::popcount;
    return {popcount(p.men(Color::white)), popcount(p.kings_of(Color::white)), popcount(p.men(Color::black)),
            popcount(p.kings_of(Color::black))};
}

// Pieces on dark squares only, no square taken twice, kings among the pieces,
// and no man on its own promotion row.
template <int N>
bool legal_placement(const draughts::Position<N>& p) noexcept {
    using G = draughts::Geometry<N>;
    using draughts::Color;
    return ((p.white | p.black) & ~G::board) == 0 && (p.white & p.black) == 0 && (p.kings & ~p.occupied()) == 0 &&
           (p.men(Color::white) & G::promotion_row(Color::white)) == 0 &&
           (p.men(Color::black) & G::promotion_row(Color::black)) == 0;
}

// Where a position lives: a material with White to move and an index in it.
// A position with Black to move is turned round (docs/design.md, "Materials, index, symmetry"): it becomes
// the flipped position, White to move, in the mirrored material. The tables
// of a canonical material M hold both halves: M itself (White to move in M)
// and M.mirrored() (Black to move in M).
struct Address {
    Material material;
    std::uint64_t index = 0;
    friend bool operator==(const Address&, const Address&) = default;
};

// The position with White to move that has the same value: p itself, or p
// flipped if Black is to move. Applying it to a flipped position gives the
// original back (flipped() is an involution).
template <int N>
constexpr draughts::Position<N> white_to_move(const draughts::Position<N>& p) noexcept {
    return p.side_to_move == draughts::Color::white ? p : p.flipped();
}

// Position g of the table of canonical material M (docs/format.md,
// "Positions"), White to move: M's own positions first, then its mirror's
// (M with Black to move, turned round).
template <int N>
draughts::Position<N> table_position(const Index<N>& own, const Index<N>& mirror, std::uint64_t g) {
    return g < own.size() ? own.unrank(g) : mirror.unrank(g - own.size());
}

// Where position g of the table of M lies in a .wld in placement order
// (TableHeader::paired(), docs/format.md "Positions"): 2i + s for placement i
// of M with side s to move. A position of the second half, White to move in
// M', is M with Black to move turned round: its placement is the rank in M
// of the board turned back.
template <int N>
std::uint64_t paired_position(const Index<N>& own, const Index<N>& mirror, std::uint64_t g) noexcept {
    return g < own.size() ? 2 * g : 2 * own.rank_turned(mirror.unrank(g - own.size())) + 1;
}

// paired_position() of table positions g, g + 1, ..., one for each entry of
// `out`: a men configuration of the second half is unranked and ranked
// turned once, and its kings walked (Index::KingCursor), instead of every
// position unranked and ranked whole. The writer of a paired .wld places
// every position of the table this way.
template <int N>
void paired_positions(const Index<N>& own, const Index<N>& mirror, std::uint64_t g,
                      std::span<std::uint64_t> out) noexcept {
    std::size_t k = 0;
    for (; k < out.size() && g + k < own.size(); ++k) out[k] = 2 * (g + k);
    const std::uint64_t kings = mirror.king_placements();  // as many as own's
    while (k < out.size()) {
        const std::uint64_t i = g + k - own.size(), men = i / kings, first = i - men * kings;
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(out.size() - k, kings - first));
        const draughts::Position<N> q = mirror.unrank_men(men);
        const auto free = Index<N>::geometry::board & ~q.occupied();
        const std::uint64_t placed = own.rank_men_turned(q.white, q.black) * kings;
        typename Index<N>::KingCursor cursor(mirror, q, first);
        for (std::size_t j = 0; j < n; ++j) {
            if (j > 0) cursor.next();
            out[k + j] = 2 * (placed + own.rank_kings_turned(cursor.white_kings(), cursor.black_kings(), free)) + 1;
        }
        k += n;
    }
}

// The table position g of position w of a .wld in placement order.
template <int N>
std::uint64_t unpaired_position(const Index<N>& own, const Index<N>& mirror, std::uint64_t w) noexcept {
    return w % 2 == 0 ? w / 2 : own.size() + mirror.rank_turned(own.unrank(w / 2));
}

// The address of a legal placement with either side to move. Builds the
// Index each call: callers that probe often keep their Index objects.
template <int N>
Address address_of(const draughts::Position<N>& p) {
    const draughts::Position<N> q = white_to_move(p);
    const Material m = material_of(q);
    return {m, Index<N>(m).rank(q)};
}

}  // namespace dtb
