// Probes under the move-count draw rules on real tables (issue 19): warm
// probes per second on one thread of the plain win/draw/loss (.wld), the
// DTW (.dtw), the rule distance with the count from zero (.rul, one byte),
// and the full value under the rules at a count (the .rul and the .dtw),
// over random positions of a material without a capture. The cache holds
// every block touched (a warm engine's case).
//
//   rule_probe_bench VARIANT DIR MATERIAL [POSITIONS]
#include <cstdlib>
#include <vector>

#include <fmt/core.h>

#include "bench/machine.hpp"
#include "bench/positions.hpp"
#include "draughts/variant.hpp"
#include "probe/rule_prober.hpp"

namespace {

using namespace dtb;

template <class V>
int run(const char* dir, const Material& m, std::size_t count) {
    const auto positions = bench::quiet_positions<V>(m, count);
    const Prober<V> prober(dir, std::size_t{4} << 30);
    const RuleProber<V> rules(prober);
    const RuleCounts counts{std::nullopt, std::nullopt, std::nullopt};
    long sum = 0;
    const auto rate = [&](auto&& probe) {
        for (const auto& p : positions) sum += probe(p);  // warm the cache
        const double s = bench::best_seconds(3, [&] {
            for (const auto& p : positions) sum += probe(p);
        });
        return static_cast<double>(positions.size()) / s / 1e6;
    };
    const double wdl = rate([&](const auto& p) { return static_cast<int>(prober.wdl(p)); });
    const double dtw = rate([&](const auto& p) { return prober.value(p).plies; });
    const double rule = rate([&](const auto& p) { return rules.distance(p).plies; });
    const double full = rate([&](const auto& p) { return rules.value(p, counts).plies_left; });
    fmt::print("{} {} ({} positions, warm, one thread): million probes a second: .wld {:.2f}, .dtw {:.2f}, "
               ".rul distance {:.2f}, value under the rules (.rul and .dtw) {:.2f}  [{}]\n",
               V::name, m.name(), positions.size(), wdl, dtw, rule, full, sum % 10);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        fmt::print(stderr, "usage: rule_probe_bench VARIANT DIR MATERIAL [POSITIONS]\n");
        return 2;
    }
    const std::size_t count = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1000000;
    return draughts::with_variant(argv[1], [&]<class V>() { return run<V>(argv[2], Material::parse(argv[3]), count); });
}
