#include "probe/potential.hpp"

namespace dtb {

template <int N>
PotentialLevels<N>::PotentialLevels(const Material& m)
    : white_men_(m.white_men), black_men_(m.black_men), max_potential_((m.white_men + m.black_men) * (N - 2)) {
    if (m.white_men < 0 || m.black_men < 0) throw MaterialError("material with a negative piece count");
    const int squares = geometry::squares;
    const std::size_t per_square =
        static_cast<std::size_t>(white_men_ + 1) * (black_men_ + 1) * (max_potential_ + 1);
    ways_.assign((squares + 1) * per_square, 0);
    auto at = [&](int square, int white, int black, int p) -> std::uint64_t& {
        return ways_[slot(square, white, black, p)];
    };
    auto add = [](std::uint64_t a, std::uint64_t b) { return a > ~std::uint64_t{0} - b ? ~std::uint64_t{0} : a + b; };
    at(squares, 0, 0, 0) = 1;
    for (int s = squares - 1; s >= 0; --s) {
        const int row = geometry::row_of_square(s);
        const int up = advancement<N>(draughts::Color::white, s), down = advancement<N>(draughts::Color::black, s);
        for (int w = 0; w <= white_men_; ++w)
            for (int b = 0; b <= black_men_; ++b)
                for (int p = 0; p <= max_potential_; ++p) {
                    std::uint64_t n = at(s + 1, w, b, p);
                    if (w > 0 && row != 0 && p >= up) n = add(n, at(s + 1, w - 1, b, p - up));
                    if (b > 0 && row != N - 1 && p >= down) n = add(n, at(s + 1, w, b - 1, p - down));
                    at(s, w, b, p) = n;
                }
    }
    for (int p = max_potential_; p >= 0; --p)
        if (const std::uint64_t n = ways(0, white_men_, black_men_, p)) levels_.push_back({p, n});
}

template class PotentialLevels<6>;
template class PotentialLevels<8>;
template class PotentialLevels<10>;
template class PotentialLevels<12>;

}  // namespace dtb
