// The value of a position for the side to move (docs/design.md, "Values"): win, draw or
// loss, and the distance to the end in plies (DTW). How values combine over
// moves, and how the table files encode them (docs/format.md, "Values").
#pragma once

#include <cstdint>
#include <string>

namespace dtb {

enum class Wdl : std::int8_t { loss = -1, draw = 0, win = 1 };

// The value for the side that moved into a position of value `w`.
constexpr Wdl before_move(Wdl w) noexcept { return static_cast<Wdl>(-static_cast<int>(w)); }

struct Value {
    Wdl wdl = Wdl::draw;
    int plies = 0;  // odd for a win, even for a loss (0: no legal move), 0 for a draw

    static constexpr Value win(int plies) noexcept { return {Wdl::win, plies}; }
    static constexpr Value loss(int plies) noexcept { return {Wdl::loss, plies}; }
    static constexpr Value draw() noexcept { return {Wdl::draw, 0}; }

    friend constexpr bool operator==(const Value&, const Value&) = default;
};

// The value for the side that moved into a position of value `v`: one ply more.
constexpr Value before_move(Value v) noexcept {
    switch (v.wdl) {
        case Wdl::loss: return Value::win(v.plies + 1);
        case Wdl::win: return Value::loss(v.plies + 1);
        default: return Value::draw();
    }
}

// Whether the side to move prefers `a` to `b`: a win to a draw to a loss, the
// quicker win, the slower loss.
constexpr bool preferred(Value a, Value b) noexcept {
    if (a.wdl != b.wdl) return a.wdl > b.wdl;
    if (a.wdl == Wdl::win) return a.plies < b.plies;
    if (a.wdl == Wdl::loss) return a.plies > b.plies;
    return false;
}

// "win 11", "loss 8" or "draw": how dtb prints a value (docs/design.md, "Command line").
inline std::string to_string(Value v) {
    if (v.wdl == Wdl::draw) return "draw";
    return (v.wdl == Wdl::win ? "win " : "loss ") + std::to_string(v.plies);
}

// Table encodings (docs/format.md). `.wld`: 2 bits, 0 draw, 1 win, 2 loss,
// 3 never written. `.dtw`: 0 draw, plies + 1 otherwise, the parity telling
// win (even code) from loss (odd code).
inline constexpr unsigned wld_unwritten = 3;
inline constexpr std::uint32_t max_dtw_code = 65535;

constexpr unsigned wld_code(Wdl w) noexcept { return w == Wdl::draw ? 0 : w == Wdl::win ? 1 : 2; }
// `code` must be 0, 1 or 2.
constexpr Wdl wdl_of_wld_code(unsigned code) noexcept {
    return code == 0 ? Wdl::draw : code == 1 ? Wdl::win : Wdl::loss;
}

constexpr std::uint32_t dtw_code(Value v) noexcept {
    return v.wdl == Wdl::draw ? 0 : static_cast<std::uint32_t>(v.plies) + 1;
}
constexpr Value value_of_dtw_code(std::uint32_t code) noexcept {
    if (code == 0) return Value::draw();
    const int plies = static_cast<int>(code) - 1;
    return plies % 2 == 1 ? Value::win(plies) : Value::loss(plies);
}

}  // namespace dtb
