// What the user of `dtb build` sees: on a terminal, a status line redrawn
// twice a second under the finished materials; otherwise one line per
// finished material. Used by the one process of a build, or rank 0.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "builder/build.hpp"
#include "builder/manifest.hpp"

namespace dtb {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// The machine's memory, the process's peak resident memory, and the
// processor time (user and system) of all its threads so far.
std::uint64_t physical_memory();
std::uint64_t peak_resident_bytes();
double cpu_seconds();
// Hands back to the system the memory the allocator holds free. glibc keeps
// what its heaps freed for later use; over a build of many tables, each
// solved, packed, unpacked, read back and released, that grew to gigabytes
// above what the build holds (docs/design.md, Solver, "Memory"). Called as
// each level of a material starts (MaterialSolver, in every kind of build)
// and once a material is done.
void return_free_memory();

// 1234567 as "1,234,567".
std::string with_commas(std::uint64_t n);

class Progress {
public:
    Progress(BuildOptions::Output output, std::size_t materials, std::uint64_t positions);
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    ~Progress();

    void note(const std::string& line);
    void started(const Material& m);
    void level(const Material& m, int level, int levels);
    void positions(std::uint64_t n) { done_ += n; }
    // A material finished, solved by `ranks` ranks (1: one process).
    void finished(const ManifestEntry& e, int ranks = 1);

private:
    void print_line(const std::string& line);  // with the mutex held
    void paint();
    void paint_loop();

    BuildOptions::Output output_;
    std::size_t materials_;
    std::uint64_t total_;
    Clock::time_point start_;
    std::atomic<std::uint64_t> done_{0};
    std::size_t finished_ = 0;
    std::map<std::string, std::string> current_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::thread painter_;
};

}  // namespace dtb
