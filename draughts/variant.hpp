// The rules of each variant as compile-time data (docs/design.md, "The game layer"). Hot code is
// templated on a Variant; with_variant() turns a name into a type once, at the
// top of a program.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "draughts/draw_rules.hpp"
#include "draughts/geometry.hpp"

namespace draughts {

// What happens when a man reaches its promotion row in the middle of a capture.
enum class PromotionInCapture {
    only_if_move_ends_there,  // it continues as a man and is crowned only if it stops there
    ends_move,                // the move ends and the man is crowned
    continues_as_king,        // it is crowned at once and captures on as a king
};

// American (English) checkers, WCDF rules.
struct AmericanRules {
    static constexpr bool flying_kings = false;          // kings move and jump one square
    static constexpr bool men_capture_backward = false;  // men jump forward only
    static constexpr bool maximum_capture = false;       // any capture sequence may be chosen
    static constexpr PromotionInCapture promotion = PromotionInCapture::ends_move;
    static constexpr Color first_to_move = Color::black;  // Black moves first
    using draw_rules = AmericanDrawRules;
};

// FMJD rules: International (10x10), and the same on 8x8 (Brazilian) and 12x12 (Canadian).
struct InternationalRules {
    static constexpr bool flying_kings = true;          // kings move and capture at any distance
    static constexpr bool men_capture_backward = true;  // men capture forwards and backwards
    static constexpr bool maximum_capture = true;       // the sequence taking most pieces is compulsory
    static constexpr PromotionInCapture promotion = PromotionInCapture::only_if_move_ends_there;
    static constexpr Color first_to_move = Color::white;
    using draw_rules = FmjdDrawRules;
};

// Russian draughts (shashki).
struct RussianRules {
    static constexpr bool flying_kings = true;
    static constexpr bool men_capture_backward = true;
    static constexpr bool maximum_capture = false;  // free choice among captures
    static constexpr PromotionInCapture promotion = PromotionInCapture::continues_as_king;
    static constexpr Color first_to_move = Color::white;
    using draw_rules = RussianDrawRules;
};

// Draw is the move-count draw rules (draw_rules.hpp), by default those of the rules.
template <class Rules, int N, class Draw = typename Rules::draw_rules>
struct Variant : Rules {
    using rules = Rules;
    using draw_rules = Draw;
    using geometry = Geometry<N>;
    using Bitboard = typename geometry::Bitboard;
    static constexpr int board_size = N;
    // Rows of men each side has at the start: 3 on 8x8, 4 on 10x10, 5 on 12x12.
    static constexpr int start_rows = N / 2 - 1;
};

struct American : Variant<AmericanRules, 8> { static constexpr std::string_view name = "american"; };
struct Brazilian : Variant<InternationalRules, 8, CbdDrawRules> { static constexpr std::string_view name = "brazilian"; };
struct International : Variant<InternationalRules, 10> { static constexpr std::string_view name = "international"; };
struct Canadian : Variant<InternationalRules, 12> { static constexpr std::string_view name = "canadian"; };
struct Russian : Variant<RussianRules, 8> { static constexpr std::string_view name = "russian"; };

// Small boards for tests: the same rules on 6x6.
struct International6 : Variant<InternationalRules, 6> { static constexpr std::string_view name = "international6"; };
struct American6 : Variant<AmericanRules, 6> { static constexpr std::string_view name = "american6"; };
struct Russian6 : Variant<RussianRules, 6> { static constexpr std::string_view name = "russian6"; };
struct Brazilian6 : Variant<InternationalRules, 6, CbdDrawRules> { static constexpr std::string_view name = "brazilian6"; };

class UnknownVariant : public std::invalid_argument {
public:
    explicit UnknownVariant(std::string_view name)
        : std::invalid_argument("unknown variant '" + std::string(name) +
                                "': use one of american (or english, checkers), brazilian, "
                                "international, canadian, russian") {}
};

namespace detail {
template <bool test_boards, class F>
decltype(auto) with_variant(std::string_view name, F&& f) {
    if (name == "american" || name == "english" || name == "checkers")
        return std::forward<F>(f).template operator()<American>();
    if (name == "brazilian") return std::forward<F>(f).template operator()<Brazilian>();
    if (name == "international") return std::forward<F>(f).template operator()<International>();
    if (name == "canadian") return std::forward<F>(f).template operator()<Canadian>();
    if (name == "russian") return std::forward<F>(f).template operator()<Russian>();
    if constexpr (test_boards) {
        if (name == "international6") return std::forward<F>(f).template operator()<International6>();
        if (name == "american6") return std::forward<F>(f).template operator()<American6>();
    }
    throw UnknownVariant(name);
}
}  // namespace detail

// Calls f.template operator()<V>() for the variant named `name` and returns its result.
// Accepts the aliases english and checkers for american. f is compiled for the five
// variants only: the 6x6 test boards cost a caller two more copies of its code.
template <class F>
decltype(auto) with_variant(std::string_view name, F&& f) {
    return detail::with_variant<false>(name, std::forward<F>(f));
}

// As with_variant, and also the 6x6 test boards international6 and american6: for the
// table header's board size, which the tests' tables of those boards carry.
template <class F>
decltype(auto) with_variant_or_test_board(std::string_view name, F&& f) {
    return detail::with_variant<true>(name, std::forward<F>(f));
}

}  // namespace draughts
