// Materials (docs/design.md, "Materials, index, symmetry"): how many men and kings each side has. Named like
// tablebase files, White's pieces, 'v', Black's pieces, kings first: KKKvK, KMMvKM.
#pragma once

#include <compare>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dtb {

class MaterialError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

struct Material {
    int white_men = 0;
    int white_kings = 0;
    int black_men = 0;
    int black_kings = 0;

    // Reads a name such as KKMvK (K a king, M a man; kings may come in any order
    // on input). Both sides need at least one piece. Throws MaterialError.
    static Material parse(std::string_view name);
    std::string name() const;

    int white_pieces() const noexcept { return white_men + white_kings; }
    int black_pieces() const noexcept { return black_men + black_kings; }
    int pieces() const noexcept { return white_pieces() + black_pieces(); }
    int men() const noexcept { return white_men + black_men; }

    // The colours swapped: positions of this material with Black to move are
    // positions of the mirror with White to move, the board turned round.
    Material mirrored() const noexcept { return {black_men, black_kings, white_men, white_kings}; }
    // The form tables are stored under: the side with more pieces (then more
    // kings) is White. A material equal to its mirror is canonical.
    bool is_canonical() const noexcept;
    Material canonical() const noexcept { return is_canonical() ? *this : mirrored(); }

    friend auto operator<=>(const Material&, const Material&) = default;
};

// The four counts packed in 32 bits, a byte each (seven bits for Black's kings,
// so that no key is ~0): a key for lookups.
constexpr std::uint32_t material_key(const Material& m) noexcept {
    return static_cast<std::uint32_t>(m.white_men & 0xFF) | static_cast<std::uint32_t>(m.white_kings & 0xFF) << 8 |
           static_cast<std::uint32_t>(m.black_men & 0xFF) << 16 | static_cast<std::uint32_t>(m.black_kings & 0x7F) << 24;
}

// Every canonical material of exactly n pieces in which both sides have a piece.
std::vector<Material> canonical_materials(int pieces);

// The canonical materials one move of either side can lead to: captures of any
// number of the opponent's men and kings, with or without the mover's man
// being crowned, and quiet promotions. Materials where a side has no piece
// left are not listed: the rules decide those (the side without pieces lost).
std::vector<Material> successors(const Material& m);

// The canonical materials of `targets` and everything they lead to, ordered
// so that each comes after all the materials it leads to.
std::vector<Material> build_order(const std::vector<Material>& targets);

}  // namespace dtb
