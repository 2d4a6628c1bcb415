// What solving a material reports while it works, from several threads: the
// level started and the positions done (for the progress display), a line
// for the user where it resumed, and the
// largest code of a position without a capture (for the table header).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace dtb {

struct SolveProgress {
    std::function<void(int level, int levels)> level_started;
    std::function<void(std::uint64_t positions)> positions_done;
    std::function<void(const std::string& line)> note;  // for the user: a solve resumed, a checkpoint not trusted
    // Positions of the levels a resumed solve restored from its checkpoint: done, but not solved now.
    std::function<void(std::uint64_t positions)> positions_restored;
};

// The largest of the codes noted, from any thread.
class MaxCode {
public:
    void note(std::uint32_t code) noexcept {
        std::uint32_t seen = value_.load();
        while (seen < code && !value_.compare_exchange_weak(seen, code)) {
        }
    }
    std::uint32_t value() const noexcept { return value_.load(); }

private:
    std::atomic<std::uint32_t> value_{0};
};

}  // namespace dtb
