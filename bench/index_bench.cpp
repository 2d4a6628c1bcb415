// Index benchmark: ranks and unranks per second, one thread, at random indexes
// of 8-piece materials on 10x10 (issue 3's target: 50 million a second each),
// and of a few materials on the other boards for comparison. Best of a few runs.
//
//   index_bench [--quick]     --quick: fewer positions, one run
#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <vector>

#include <fmt/core.h>

#include "bench/machine.hpp"
#include "probe/index.hpp"

namespace {

using bench::best_seconds;

template <int N>
void run(const char* name, std::size_t count, int runs) {
    const dtb::Index<N> index(dtb::Material::parse(name));
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<std::uint64_t> any(0, index.size() - 1);
    std::vector<std::uint64_t> indexes(count);
    for (auto& i : indexes) i = any(rng);
    std::vector<draughts::Position<N>> positions(count);

    const double unrank = best_seconds(runs, [&] {
        for (std::size_t k = 0; k < count; ++k) positions[k] = index.unrank(indexes[k]);
    });
    std::uint64_t mismatches = 0;
    const double rank = best_seconds(runs, [&] {
        mismatches = 0;
        for (std::size_t k = 0; k < count; ++k) mismatches += index.rank(positions[k]) != indexes[k];
    });
    fmt::print("{:>2}x{:<2} {:<12} {:>22} positions  unrank {:6.1f} M/s  rank {:6.1f} M/s{}\n", N, N, name,
               index.size(), count / unrank / 1e6, count / rank / 1e6, mismatches ? "  MISMATCH" : "");
}

}  // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const std::size_t count = quick ? 100'000 : 4'000'000;
    const int runs = quick ? 1 : 5;
    fmt::print("index rank and unrank at random indexes, one thread, best of {} runs over {} positions\n"
               "machine: {}\n",
               runs, count, bench::cpu_model());
    for (const char* name : {"KKKKvKKKK", "KKKMvKKKM", "KKMMvKKMM", "KMMMvKMMM", "MMMMvMMMM", "KKKKKvKKK", "MMMMMvMMM"})
        run<10>(name, count, runs);
    for (const char* name : {"KKKKvKKKK", "KKMMvKKMM", "MMMMvMMMM"}) run<8>(name, count, runs);
    for (const char* name : {"KKKKvKKKK", "KKMMvKKMM", "MMMMvMMMM"}) run<12>(name, count, runs);
}
