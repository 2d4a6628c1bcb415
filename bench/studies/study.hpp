// What the table-size studies (bench/studies/compression_study, bench/studies/sides_study)
// share: figures summed over a set from several threads, and a .dtw code
// as a distance in moves.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace bench {

// Named figures (bytes, positions, seconds) summed from several threads.
struct Sums {
    std::mutex m;
    std::map<std::string, double> bytes;
    void add(const std::string& k, double v) {
        std::lock_guard l(m);
        bytes[k] += v;
    }
    void add(const std::map<std::string, double>& figures) {
        std::lock_guard l(m);
        for (const auto& [k, v] : figures) bytes[k] += v;
    }
};

// A .dtw code (docs/format.md) as moves: a win in n plies (n odd) is
// (n + 1) / 2, a loss in n (even) n / 2, a draw 0; the win or loss itself
// is left to the .wld.
inline std::uint32_t moves_of(std::uint32_t code) {
    if (code == 0) return 0;
    const std::uint32_t plies = code - 1;
    return plies % 2 == 1 ? (plies + 1) / 2 : plies / 2;
}

}  // namespace bench
