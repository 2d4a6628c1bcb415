// What a benchmark prints about the machine it ran on, and how it times.
#pragma once

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>

namespace bench {

inline std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

// The shortest of `runs` runs of f, in seconds: the least disturbed by the machine.
template <class F>
double best_seconds(int runs, F&& f) {
    double best = 1e300;
    for (int r = 0; r < runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

}  // namespace bench
