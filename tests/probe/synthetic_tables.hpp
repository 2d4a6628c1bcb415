// Tables written from synthetic values, for the file-format and probe tests.
//
// The value of a position without a capture is a hash of the position itself
// (White to move: a Black-to-move position counts as its flip), not of its
// index, so a writer and a reader that disagreed on where a position lives
// would be caught. Values are mostly constant within a men configuration, with
// exceptions keyed by the kings' squares: small files, yet every position's
// value depends on it. Positions with a capture are written as don't-care;
// their expected value is searched here, with a minimax written apart from
// the probe's.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

#include "builder/output/table_writer.hpp"
#include "draughts/movegen.hpp"
#include "probe/index.hpp"
#include "probe/value.hpp"

namespace dtb::test {

inline std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 31;
    x *= 0x7FB5D329728EA185ULL;
    x ^= x >> 27;
    x *= 0x81DADEF4BC2DD44DULL;
    return x ^ (x >> 33);
}

template <class B>
std::uint64_t fold(B b) {
    if constexpr (sizeof(B) > 8)
        return mix(static_cast<std::uint64_t>(b) ^ mix(static_cast<std::uint64_t>(b >> 64)));
    else
        return mix(b);
}

// The stored code (dtw_code: 0 draw, plies + 1) of a position with White to
// move. Materials of 3 pieces reach codes above 255, so their .dtw tables are
// 16-bit; the others stay 8-bit.
template <int N>
std::uint32_t synthetic_code(const draughts::Position<N>& q) {
    const std::uint64_t men = fold(q.white & ~q.kings) ^ mix(fold(q.black & ~q.kings) + 1);
    std::uint64_t h = mix(men);
    if (q.kings && fold(q.kings & q.white) % 7 == 3) h = mix(h ^ fold(q.kings));
    const int pieces = draughts::popcount(q.white | q.black);
    const std::uint32_t range = pieces == 3 ? 600 : 250;
    return h % 4 == 0 ? 0 : 1 + static_cast<std::uint32_t>((h >> 2) % range);
}

// Score of a value, larger is better for the side to move: quick wins, then
// draws, then slow losses. A value for the opponent turns into one for the
// mover one ply further from the end.
struct Score {
    int wdl;    // 1, 0, -1
    int plies;  // 0 for a draw
    int rank() const { return wdl == 1 ? 1000000 - plies : wdl == -1 ? -1000000 + plies : 0; }
    Score for_mover() const { return {-wdl, wdl == 0 ? 0 : plies + 1}; }
};

inline Score score_of_code(std::uint32_t code) {
    if (code == 0) return {0, 0};
    const int plies = static_cast<int>(code) - 1;
    return {plies % 2 == 1 ? 1 : -1, plies};
}

// The value the tables must give for any position (either side to move).
template <class V>
Score expected_score(const draughts::Position<V::board_size>& p) {
    if (p.pieces(p.side_to_move) == 0) return {-1, 0};
    if (!draughts::has_capture<V>(p)) {
        const auto q = p.side_to_move == draughts::Color::white ? p : p.flipped();
        return score_of_code(synthetic_code(q));
    }
    draughts::MoveList<V::board_size> moves;
    draughts::generate_moves<V>(p, moves);
    Score best{-2, 0};
    for (const auto& m : moves) {
        auto child = p;
        draughts::make_move(child, m);
        const Score s = expected_score<V>(child).for_mover();
        if (best.wdl == -2 || s.rank() > best.rank()) best = s;
    }
    return best;
}

// The position of file position g of canonical material c (White to move).
template <int N>
draughts::Position<N> position_of(const Index<N>& own, const Index<N>& mirror, std::uint64_t g) {
    return table_position(own, mirror, g);
}

// The writer's spec for the tests' tables of canonical material c: small
// blocks, fast compression, a fixed provenance.
template <class V>
TableSpec test_table_spec(const Material& c, int block_shift) {
    TableSpec spec;
    spec.variant = std::string(V::name);
    spec.board_size = V::board_size;
    spec.material = c;
    spec.positions_per_side = Index<V::board_size>(c).size();
    spec.block_shift = block_shift;
    spec.wld_compression_level = spec.dtw_compression_level = 3;
    spec.provenance = R"({"tool":"dtb tests","date":"2026-01-01T00:00:00Z","options":"synthetic"})";
    return spec;
}

// Writes the synthetic .wld and .dtw tables of canonical material c into dir.
template <class V>
WrittenTables write_synthetic_tables(const std::filesystem::path& dir, const Material& c, int block_shift = 12) {
    constexpr int N = V::board_size;
    const Index<N> own(c), mirror(c.mirrored());
    TableSpec spec = test_table_spec<V>(c, block_shift);
    spec.dtw_version = 1;  // values that are not a game's: one side could not be found from the other
    spec.rul_version = 1;
    return write_tables(dir, spec, [&](std::uint64_t first, std::span<std::uint32_t> out) {
        for (std::size_t i = 0; i < out.size(); ++i) {
            const auto q = position_of(own, mirror, first + i);
            out[i] = draughts::has_capture<V>(q) ? dont_care : synthetic_code(q);
        }
    });
}

// The bytes of a file (empty if it cannot be read), to compare files.
inline std::string file_bytes(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// A fresh directory under the system's temporary folder, removed at the end.
class TemporaryDirectory {
public:
    explicit TemporaryDirectory(const std::string& name) {
        static std::atomic<int> counter{0};
        path_ = std::filesystem::temp_directory_path() /
                ("dtb-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TemporaryDirectory() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace dtb::test
