#include "builder/output/packed_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>
#include <stdexcept>
#include <utility>

#include <tbb/parallel_for.h>

#include "builder/output/replaced_file.hpp"
#include "probe/table_format.hpp"
#include "probe/zstd_frame.hpp"

namespace dtb {

namespace {

constexpr std::string_view magic = "dtb packed values 1\n";
constexpr std::uint64_t array_frame = std::uint64_t{1} << 20;  // bytes of an array a frame
constexpr int level = 1;

void put_word(std::string& out, std::uint64_t word) {
    for (int i = 0; i < 8; ++i) out += static_cast<char>((word >> (8 * i)) & 0xff);
}

// A frame of an array's: which array and where in it.
struct ArrayFrame {
    std::size_t array;
    std::uint64_t first, count;
};

std::vector<ArrayFrame> frames_of(const std::vector<std::uint64_t>& lengths) {
    std::vector<ArrayFrame> out;
    for (std::size_t a = 0; a < lengths.size(); ++a)
        for (std::uint64_t first = 0; first < lengths[a]; first += array_frame)
            out.push_back({a, first, std::min(array_frame, lengths[a] - first)});
    return out;
}

// The start of each frame in `frames`, and one past the last.
std::vector<std::uint64_t> offsets_of(const PackedRange& frames) {
    std::vector<std::uint64_t> offsets{0};
    for (const std::uint64_t size : frames.frame_bytes) offsets.push_back(offsets.back() + size);
    return offsets;
}

}  // namespace

void write_frames_file(const std::filesystem::path& file, const std::string& label,
                       const std::vector<std::uint64_t>& words, const PackedRange& frames) {
    const std::vector<std::uint64_t> offsets = offsets_of(frames);
    if (offsets.back() != frames.bytes.size()) throw std::logic_error("frames that do not add up to their bytes");
    std::vector<std::uint64_t> sums(frames.frame_bytes.size());
    tbb::parallel_for(std::size_t{0}, sums.size(), [&](std::size_t f) {
        sums[f] = checksum(std::span(frames.bytes).subspan(offsets[f], frames.frame_bytes[f]));
    });
    write_frames_file(file, label, words, frames.frame_bytes, sums,
                      [&](const FrameWriter& write) { write(frames.bytes); });
}

namespace {

// The header: magic, the label's length and bytes, the number of words and
// the words, the number of frames and each one's size and checksum, all
// words of 8 bytes, little-endian. Its length depends only on the label,
// the words and the number of frames.
std::string header_of(const std::string& label, const std::vector<std::uint64_t>& words,
                      const std::vector<std::uint64_t>& frame_bytes, const std::vector<std::uint64_t>& checksums) {
    std::string header(magic);
    put_word(header, label.size());
    header += label;
    put_word(header, words.size());
    for (const std::uint64_t w : words) put_word(header, w);
    put_word(header, frame_bytes.size());
    for (std::size_t f = 0; f < frame_bytes.size(); ++f) {
        put_word(header, frame_bytes[f]);
        put_word(header, checksums[f]);
    }
    return header;
}

}  // namespace

void write_frames_file(const std::filesystem::path& file, const std::string& label,
                       const std::vector<std::uint64_t>& words, const std::vector<std::uint64_t>& frame_bytes,
                       const std::vector<std::uint64_t>& checksums,
                       const std::function<void(const FrameWriter&)>& copy) {
    std::filesystem::create_directories(file.parent_path());
    ReplacedFile out(file, false);  // a scratch file: its checksums tell one the machine lost
    out.write(header_of(label, words, frame_bytes, checksums));
    std::uint64_t written = 0, expected = 0;
    for (const std::uint64_t size : frame_bytes) expected += size;
    copy([&](std::span<const std::byte> bytes) {
        out.write(bytes);
        written += bytes.size();
    });
    if (written != expected) throw std::logic_error("frames that do not add up to their sizes");
    out.commit();
}

void write_frames_file(const std::filesystem::path& file, const std::string& label,
                       const std::vector<std::uint64_t>& words, std::size_t frames, const FramePacker& pack) {
    std::filesystem::create_directories(file.parent_path());
    ReplacedFile out(file, false);
    std::vector<std::uint64_t> sizes(frames, 0), sums(frames, 0);
    out.write(header_of(label, words, sizes, sums));  // its room: written again once the frames are
    in_batches(frames, [&](std::size_t g, std::size_t k) {
        std::vector<std::vector<std::byte>> packed = pack(g, k);
        if (packed.size() != k) throw std::logic_error("frames packed of another number");
        tbb::parallel_for(std::size_t{0}, k, [&](std::size_t f) {
            sizes[g + f] = packed[f].size();
            sums[g + f] = checksum(packed[f]);
        });
        hand_over_frames(packed, [&](std::span<const std::byte> bytes) { out.write(bytes); });
    });
    out.seek(0);
    out.write(header_of(label, words, sizes, sums));
    out.commit();
}

FramesFile read_frames_file(const std::filesystem::path& file, const std::string& label) {
    const FramesFileReader reader(file, label);
    FramesFile out;
    out.words = reader.words();
    out.frames.frame_bytes = reader.frame_bytes();
    out.frames.bytes = reader.read(0, reader.frames());
    return out;
}

std::runtime_error FramesFileReader::wrong(const std::string& what) const {
    return std::runtime_error(file_.string() + ": " + what + " (a packed file of the build's, " + label_ + ")");
}

FramesFileReader::FramesFileReader(std::filesystem::path file, std::string label)
    : file_(std::move(file)), label_(std::move(label)) {
    fd_ = ::open(file_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw wrong(std::string("cannot open it: ") + std::strerror(errno));
    try {
        struct stat status {};
        if (::fstat(fd_, &status) != 0) throw wrong(std::string("cannot read it: ") + std::strerror(errno));
        const auto size = static_cast<std::uint64_t>(status.st_size);
        // The header, read as far as it goes: a few kilobytes at first, more if its frames need.
        std::vector<std::byte> head;
        std::uint64_t at = 0;
        const auto need = [&](std::uint64_t n) {
            if (n > size - at) throw wrong("cut short");
            if (at + n <= head.size()) return;
            const std::uint64_t was = head.size();
            head.resize(std::min(size, std::max(at + n, 2 * was + 4096)));
            if (const std::string error = read_at(fd_, std::span(head).subspan(was), was); !error.empty())
                throw wrong("cannot read it: " + error);
        };
        const auto word = [&] {
            need(8);
            std::uint64_t w = 0;
            for (int i = 0; i < 8; ++i) w |= std::to_integer<std::uint64_t>(head[at + i]) << (8 * i);
            at += 8;
            return w;
        };
        const auto count = [&](std::uint64_t each) {  // a count of items of `each` bytes that must fit what is left
            const std::uint64_t n = word();
            if (n > (size - at) / each) throw wrong("cut short");
            return n;
        };
        const auto text = [&](std::uint64_t n) {
            need(n);
            return std::string_view(reinterpret_cast<const char*>(head.data()) + at, n);
        };
        if (size < magic.size() || text(magic.size()) != magic) throw wrong("not a packed file of dtb's");
        at = magic.size();
        const std::uint64_t label_size = count(1);
        if (text(label_size) != label_) throw wrong("holds other values than those asked for");
        at += label_size;
        words_.resize(count(8));
        for (std::uint64_t& w : words_) w = word();
        const std::uint64_t frames = count(16);
        std::uint64_t total = 0;
        for (std::uint64_t f = 0; f < frames; ++f) {
            frame_bytes_.push_back(word());
            sums_.push_back(word());
            if (frame_bytes_.back() > size - total) throw wrong("cut short");
            total += frame_bytes_.back();
        }
        if (total != size - at) throw wrong(total > size - at ? "cut short" : "longer than its frames");
        offsets_.push_back(at);
        for (const std::uint64_t bytes : frame_bytes_) offsets_.push_back(offsets_.back() + bytes);
    } catch (...) {
        ::close(fd_);
        throw;
    }
}

FramesFileReader::~FramesFileReader() { ::close(fd_); }

std::vector<std::byte> FramesFileReader::read(std::size_t first, std::size_t count) const {
    if (first > frames() || count > frames() - first) throw std::logic_error("frames past a packed file's");
    std::vector<std::byte> bytes(offsets_[first + count] - offsets_[first]);
    if (const std::string error = read_at(fd_, bytes, offsets_[first]); !error.empty())
        throw wrong("cannot read it: " + error);
    std::vector<char> bad(count, 0);
    tbb::parallel_for(std::size_t{0}, count, [&](std::size_t i) {
        const std::size_t f = first + i;
        bad[i] = checksum(std::span(bytes).subspan(offsets_[f] - offsets_[first], frame_bytes_[f])) != sums_[f];
    });
    if (std::find(bad.begin(), bad.end(), 1) != bad.end()) throw wrong("a frame's checksum differs");
    return bytes;
}

void write_packed_file(const std::filesystem::path& file, const std::string& label,
                       const std::vector<std::span<const std::uint8_t>>& arrays) {
    std::vector<std::uint64_t> lengths;
    for (const auto& a : arrays) lengths.push_back(a.size());
    const std::vector<ArrayFrame> at = frames_of(lengths);
    write_frames_file(file, label, lengths, at.size(), [&](std::size_t first, std::size_t count) {
        std::vector<std::vector<std::byte>> frames(count);
        tbb::parallel_for(std::size_t{0}, count, [&](std::size_t i) {
            const ArrayFrame& f = at[first + i];
            frames[i] = zstd_compress(std::as_bytes(arrays[f.array].subspan(f.first, f.count)), level);
        });
        return frames;
    });
}

std::vector<std::vector<std::uint8_t>> read_packed_file(const std::filesystem::path& file, const std::string& label) {
    const FramesFileReader read(file, label);
    for (const std::uint64_t length : read.words())
        if (length > (std::uint64_t{1} << 48))
            throw std::runtime_error(file.string() + ": not a packed file of byte arrays (" + label + ")");
    const std::vector<ArrayFrame> at = frames_of(read.words());
    if (at.size() != read.frames())
        throw std::runtime_error(file.string() + ": its frames are not those of its arrays (" + label + ")");
    std::vector<std::vector<std::uint8_t>> arrays(read.words().size());
    for (std::size_t a = 0; a < arrays.size(); ++a) arrays[a].resize(read.words()[a]);
    // A few frames at a time, so that the file's bytes never lie whole beside the arrays.
    std::vector<std::string> errors(at.size());
    in_batches(at.size(), [&](std::size_t g, std::size_t k) {
        const std::vector<std::byte> bytes = read.read(g, k);
        std::vector<std::uint64_t> offsets{0};
        for (std::size_t i = 0; i < k; ++i) offsets.push_back(offsets.back() + read.frame_bytes()[g + i]);
        tbb::parallel_for(std::size_t{0}, k, [&](std::size_t i) {
            const ArrayFrame& f = at[g + i];
            errors[g + i] = zstd_decompress(std::span(bytes).subspan(offsets[i], read.frame_bytes()[g + i]),
                                            std::as_writable_bytes(std::span(arrays[f.array]).subspan(f.first, f.count)));
        });
    });
    for (const std::string& e : errors)
        if (!e.empty()) throw std::runtime_error(file.string() + ": a frame " + e + " (" + label + ")");
    return arrays;
}

}  // namespace dtb
