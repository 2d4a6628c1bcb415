// Solved values packed: how a build keeps a table small while no job in work
// reads it (builder/values/kept_tables.hpp), and how tables cross between
// the ranks of a distributed build, where they would otherwise take 2.125
// bytes a position on the network (docs/scaling.md, "Tables packed on the
// wire"). Codes of a table run long (draws, and wins and losses at few
// distances), so their frames take a few percent of the two bytes a
// position (14% over International up to 6 with the codes as they lie,
// less as byte planes), and unpacking runs at memory speed, where reading
// the table back from its file would solve every capture position again (a
// capture search and the tables it leads to). When even the frames must
// give up their memory, the table is read from its packed form on disk
// (builder/driver/packed_forms.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "builder/values/solved_values.hpp"
#include "builder/values/value_counts.hpp"

namespace dtb {

// 16-bit codes as two byte planes, all their low bytes and then all their
// high bytes (2 n bytes at `planes`): the high bytes are nearly constant and
// the low ones run, so zstd finds more and longer matches than in the codes
// as they lie (pack_frames(), and the results a team member sends home).
inline void codes_to_planes(std::span<const std::uint16_t> codes, std::byte* planes) noexcept {
    const std::size_t n = codes.size();
    for (std::size_t i = 0; i < n; ++i) {
        planes[i] = static_cast<std::byte>(codes[i] & 0xff);
        planes[n + i] = static_cast<std::byte>(codes[i] >> 8);
    }
}
inline void codes_from_planes(const std::byte* planes, std::span<std::uint16_t> codes) noexcept {
    const std::size_t n = codes.size();
    for (std::size_t i = 0; i < n; ++i)
        codes[i] = static_cast<std::uint16_t>(std::to_integer<unsigned>(planes[i]) |
                                              std::to_integer<unsigned>(planes[n + i]) << 8);
}

// A range of solved values packed as zstd frames of 2^20 positions
// (frame_shift): frame f holds positions first + f 2^20 onwards, their
// codes (capture positions' true values included) as byte planes, all their
// low bytes and then their high bytes, and then their capture words, if
// the values still have their capture marks.
struct PackedRange {
    static constexpr int frame_shift = 20;  // positions a frame: 2^20, 2 MiB of codes unpacked
    static constexpr int level = 1;         // zstd's fastest that still finds the runs

    std::vector<std::uint64_t> frame_bytes;  // one a frame
    std::vector<std::byte> bytes;            // the frames, one after another

    // What they hold in memory.
    std::uint64_t held_bytes() const noexcept { return bytes.size() + 8 * frame_bytes.size(); }
};

// Frames (PackedRange) appended to a scratch file and read back a few at a
// time, each checked against the checksum it had when written: what a
// material solved a level at a time holds on disk instead of in memory
// (builder/solver/level_values.hpp). Appended from one thread, read from
// any number at once. The file is created empty and removed with this.
// Throws std::runtime_error naming the file if it cannot be written or
// read, or a frame read back differs.
class SpilledFrames {
public:
    explicit SpilledFrames(std::filesystem::path file);
    // The frames a checkpoint lists (each one's size and checksum) from the
    // file as a killed build left it: the file cut back to them (what was
    // appended after the checkpoint goes) and every frame read and checked.
    SpilledFrames(std::filesystem::path file, const std::vector<std::uint64_t>& frame_bytes,
                  const std::vector<std::uint64_t>& checksums);
    SpilledFrames(const SpilledFrames&) = delete;
    SpilledFrames& operator=(const SpilledFrames&) = delete;
    ~SpilledFrames();

    // Appends `frames`; returns the number of its first frame here.
    std::size_t append(const PackedRange& frames);
    // Frames [first, first + count).
    PackedRange read(std::size_t first, std::size_t count) const;

    std::size_t frames() const noexcept { return sums_.size(); }
    const std::vector<std::uint64_t>& checksums() const noexcept { return sums_; }
    std::vector<std::uint64_t> frame_bytes() const;
    const std::filesystem::path& file() const noexcept { return file_; }

private:
    std::filesystem::path file_;
    int fd_ = -1;
    std::vector<std::uint64_t> offsets_{0};  // of each frame in the file, and the end
    std::vector<std::uint64_t> sums_;
};

// Reads `into` whole from file descriptor `fd` at `offset` (pread): an
// empty string, or why it cannot (the system's reason, or "cut short").
std::string read_at(int fd, std::span<std::byte> into, std::uint64_t offset);

// A whole table as the frames of pack_range(values, 0, positions) (capture
// marks kept), spilled to a scratch file, with its counts: how one process
// hands on a material it solved a level at a time
// (builder/solver/level_values.hpp), never holding it whole, nor even
// packed in memory.
struct PackedTable {
    Material material;
    std::uint64_t positions_per_side = 0;
    std::uint64_t positions = 0;  // both sides
    std::uint32_t max_code = 0;
    ValueCounts counts;
    std::shared_ptr<const SpilledFrames> frames;
};

// The frames of a range of `count` positions.
constexpr std::uint64_t packed_frames(std::uint64_t count) noexcept {
    return (count + (std::uint64_t{1} << PackedRange::frame_shift) - 1) >> PackedRange::frame_shift;
}

// Positions [first, first + count) of `values` (which holds them; first a
// multiple of 64), with their capture marks if they have them; with every
// thread. No frames if count is 0 (a team member's range of a table with
// fewer blocks than the team has members).
PackedRange pack_range(const SolvedValues& values, std::uint64_t first, std::uint64_t count);
// The same frames, one vector each (pack_range() gathers them).
std::vector<std::vector<std::byte>> pack_frames(const SolvedValues& values, std::uint64_t first, std::uint64_t count);

// Gives `frames` to `write` in order, each let go of once written and the
// memory freed returned to the system as it goes (every 64 MiB, and at the
// end: once a table packed or written, as the solver does once a level), so that
// what they are copied into never lies beside a second copy of them all.
using FrameWriter = std::function<void(std::span<const std::byte>)>;
void hand_over_frames(std::vector<std::vector<std::byte>>& frames, const FrameWriter& write);

// The same positions back into `into` (which holds them), from `bytes`
// framed as `frame_bytes` says; with every thread. Throws
// std::runtime_error, naming `from`, if the frames are not those of that
// range: another number of frames or of bytes, or a frame that does not
// unpack to its positions.
void unpack_range(std::span<const std::byte> bytes, std::span<const std::uint64_t> frame_bytes, SolvedValues& into,
                  std::uint64_t first, std::uint64_t count, const std::string& from);

}  // namespace dtb
