// Values a build needs again, written beside the tables as packed files, so
// that any process or rank of the build, or the same build started again
// after a kill, reads them back whole without solving anything again
// (docs/design.md, "Packed forms"). A file is a header, then frames (zstd,
// compressed and decompressed with every thread): the header names what the
// file holds (a label the reader must match) and gives the writer's words
// and each frame's size and checksum (XXH3-64). Written under a temporary
// name and renamed (replaced_file.hpp), so a reader finds the file whole or
// not at all.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "builder/values/packed_codes.hpp"

namespace dtb {

// Writes `frames` (PackedRange: the frames one after another, and each
// one's size) into `file` under `label`, with `words` of the caller's.
// Throws std::runtime_error naming the file and the reason if it cannot be
// written.
void write_frames_file(const std::filesystem::path& file, const std::string& label,
                       const std::vector<std::uint64_t>& words, const PackedRange& frames);

// The same of frames whose sizes and checksums are known and whose bytes
// `copy` writes, in order, through the function it is given (frames spilled
// to disk, copied without holding them all).
void write_frames_file(const std::filesystem::path& file, const std::string& label,
                       const std::vector<std::uint64_t>& words, const std::vector<std::uint64_t>& frame_bytes,
                       const std::vector<std::uint64_t>& checksums,
                       const std::function<void(const FrameWriter&)>& copy);

// Frames are written and read frames_at_once at a time where their values
// lie whole in memory, so that the frames of a whole table, or its file's
// bytes, never lie beside them: 64 frames of a table's 2^20 positions each
// are about a hundredth of the values they pack.
inline constexpr std::size_t frames_at_once = 64;
// Calls batch(first, count) on frames [0, frames) in order, frames_at_once at a time.
template <class Batch>
void in_batches(std::size_t frames, Batch&& batch) {
    for (std::size_t first = 0; first < frames; first += frames_at_once)
        batch(first, std::min(frames_at_once, frames - first));
}

// The same of `frames` frames packed frames_at_once at a time as they are
// written (pack(first, count) gives frames [first, first + count)), each
// batch let go of (hand_over_frames()) before the next is packed; the
// header's room is written first and filled in at the end.
using FramePacker = std::function<std::vector<std::vector<std::byte>>(std::size_t first, std::size_t count)>;
void write_frames_file(const std::filesystem::path& file, const std::string& label,
                       const std::vector<std::uint64_t>& words, std::size_t frames, const FramePacker& pack);

struct FramesFile {
    std::vector<std::uint64_t> words;
    PackedRange frames;
};

// The words and frames of `file`, each frame's checksum checked. Throws
// std::runtime_error naming the file and what is wrong if it cannot be
// read, is not such a file, holds another label, is cut short or a frame
// fails its checksum.
FramesFile read_frames_file(const std::filesystem::path& file, const std::string& label);

// Such a file opened to read its frames a few at a time (pread, from any
// number of threads at once): its header read and checked as it opens, and
// each frame checked against its checksum as it is read. Throws as
// read_frames_file() does.
class FramesFileReader {
public:
    FramesFileReader(std::filesystem::path file, std::string label);
    FramesFileReader(const FramesFileReader&) = delete;
    FramesFileReader& operator=(const FramesFileReader&) = delete;
    ~FramesFileReader();

    const std::vector<std::uint64_t>& words() const noexcept { return words_; }
    const std::vector<std::uint64_t>& frame_bytes() const noexcept { return frame_bytes_; }
    std::size_t frames() const noexcept { return frame_bytes_.size(); }
    // Frames [first, first + count), one after another (checked with every thread).
    std::vector<std::byte> read(std::size_t first, std::size_t count) const;

private:
    std::runtime_error wrong(const std::string& what) const;

    std::filesystem::path file_;
    std::string label_;
    int fd_ = -1;
    std::vector<std::uint64_t> words_, frame_bytes_, sums_;
    std::vector<std::uint64_t> offsets_;  // of each frame in the file, and its end
};

// Byte arrays in frames of 2^20 bytes (level 1), their lengths the words.
void write_packed_file(const std::filesystem::path& file, const std::string& label,
                       const std::vector<std::span<const std::uint8_t>>& arrays);

// The arrays of such a file, each as long as it was written; throws as
// read_frames_file() does, and if a frame does not unpack.
std::vector<std::vector<std::uint8_t>> read_packed_file(const std::filesystem::path& file, const std::string& label);

}  // namespace dtb
