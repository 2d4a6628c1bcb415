// A brute-force solver for small materials, written apart from dtb's own
// code so that its values are an independent check: no retrograde moves, no
// potential levels, no queue. It plays every move of every position and
// settles values in order of distance:
//   - a position without a legal move is lost in 0;
//   - at round n (n = 1, 2, ...), an unsettled position is won in n (n odd)
//     if a move leads to a position lost in n - 1, and lost in n (n even) if
//     every move leads to a settled win and the longest is n - 1;
//   - whatever is never settled is a draw.
// Positions after a capture or promotion (other materials) are solved first.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "draughts/movegen.hpp"
#include "probe/index.hpp"
#include "tests/probe/synthetic_tables.hpp"

namespace dtb::test {

template <class V>
class BruteForce {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;

    // Solves the canonical materials of `targets` and all they lead to.
    explicit BruteForce(const std::vector<Material>& targets) {
        for (const Material& m : build_order(targets)) solve(m);
    }

    // The value of any position of a solved material, either side to move.
    Score score(const Position& p) const {
        if (p.pieces(p.side_to_move) == 0) return {-1, 0};
        const Position q = p.side_to_move == draughts::Color::white ? p : p.flipped();
        const Material m = material_of(q);
        const auto& [index, values] = solved_.at(key(m));
        return values[index.rank(q)];
    }

    // The DTW code (0 draw, plies + 1) of file position g of canonical material c.
    std::uint32_t code(const Material& c, std::uint64_t g) const {
        const Index<N> own(c), mirror(c.mirrored());
        const Score s = score(position_of(own, mirror, g));
        return s.wdl == 0 ? 0 : static_cast<std::uint32_t>(s.plies) + 1;
    }

private:
    static std::uint64_t key(const Material& m) {
        return static_cast<std::uint64_t>(m.white_men) << 48 | static_cast<std::uint64_t>(m.white_kings) << 32 |
               static_cast<std::uint64_t>(m.black_men) << 16 | static_cast<std::uint64_t>(m.black_kings);
    }

    // Solves the canonical material c: its positions with White to move, and
    // those of its mirror (c with Black to move, turned round), together.
    void solve(const Material& c) {
        std::vector<Material> sides = {c};
        if (c.mirrored() != c) sides.push_back(c.mirrored());
        constexpr Score unsettled{-2, 0};
        for (const Material& m : sides) {
            const Index<N> index(m);
            solved_.emplace(key(m), std::pair{index, std::vector<Score>(index.size(), unsettled)});
        }
        // Every position's children once: (material key, index) or a value
        // already known (another material, or no pieces left).
        struct Child {
            std::uint64_t material;  // 0 when `known` holds the value
            std::uint64_t index;
            Score known;
        };
        std::map<std::uint64_t, std::vector<std::vector<Child>>> children;
        int longest_known = 0;
        for (const Material& m : sides) {
            const auto& [index, values] = solved_.at(key(m));
            auto& lists = children[key(m)];
            lists.resize(index.size());
            for (std::uint64_t i = 0; i < index.size(); ++i) {
                const Position q = index.unrank(i);
                draughts::MoveList<N> moves;
                draughts::generate_moves<V>(q, moves);
                for (const auto& move : moves) {
                    Position child = q;
                    draughts::make_move(child, move);
                    const Position w = child.flipped();  // the opponent to move, turned round: White to move
                    const Material cm = material_of(w);
                    if (child.pieces(child.side_to_move) == 0) {
                        lists[i].push_back({0, 0, {-1, 0}});
                    } else if (solved_.count(key(cm)) && (key(cm) == key(c) || key(cm) == key(c.mirrored()))) {
                        lists[i].push_back({key(cm), solved_.at(key(cm)).first.rank(w), {}});
                    } else {
                        const Score s = score(child);
                        longest_known = std::max(longest_known, s.plies);
                        lists[i].push_back({0, 0, s});
                    }
                }
            }
        }
        auto value_of = [&](const Child& ch) {
            return ch.material == 0 ? ch.known : solved_.at(ch.material).second[ch.index];
        };
        int quiet_rounds = 0;
        for (int n = 0; quiet_rounds < 2 || n <= longest_known + 2; ++n) {
            std::vector<std::pair<Score*, Score>> settled;
            for (const Material& m : sides) {
                auto& values = solved_.at(key(m)).second;
                const auto& lists = children.at(key(m));
                for (std::uint64_t i = 0; i < values.size(); ++i) {
                    if (values[i].wdl != -2) continue;
                    bool win = false, all_wins = true;
                    int longest = 0;
                    for (const Child& ch : lists[i]) {
                        const Score s = value_of(ch);
                        if (s.wdl == -1 && s.plies == n - 1) win = true;
                        if (s.wdl != 1) all_wins = false;
                        longest = std::max(longest, s.plies);
                    }
                    if (n % 2 == 1 && win) settled.push_back({&values[i], {1, n}});
                    if (n % 2 == 0 && all_wins && (lists[i].empty() ? n == 0 : longest == n - 1))
                        settled.push_back({&values[i], {-1, n}});
                }
            }
            // Applied after the round, so that a round sees only shorter distances.
            for (auto& [at, s] : settled) *at = s;
            quiet_rounds = settled.empty() ? quiet_rounds + 1 : 0;
        }
        for (const Material& m : sides)
            for (Score& s : solved_.at(key(m)).second)
                if (s.wdl == -2) s = {0, 0};
    }

    std::map<std::uint64_t, std::pair<Index<N>, std::vector<Score>>> solved_;
};

// Writes the tables of `targets` and every material they lead to into
// DIR/VARIANT with the values of `truth` (blocks of 2^10 positions), as the
// builder's writer writes them: capture positions left to the writer; the
// .dtw (and .rul) of `dtw_version`, the .wld of `wld_version`.
template <class V>
void write_true_tables(const BruteForce<V>& truth, const std::vector<Material>& targets,
                       const std::filesystem::path& dir, std::uint32_t dtw_version = 2,
                       std::uint32_t wld_version = 3) {
    const auto tables = dir / std::string(V::name);
    std::filesystem::create_directories(tables);
    for (const Material& c : build_order(targets)) {
        const Index<V::board_size> own(c), mirror(c.mirrored());
        TableSpec spec = test_table_spec<V>(c, 10);
        spec.dtw_version = dtw_version;
        spec.wld_version = wld_version;
        write_tables(tables, spec, [&](std::uint64_t first, std::span<std::uint32_t> out) {
            for (std::size_t i = 0; i < out.size(); ++i) {
                const auto q = position_of(own, mirror, first + i);
                out[i] = draughts::has_capture<V>(q) ? dont_care : truth.code(c, first + i);
            }
        });
    }
}

}  // namespace dtb::test
