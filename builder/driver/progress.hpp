// What the user of `dtb build` sees: on a terminal, a status line redrawn
// twice a second under the finished materials; otherwise one line per
// finished material. Used by the one process of a build, or rank 0.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "builder/driver/build_options.hpp"
#include "builder/system/process.hpp"
#include "builder/output/manifest.hpp"

namespace dtb {

// 1234567 as "1,234,567".
std::string with_commas(std::uint64_t n);

class Progress {
public:
    Progress(BuildOptions::Output output, std::size_t materials, std::uint64_t positions);
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    ~Progress();

    void note(const std::string& line);
    void started(const Material& m) { started(m.name()); }
    // A job that is not a material's plain tables (a .rul), shown while it
    // runs by its name, and its line once it has finished.
    void started(const std::string& name);
    void finished(const std::string& name, const std::string& line);
    void level(const Material& m, int level, int levels);
    void positions(std::uint64_t n) { done_ += n; }
    // Positions a resumed material restored from its checkpoint: no longer
    // left, but not counted in the speed shown.
    void restored(std::uint64_t n) { restored_ += n; }
    // The positions left to solve (of those the build has to).
    std::uint64_t left() const noexcept { return total_ - std::min(total_, done_.load() + restored_.load()); }
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
    std::atomic<std::uint64_t> done_{0}, restored_{0};
    std::size_t finished_ = 0;
    std::map<std::string, std::string> current_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::thread painter_;
};

}  // namespace dtb
