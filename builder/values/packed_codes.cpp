#include "builder/values/packed_codes.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include <tbb/parallel_for.h>

#include "builder/system/process.hpp"
#include "builder/system/work_profile.hpp"
#include "probe/table_format.hpp"
#include "probe/zstd_frame.hpp"

namespace dtb {

namespace {

// The planes of a frame being packed or unpacked: one buffer a thread, kept
// from frame to frame, so that no frame pays for 2 MiB of new zeroed memory.
std::vector<std::byte>& frame_scratch(std::size_t bytes) {
    thread_local std::vector<std::byte> scratch;
    if (scratch.size() < bytes) scratch.resize(bytes);
    return scratch;
}

// `codes` and then `words` as one zstd frame, the codes as byte planes
// (codes_to_planes()): on Canadian 5-piece tables 6.5% of the codes' bytes
// against 8.8% for the codes as they lie, packed faster and unpacked 2.5
// times as fast (bench/studies/transfer_study).
std::vector<std::byte> pack_frame(std::span<const std::uint16_t> codes, std::span<const std::uint64_t> words) {
    const std::size_t n = codes.size();
    const std::span<std::byte> raw(frame_scratch(2 * n + 8 * words.size()).data(), 2 * n + 8 * words.size());
    codes_to_planes(codes, raw.data());
    if (!words.empty()) std::memcpy(raw.data() + 2 * n, words.data(), 8 * words.size());
    return zstd_compress(raw, PackedRange::level);
}

// A frame of pack_frame() back into `codes` and `words` (of its sizes): an
// empty string, or what is wrong with it.
std::string unpack_frame(std::span<const std::byte> frame, std::span<std::uint16_t> codes,
                         std::span<std::uint64_t> words) {
    const std::size_t n = codes.size();
    const std::span<std::byte> raw(frame_scratch(2 * n + 8 * words.size()).data(), 2 * n + 8 * words.size());
    if (std::string wrong = zstd_decompress(frame, raw); !wrong.empty()) return wrong;
    codes_from_planes(raw.data(), codes);
    if (!words.empty()) std::memcpy(words.data(), raw.data() + 2 * n, 8 * words.size());
    return {};
}

// Positions [first, first + count) of `values`: each frame's codes, then its capture words.
std::size_t frame_positions(std::uint64_t count, std::size_t f) {
    return static_cast<std::size_t>(std::min(count - (std::uint64_t{f} << PackedRange::frame_shift),
                                              std::uint64_t{1} << PackedRange::frame_shift));
}

// The capture words of the n positions from `at` on (at a multiple of 64):
// none if the values have let go of their capture marks.
template <class Words>
auto capture_words(Words& words, std::uint64_t at, std::size_t n) -> decltype(std::span(words)) {
    if (words.empty()) return {};
    return std::span(words).subspan(at / 64, (n + 63) / 64);
}

}  // namespace

std::vector<std::vector<std::byte>> pack_frames(const SolvedValues& values, std::uint64_t first, std::uint64_t count) {
    if (count == 0) return {};  // a team member's range of a table smaller than the team
    if ((first - values.first) % 64 != 0 || !values.holds(first) || !values.holds(first + count - 1))
        throw std::logic_error("packing a range that the values do not hold");
    std::vector<std::vector<std::byte>> frames(packed_frames(count));
    work_profile::Step step(work_profile::Kind::pack, frames.size());
    tbb::parallel_for(std::size_t{0}, frames.size(), [&](std::size_t f) {
        const auto piece = step.piece();
        const std::uint64_t at = first - values.first + (std::uint64_t{f} << PackedRange::frame_shift);
        const std::size_t n = frame_positions(count, f);
        frames[f] = pack_frame(std::span(values.codes).subspan(at, n), capture_words(values.capture, at, n));
    });
    return frames;
}

void hand_over_frames(std::vector<std::vector<std::byte>>& frames, const FrameWriter& write) {
    constexpr std::uint64_t trim_every = std::uint64_t{64} << 20;
    std::uint64_t since_trim = 0;
    for (std::vector<std::byte>& frame : frames) {
        write(frame);
        since_trim += frame.size();
        std::vector<std::byte>().swap(frame);
        if (since_trim >= trim_every) {
            return_free_memory();
            since_trim = 0;
        }
    }
    frames.clear();
    return_free_memory();
}

PackedRange pack_range(const SolvedValues& values, std::uint64_t first, std::uint64_t count) {
    std::vector<std::vector<std::byte>> frames = pack_frames(values, first, count);
    PackedRange packed;
    std::uint64_t total = 0;
    for (const auto& frame : frames) {
        packed.frame_bytes.push_back(frame.size());
        total += frame.size();
    }
    packed.bytes.reserve(total);  // not yet touched: the frames' memory goes as they are copied in
    hand_over_frames(frames, [&](std::span<const std::byte> frame) {
        packed.bytes.insert(packed.bytes.end(), frame.begin(), frame.end());
    });
    return packed;
}

void unpack_range(std::span<const std::byte> bytes, std::span<const std::uint64_t> frame_bytes, SolvedValues& into,
                  std::uint64_t first, std::uint64_t count, const std::string& from) {
    if (count == 0 && frame_bytes.empty() && bytes.empty()) return;
    if ((first - into.first) % 64 != 0 || !into.holds(first) || !into.holds(first + count - 1))
        throw std::logic_error("unpacking into values that do not hold the range");
    const std::string what = from + " sent " + into.material.name() + " packed";
    if (frame_bytes.size() != packed_frames(count))
        throw std::runtime_error(what + " in " + std::to_string(frame_bytes.size()) + " frames where " +
                                 std::to_string(packed_frames(count)) + " were expected");
    std::vector<std::uint64_t> offsets(frame_bytes.size() + 1, 0);
    for (std::size_t f = 0; f < frame_bytes.size(); ++f) offsets[f + 1] = offsets[f] + frame_bytes[f];
    if (offsets.back() != bytes.size())
        throw std::runtime_error(what + " in " + std::to_string(bytes.size()) + " bytes where its frames add up to " +
                                 std::to_string(offsets.back()));
    work_profile::Step step(work_profile::Kind::pack, frame_bytes.size());
    tbb::parallel_for(std::size_t{0}, frame_bytes.size(), [&](std::size_t f) {
        const auto piece = step.piece();
        const std::uint64_t at = first - into.first + (std::uint64_t{f} << PackedRange::frame_shift);
        const std::size_t n = frame_positions(count, f);
        if (const std::string wrong =
                unpack_frame(bytes.subspan(offsets[f], frame_bytes[f]), std::span(into.codes).subspan(at, n),
                             capture_words(into.capture, at, n));
            !wrong.empty())
            throw std::runtime_error(what + ": frame " + std::to_string(f) + " " + wrong);
    });
}

SpilledFrames::SpilledFrames(std::filesystem::path file) : file_(std::move(file)) {
    fd_ = ::open(file_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0)
        throw std::runtime_error("cannot create " + file_.string() + ", a scratch file of the build's: " +
                                 std::strerror(errno) + "; free disk space or make the tables' folder writable");
}

SpilledFrames::SpilledFrames(std::filesystem::path file, const std::vector<std::uint64_t>& frame_bytes,
                             const std::vector<std::uint64_t>& checksums)
    : file_(std::move(file)), sums_(checksums) {
    if (frame_bytes.size() != checksums.size()) throw std::logic_error("frames and checksums of other numbers");
    for (const std::uint64_t size : frame_bytes) offsets_.push_back(offsets_.back() + size);
    fd_ = ::open(file_.c_str(), O_RDWR | O_CLOEXEC);
    if (fd_ < 0) throw std::runtime_error("cannot open " + file_.string() + ": " + std::strerror(errno));
    struct stat status {};
    if (::fstat(fd_, &status) != 0 || static_cast<std::uint64_t>(status.st_size) < offsets_.back() ||
        ::ftruncate(fd_, static_cast<off_t>(offsets_.back())) != 0) {
        ::close(fd_);
        throw std::runtime_error(file_.string() + ": shorter than its checkpoint says, or cannot be cut back to it");
    }
    constexpr std::size_t at_once = 64;
    try {
        for (std::size_t f = 0; f < frames(); f += at_once) read(f, std::min(at_once, frames() - f));
    } catch (...) {
        ::close(fd_);
        throw;
    }
}

SpilledFrames::~SpilledFrames() {
    ::close(fd_);
    std::error_code ignored;  // a file that cannot be removed costs only disk space
    std::filesystem::remove(file_, ignored);
}

std::size_t SpilledFrames::append(const PackedRange& frames) {
    const std::size_t first = sums_.size();
    std::uint64_t at = 0;
    for (const std::uint64_t size : frames.frame_bytes) {
        const std::span<const std::byte> frame = std::span(frames.bytes).subspan(at, size);
        for (std::uint64_t done = 0; done < size;) {
            const ssize_t n =
                ::pwrite(fd_, frame.data() + done, size - done, static_cast<off_t>(offsets_.back() + done));
            if (n <= 0)
                throw std::runtime_error("cannot write " + file_.string() + ", a scratch file of the build's: " +
                                         std::strerror(n < 0 ? errno : ENOSPC) + "; free disk space");
            done += static_cast<std::uint64_t>(n);
        }
        sums_.push_back(checksum(frame));
        offsets_.push_back(offsets_.back() + size);
        at += size;
    }
    return first;
}

std::string read_at(int fd, std::span<std::byte> into, std::uint64_t offset) {
    for (std::uint64_t done = 0; done < into.size();) {
        const ssize_t n = ::pread(fd, into.data() + done, into.size() - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return n < 0 ? std::strerror(errno) : "cut short";
        done += static_cast<std::uint64_t>(n);
    }
    return {};
}

PackedRange SpilledFrames::read(std::size_t first, std::size_t count) const {
    if (first > frames() || count > frames() - first) throw std::logic_error("frames past a scratch file's");
    PackedRange out;
    for (std::size_t f = first; f < first + count; ++f) out.frame_bytes.push_back(offsets_[f + 1] - offsets_[f]);
    out.bytes.resize(offsets_[first + count] - offsets_[first]);
    if (const std::string wrong = read_at(fd_, out.bytes, offsets_[first]); !wrong.empty())
        throw std::runtime_error("cannot read " + file_.string() + ", a scratch file of the build's: " + wrong);
    for (std::size_t f = first; f < first + count; ++f)
        if (checksum(std::span(out.bytes).subspan(offsets_[f] - offsets_[first], offsets_[f + 1] - offsets_[f])) !=
            sums_[f])
            throw std::runtime_error(file_.string() + ", a scratch file of the build's: frame " + std::to_string(f) +
                                     " differs from what was written");
    return out;
}

std::vector<std::uint64_t> SpilledFrames::frame_bytes() const {
    std::vector<std::uint64_t> sizes;
    for (std::size_t f = 0; f < frames(); ++f) sizes.push_back(offsets_[f + 1] - offsets_[f]);
    return sizes;
}

}  // namespace dtb
