// What a probe would pay for a value the table does not store (issue 15):
// on real tables, random positions without a capture for the side to move
// (bench/positions.hpp), the time of a probe that reads its value (`wdl`,
// `value`) against one that finds it by a one-ply search over its moves,
// each child probed as usual. Also the share of those positions where the
// side not to move has a capture: a table that left them to the coder would
// have to search them.
//
//     search_study VARIANT DIR MATERIAL [COUNT]
//
// Not a test: it measures.
#include <cstdio>
#include <string>

#include "bench/machine.hpp"
#include "bench/positions.hpp"
#include "draughts/variant.hpp"
#include "probe/prober.hpp"

using namespace dtb;

namespace {

template <class V>
void run(const std::filesystem::path& dir, const Material& m, std::size_t count) {
    constexpr int N = V::board_size;
    const auto positions = bench::quiet_positions<V>(m, count);
    const Prober<V> prober(dir, std::size_t{4} << 30);
    std::size_t threatened = 0;
    for (auto p : positions) {
        p.side_to_move = opposite(p.side_to_move);
        threatened += draughts::has_capture<V>(p);
    }
    std::uint64_t sum = 0;
    auto search_wdl = [&](const draughts::Position<N>& p) {
        draughts::MoveList<N> moves;
        draughts::generate_moves<V>(p, moves);
        return best_wdl_over_moves(p, moves, [&](const draughts::Position<N>& child) { return prober.wdl(child); });
    };
    auto search_value = [&](const draughts::Position<N>& p) {
        draughts::MoveList<N> moves;
        draughts::generate_moves<V>(p, moves);
        return best_over_moves(p, moves, [&](const draughts::Position<N>& child) { return prober.value(child); });
    };
    for (const auto& p : positions) sum += static_cast<int>(search_wdl(p)) + search_value(p).plies;  // warm up
    const double n = static_cast<double>(positions.size());
    const double wdl = bench::best_seconds(3, [&] {
        for (const auto& p : positions) sum += static_cast<int>(prober.wdl(p));
    });
    const double dtw = bench::best_seconds(3, [&] {
        for (const auto& p : positions) sum += prober.value(p).plies;
    });
    const double swdl = bench::best_seconds(3, [&] {
        for (const auto& p : positions) sum += static_cast<int>(search_wdl(p));
    });
    const double sdtw = bench::best_seconds(3, [&] {
        for (const auto& p : positions) sum += search_value(p).plies;
    });
    std::printf("%s %s: %zu positions, %.1f%% with a capture for the side not to move\n", V::name.data(),
                m.name().c_str(), positions.size(), 100.0 * threatened / n);
    std::printf("  wdl read %.0f ns, searched %.0f ns (%.1f times); dtw read %.0f ns, searched %.0f ns (%.1f times)\n",
                wdl / n * 1e9, swdl / n * 1e9, swdl / wdl, dtw / n * 1e9, sdtw / n * 1e9, sdtw / dtw);
    if (sum == 42) std::printf(" ");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: search_study VARIANT DIR MATERIAL [COUNT]\n");
        return 2;
    }
    const std::size_t count = argc > 4 ? std::stoull(argv[4]) : 200000;
    draughts::with_variant(argv[1], [&]<class V>() { run<V>(argv[2], Material::parse(argv[3]), count); });
}
