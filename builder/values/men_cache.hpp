// What was found for the men configurations last met: the captures and
// promotions of one block pair's positions lead to a few men configurations,
// so finding each child's table and ranking its men once per configuration,
// not once per child, leaves the rank of its kings (Successors::TurnedCodes,
// TeamTables::TurnedChildren).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "probe/index.hpp"

namespace dtb {

// `Target` for each of the last men configurations met (both sides' men and
// the number of kings of each side), 64 of them by a hash. One per thread.
// A Target has `index`, the Index of the material it is in (null: none).
template <class Bitboard, class Target>
class MenCache {
public:
    // For p, a position with Black to move (where a move of White's leads):
    // the target of its men configuration, found by find(key, white_men,
    // black_men) if it is not the one kept in its slot (key: the material
    // key of p turned round, whose table holds it); and unless the target's
    // index is null, the rank of p's kings turned round among the squares
    // its men leave.
    template <class Position, class Find>
    std::pair<const Target*, std::uint64_t> turned(const Position& p, Find&& find) {
        const Bitboard men = p.occupied() & ~p.kings;
        const Bitboard white_men = p.white & men, black_men = p.black & men;
        const Bitboard white_kings = p.white & p.kings, black_kings = p.black & p.kings;
        const int kings = draughts::popcount(white_kings) << 8 | draughts::popcount(black_kings);
        Slot& slot = slots_[slot_of(white_men, black_men, kings)];
        if (slot.white_men != white_men || slot.black_men != black_men || slot.kings != kings)
            slot = {white_men, black_men, kings, find(material_key(material_of(p).mirrored()), white_men, black_men)};
        const Target& t = slot.target;
        if (!t.index) return {&t, 0};
        return {&t, t.index->rank_kings_turned(white_kings, black_kings, Position::geometry::board & ~men)};
    }

private:
    struct Slot {
        Bitboard white_men = ~Bitboard{0}, black_men = ~Bitboard{0};
        int kings = -1;
        Target target{};
    };
    static constexpr int slot_bits = 6;
    static std::size_t slot_of(Bitboard white_men, Bitboard black_men, int kings) noexcept {
        std::uint64_t h = static_cast<std::uint64_t>(white_men) * 0x9E3779B97F4A7C15ULL ^
                          static_cast<std::uint64_t>(black_men) * 0xC2B2AE3D27D4EB4FULL ^
                          static_cast<std::uint64_t>(kings);
        if constexpr (sizeof(Bitboard) > 8)
            h ^= static_cast<std::uint64_t>(white_men >> 64) * 0x165667B19E3779F9ULL ^
                 static_cast<std::uint64_t>(black_men >> 64) * 0x27D4EB2F165667C5ULL;
        return static_cast<std::size_t>(h >> (64 - slot_bits));
    }
    std::array<Slot, std::size_t{1} << slot_bits> slots_{};
};

}  // namespace dtb
