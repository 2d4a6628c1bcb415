#include "probe/material.hpp"

#include <algorithm>
#include <set>

namespace dtb {

namespace {

struct Side {
    int men = 0;
    int kings = 0;
};

Side parse_side(std::string_view text, std::string_view name) {
    Side s;
    for (char c : text) {
        if (c == 'K' || c == 'k')
            ++s.kings;
        else if (c == 'M' || c == 'm')
            ++s.men;
        else
            throw MaterialError("material '" + std::string(name) + "': unexpected '" + std::string(1, c) +
                                "' (write White's pieces, 'v', Black's pieces with K for a king and M for a "
                                "man, as in KKMvK)");
    }
    if (s.men + s.kings == 0)
        throw MaterialError("material '" + std::string(name) +
                            "': each side needs at least one piece (a side without pieces has lost)");
    return s;
}

std::string side_name(int men, int kings) { return std::string(kings, 'K') + std::string(men, 'M'); }

}  // namespace

Material Material::parse(std::string_view name) {
    const auto v = name.find_first_of("vV");
    if (v == std::string_view::npos || name.find_first_of("vV", v + 1) != std::string_view::npos)
        throw MaterialError("material '" + std::string(name) +
                            "': expected one 'v' between White's and Black's pieces, as in KKKvK");
    const Side white = parse_side(name.substr(0, v), name);
    const Side black = parse_side(name.substr(v + 1), name);
    return {white.men, white.kings, black.men, black.kings};
}

std::string Material::name() const { return side_name(white_men, white_kings) + "v" + side_name(black_men, black_kings); }

bool Material::is_canonical() const noexcept {
    return std::pair(white_pieces(), white_kings) >= std::pair(black_pieces(), black_kings);
}

std::vector<Material> canonical_materials(int pieces) {
    std::vector<Material> result;
    for (int white = 1; white < pieces; ++white)
        for (int wk = 0; wk <= white; ++wk)
            for (int bk = 0; bk <= pieces - white; ++bk) {
                const Material m{white - wk, wk, pieces - white - bk, bk};
                if (m.is_canonical()) result.push_back(m);
            }
    std::sort(result.begin(), result.end());
    return result;
}

std::vector<Material> successors(const Material& m) {
    std::set<Material> result;
    // Moves of White; Black's moves are White's moves in the mirror.
    for (const Material& side : {m, m.mirrored()}) {
        for (int promoted = 0; promoted <= std::min(1, side.white_men); ++promoted)
            for (int men_taken = 0; men_taken <= side.black_men; ++men_taken)
                for (int kings_taken = 0; kings_taken <= side.black_kings; ++kings_taken) {
                    if (promoted + men_taken + kings_taken == 0) continue;
                    const Material next{side.white_men - promoted, side.white_kings + promoted,
                                        side.black_men - men_taken, side.black_kings - kings_taken};
                    if (next.black_pieces() > 0) result.insert(next.canonical());
                }
    }
    return {result.begin(), result.end()};
}

std::vector<Material> build_order(const std::vector<Material>& targets) {
    std::set<Material> all;
    std::vector<Material> pending;
    for (const auto& t : targets) pending.push_back(t.canonical());
    while (!pending.empty()) {
        const Material m = pending.back();
        pending.pop_back();
        if (!all.insert(m).second) continue;
        for (const auto& s : successors(m)) pending.push_back(s);
    }
    // A capture removes pieces and a promotion turns a man into a king, so
    // (pieces, men) falls along every edge: sorting by it is a valid order.
    std::vector<Material> order(all.begin(), all.end());
    std::stable_sort(order.begin(), order.end(), [](const Material& a, const Material& b) {
        return std::pair(a.pieces(), a.men()) < std::pair(b.pieces(), b.men());
    });
    return order;
}

}  // namespace dtb
