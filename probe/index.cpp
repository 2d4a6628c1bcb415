#include "probe/index.hpp"

#include <algorithm>
#include <string>

namespace dtb {

namespace {

using draughts::u128;
constexpr u128 too_many = ~u128{0};

u128 times(u128 a, u128 b) noexcept {
    u128 product;
    return __builtin_mul_overflow(a, b, &product) ? too_many : product;
}

u128 plus(u128 a, u128 b) noexcept { return a > too_many - b ? too_many : a + b; }

// Men configurations with j of Black's men on White's promotion row (see index.hpp).
u128 men_with_split(const Material& m, int board_size, int j) noexcept {
    const int half = board_size / 2, squares = board_size * half, middle = squares - 2 * half;
    const int black_middle = m.black_men - j;
    return times(times(combination::binomial_exact(half, j), combination::binomial_exact(middle, black_middle)),
                 combination::binomial_exact(squares - half - black_middle, m.white_men));
}

u128 king_placement_count(const Material& m, int board_size) noexcept {
    const int empty = board_size * board_size / 2 - m.men();
    return times(combination::binomial_exact(empty, m.white_kings),
                 combination::binomial_exact(empty - m.white_kings, m.black_kings));
}

void check_counts(const Material& m) {
    if (m.white_men < 0 || m.white_kings < 0 || m.black_men < 0 || m.black_kings < 0)
        throw MaterialError("material with a negative piece count");
}

}  // namespace

u128 placement_count(const Material& m, int board_size) {
    check_counts(m);
    u128 men = 0;
    for (int j = 0; j <= std::min(m.black_men, board_size / 2); ++j) men = plus(men, men_with_split(m, board_size, j));
    return times(men, king_placement_count(m, board_size));
}

template <int N>
Index<N>::Index(const Material& material) : material_(material) {
    if (placement_count(material, N) > max_index_size)
        throw IndexError("material " + material.name() + " has 2^64 or more placements on a " + std::to_string(N) +
                         "x" + std::to_string(N) + " board: it is beyond the 64-bit index (docs/design.md, \"Index\")");
    // Every product below is a factor of the total, which fits.
    // Splits without a configuration (too few of Black's men on row 1, a
    // first run of j; or more than Black has, after the last) keep offset 0
    // before and get the largest offset after, as unrank_men expects.
    std::uint64_t offset = 0;
    for (int j = 0; j <= geometry::half; ++j) {
        Split& s = splits_[j];
        const auto count = j <= material.black_men ? static_cast<std::uint64_t>(men_with_split(material, N, j)) : 0;
        if (count == 0) {
            s.offset = offset == 0 ? 0 : ~std::uint64_t{0};
            continue;
        }
        s.offset = offset;
        s.middle_placements = combination::binomial(geometry::squares - 2 * geometry::half, material.black_men - j);
        s.white_placements =
            combination::binomial(geometry::squares - geometry::half - (material.black_men - j), material.white_men);
        s.middle_divider = Divisor(s.middle_placements);
        s.white_divider = Divisor(s.white_placements);
        offset += count;
    }
    men_configurations_ = offset;
    king_placements_ = static_cast<std::uint64_t>(king_placement_count(material, N));
    const int empty = geometry::squares - material.men();
    black_king_placements_ = combination::binomial(empty - material.white_kings, material.black_kings);
    size_ = men_configurations_ * king_placements_;
    if (size_ > 0) {
        king_divider_ = Divisor(king_placements_);
        black_king_divider_ = Divisor(black_king_placements_);
    }
}

template class Index<6>;
template class Index<8>;
template class Index<10>;
template class Index<12>;

}  // namespace dtb
