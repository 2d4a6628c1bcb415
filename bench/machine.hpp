// What a benchmark prints about the machine it ran on.
#pragma once

#include <fstream>
#include <string>

namespace bench {

inline std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

}  // namespace bench
