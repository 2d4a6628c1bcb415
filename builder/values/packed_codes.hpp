// A solved table kept small while no material in work reads it (the build's
// memory budget, builder/driver/build.cpp): its codes, capture positions' true
// values included, as zstd frames of 2^20 codes, each frame the codes' low
// bytes and then their high bytes (byte planes). Codes of a table run long
// (draws, and wins and losses at few distances), so the frames take a few
// percent of the two bytes a position (14% over International up to 6 with
// the codes as they lie, less as planes), and unpacking runs at memory
// speed, where reading the table back from its file would solve every
// capture position again (a capture search and the tables it leads to).
// When even the frames must give up their memory, the table is read from its
// packed form on disk (builder/driver/packed_forms.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "builder/values/solved_values.hpp"

namespace dtb {

class PackedCodes {
public:
    static constexpr int frame_shift = 20;  // codes a frame: 2^20, 2 MiB unpacked
    static constexpr int level = 1;         // zstd's fastest that still finds the runs

    // The codes of `values`, a whole table; with every thread.
    explicit PackedCodes(const SolvedValues& values);

    PackedCodes(const PackedCodes&) = delete;
    PackedCodes& operator=(const PackedCodes&) = delete;

    // The codes back, without capture marks (lookups read codes only).
    SolvedValues unpack() const;

    const Material& material() const noexcept { return material_; }
    // Bytes held in memory: the frames and their list.
    std::uint64_t bytes() const noexcept { return bytes_; }
    std::uint64_t unpacked_bytes() const noexcept { return 2 * positions_; }

private:
    Material material_;
    std::uint64_t positions_per_side_ = 0, positions_ = 0;
    std::uint32_t max_code_ = 0;
    std::vector<std::vector<std::byte>> frames_;
    std::uint64_t bytes_ = 0;
};

// A range of solved values, codes and capture marks, packed the same way
// (frames of 2^20 positions): how tables cross between the ranks of a
// distributed build, where they would otherwise take 2.125 bytes a position
// on the network (docs/scaling.md, "Tables packed on the wire"). Frame f
// holds positions first + f 2^20 onwards: their codes as byte planes, then
// their capture words.
struct PackedRange {
    std::vector<std::uint64_t> frame_bytes;  // one a frame
    std::vector<std::byte> bytes;            // the frames, one after another
};

// The frames of a range of `count` positions.
constexpr std::uint64_t packed_frames(std::uint64_t count) noexcept {
    return (count + (std::uint64_t{1} << PackedCodes::frame_shift) - 1) >> PackedCodes::frame_shift;
}

// Positions [first, first + count) of `values` (which holds them; first a
// multiple of 64); with every thread. No frames if count is 0 (a team
// member's range of a table with fewer blocks than the team has members).
PackedRange pack_range(const SolvedValues& values, std::uint64_t first, std::uint64_t count);

// The same positions back into `into` (which holds them), from `bytes`
// framed as `frame_bytes` says; with every thread. Throws
// std::runtime_error, naming `from`, if the frames are not those of that
// range: another number of frames or of bytes, or a frame that does not
// unpack to its positions.
void unpack_range(std::span<const std::byte> bytes, std::span<const std::uint64_t> frame_bytes, SolvedValues& into,
                  std::uint64_t first, std::uint64_t count, const std::string& from);

}  // namespace dtb
