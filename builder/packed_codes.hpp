// A solved table kept small while no material in work reads it (the build's
// memory budget, builder/build.cpp): its codes, capture positions' true
// values included, as zstd frames of 2^20 codes. Codes of a table run long
// (draws, and wins and losses at few distances), so the frames take a few
// percent of the two bytes a position (14% over International up to 6), and unpacking runs at memory
// speed, where reading the table back from its file would solve every
// capture position again (a capture search and the tables it leads to).
#pragma once

#include <cstdint>
#include <vector>

#include "builder/solved_values.hpp"

namespace dtb {

class PackedCodes {
public:
    static constexpr int frame_shift = 20;  // codes a frame: 2^20, 2 MiB unpacked
    static constexpr int level = 1;         // zstd's fastest that still finds the runs

    // The codes of `values`, a whole table; with every thread.
    explicit PackedCodes(const SolvedValues& values);

    // The codes back, without capture marks (lookups read codes only).
    SolvedValues unpack() const;

    // Bytes held: the frames and their list.
    std::uint64_t bytes() const noexcept { return bytes_; }
    std::uint64_t unpacked_bytes() const noexcept { return 2 * positions_; }

private:
    Material material_;
    std::uint64_t positions_per_side_ = 0, positions_ = 0;
    std::uint32_t max_code_ = 0;
    std::vector<std::vector<std::byte>> frames_;
    std::uint64_t bytes_ = 0;
};

}  // namespace dtb
