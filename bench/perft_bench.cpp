// Perft benchmark: leaves per second from each variant's start position, one
// thread, bulk counting (the last ply counted, not played). Best of a few runs.
//
//   perft_bench [--quick]     --quick: shallower depths, for a smoke run
#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include <fmt/core.h>

#include "bench/machine.hpp"
#include "draughts/perft.hpp"

namespace {

template <class V>
void run(int depth, int runs) {
    using namespace draughts;
    const auto start = start_position<V>();
    double best = 1e300;
    std::uint64_t leaves = 0;
    for (int r = 0; r < runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        leaves = perft<V>(start, depth);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    fmt::print("{:<14} depth {:>2}  {:>12} leaves  {:7.3f} s  {:6.1f} million leaves/s\n", V::name, depth, leaves,
               best, leaves / best / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const int runs = quick ? 1 : 5;
    const int less = quick ? 3 : 0;
    fmt::print("perft, start positions, one thread, bulk counting, best of {} runs\nmachine: {}\n", runs,
               bench::cpu_model());
    run<draughts::International>(9 - less, runs);
    run<draughts::Canadian>(8 - less, runs);
    run<draughts::American>(11 - less, runs);
    run<draughts::Brazilian>(10 - less, runs);
    run<draughts::Russian>(10 - less, runs);
}
