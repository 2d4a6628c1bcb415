// Probe benchmark (issue 4): probes per second per thread with a warm cache,
// and the latency of a probe that must decompress its block (cold cache).
// Tables are synthetic (tests/probe/synthetic_tables.hpp) with the writer's
// default block of 2^16 positions; real tables compress differently, the
// probe's work per position is the same.
//
//   probe_bench [--quick] [--threads T]
#include <atomic>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>

#include "bench/machine.hpp"
#include "bench/positions.hpp"
#include "draughts/variant.hpp"
#include "dtb.h"
#include "probe/prober.hpp"
#include "tests/probe/synthetic_tables.hpp"

namespace {

using namespace dtb;

using bench::quiet_positions;

template <class V>
void run(const char* material, std::size_t count, int runs, int threads) {
    const Material m = Material::parse(material);
    const test::TemporaryDirectory dir("probe-bench");
    const auto tables = dir.path() / std::string(V::name);
    std::filesystem::create_directories(tables);
    std::uint64_t wld_bytes = 0, dtw_bytes = 0, values_bytes = 0;
    for (const Material& t : build_order({m})) {
        const auto w = test::write_synthetic_tables<V>(tables, t, 16);
        if (t == m.canonical()) {
            wld_bytes = w.wld_bytes;
            dtw_bytes = w.dtw_bytes;
            values_bytes = sides_of(t) * Index<V::board_size>(t).size() * (w.dtw_bits / 8);
        }
    }
    const auto positions = quiet_positions<V>(m, count);
    const Prober<V> prober(dir.path(), std::size_t{1} << 30);
    std::uint64_t sum = 0;
    for (const auto& p : positions) sum += prober.value(p).plies + static_cast<int>(prober.wdl(p));  // warm up

    const double dtw = bench::best_seconds(runs, [&] {
        for (const auto& p : positions) sum += prober.value(p).plies;
    });
    const double wdl = bench::best_seconds(runs, [&] {
        for (const auto& p : positions) sum += static_cast<int>(prober.wdl(p));
    });
    // The C API, positions as PDN square sets (converted beforehand).
    dtb_tablebase* c = nullptr;
    dtb_open(std::string(V::name).c_str(), dir.path().c_str(), std::size_t{1} << 30, &c);
    std::vector<dtb_position> squares(positions.size());
    for (std::size_t i = 0; i < positions.size(); ++i)
        dtb_parse_fen(c, draughts::to_fen(positions[i]).c_str(), &squares[i]);
    const double c_dtw = bench::best_seconds(runs, [&] {
        dtb_value v;
        for (const auto& s : squares) sum += dtb_probe_dtw(c, &s, &v) + v.plies;
    });
    dtb_close(c);
    // Several threads on the same prober and cache.
    std::atomic<std::uint64_t> shared_sum{0};
    const double parallel = bench::best_seconds(runs, [&] {
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                // Every thread probes every position, each from its own starting point.
                std::uint64_t s = 0;
                const std::size_t n = positions.size(), first = n / threads * t;
                for (std::size_t i = 0; i < n; ++i) s += prober.value(positions[(first + i) % n]).plies;
                shared_sum += s;
            });
        for (auto& th : pool) th.join();
    });
    // Cold: the cache emptied before each probe, so each decompresses a block.
    const std::size_t cold_count = std::min<std::size_t>(count / 100, 300);
    double cold_dtw = 0, cold_wld = 0;
    for (std::size_t i = 0; i < cold_count; ++i) {
        prober.tables().cache().clear();
        cold_dtw += bench::best_seconds(1, [&] { sum += prober.value(positions[i]).plies; });
        prober.tables().cache().clear();
        cold_wld += bench::best_seconds(1, [&] { sum += static_cast<int>(prober.wdl(positions[i])); });
    }
    const double n = static_cast<double>(positions.size());
    fmt::print("{:<14} {:<8} {:>7.1f} {:>7.1f} {:>7.1f} {:>9.1f} {:>9.0f} {:>9.0f} {:>9.1f} {:>8.0f} {:>8.0f}\n",
               V::name, m.name(), n / dtw / 1e6, n / wdl / 1e6, n / c_dtw / 1e6, n / parallel / 1e6,
               cold_dtw / cold_count * 1e6, cold_wld / cold_count * 1e6, values_bytes / 1e6, wld_bytes / 1e3,
               dtw_bytes / 1e3);
    if (sum == 42 && shared_sum == 42) fmt::print(" ");
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false;
    int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0) quick = true;
        if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = std::atoi(argv[++i]);
    }
    const std::size_t count = quick ? 100000 : 1000000;
    const int runs = quick ? 1 : 3;
    fmt::print("probe_bench on {}: {} random positions without a capture, best of {}; {} threads\n",
               bench::cpu_model(), count, runs, threads);
    fmt::print("warm: million probes per second per thread (C++ dtw, C++ wdl, C API dtw, {} threads dtw each);\n"
               "cold: microseconds for a probe that decompresses its block (2^16 positions);\n"
               "the .dtw values decompressed (MB), the files (KB)\n",
               threads);
    fmt::print("{:<14} {:<8} {:>7} {:>7} {:>7} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8}\n", "variant", "material", "dtw",
               "wdl", "C dtw", "threads", "cold dtw", "cold wld", "values", ".wld KB", ".dtw KB");
    run<draughts::American>("KKvKK", count, runs, threads);
    run<draughts::Brazilian>("KKvKM", count, runs, threads);
    run<draughts::International>("KKvK", count, runs, threads);
    run<draughts::International>("KKvKK", count, runs, threads);
    run<draughts::International>("KMvKM", count, runs, threads);
    run<draughts::Canadian>("KKvKK", count, runs, threads);
}
