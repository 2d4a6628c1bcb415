// `dtb perft`: the number of move sequences of a given depth from a position,
// the count of the rules' own published tests (docs/rules.md).
#include <chrono>
#include <cstdio>
#include <string>

#include <fmt/core.h>

#include "cli/commands.hpp"
#include "draughts/notation.hpp"
#include "draughts/perft.hpp"
#include "draughts/variant.hpp"

namespace dtb::cli {

namespace {

template <class V>
void perft_in(const PerftOptions& o) {
    using namespace draughts;
    const auto position = o.fen.empty() ? start_position<V>() : parse_fen<V::board_size>(o.fen);
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t leaves = 0;
    if (o.divide) {
        for (const auto& [move, count] : perft_divide<V>(position, o.depth)) {
            fmt::print("{} {}\n", move_to_text<V>(position, move), count);
            leaves += count;
        }
    } else {
        leaves = perft<V>(position, o.depth);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print(stderr, "{} perft depth {} from {}: {} leaves in {:.3f} s ({:.1f} million leaves/s)\n", V::name,
               o.depth, o.fen.empty() ? "the start position" : to_fen(position), leaves, seconds,
               seconds > 0 ? leaves / seconds / 1e6 : 0.0);
    fmt::print("{}\n", leaves);
}

}  // namespace

void run_perft(const PerftOptions& o) {
    draughts::with_variant(o.variant, [&]<class V>() { perft_in<V>(o); });
}

}  // namespace dtb::cli
