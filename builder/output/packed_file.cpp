#include "builder/output/packed_file.hpp"

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

void write_frames_file(const std::filesystem::path& file, const std::string& label,
                       const std::vector<std::uint64_t>& words, std::vector<std::vector<std::byte>> frames) {
    std::vector<std::uint64_t> sizes(frames.size()), sums(frames.size());
    tbb::parallel_for(std::size_t{0}, frames.size(), [&](std::size_t f) {
        sizes[f] = frames[f].size();
        sums[f] = checksum(frames[f]);
    });
    write_frames_file(file, label, words, sizes, sums,
                      [&](const FrameWriter& write) { hand_over_frames(frames, write); });
}

void write_frames_file(const std::filesystem::path& file, const std::string& label,
                       const std::vector<std::uint64_t>& words, const std::vector<std::uint64_t>& frame_bytes,
                       const std::vector<std::uint64_t>& checksums,
                       const std::function<void(const FrameWriter&)>& copy) {
    // The header: magic, the label's length and bytes, the number of words
    // and the words, the number of frames and each one's size and checksum,
    // all words of 8 bytes, little-endian.
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
    std::filesystem::create_directories(file.parent_path());
    ReplacedFile out(file, false);  // a scratch file: its checksums tell one the machine lost
    out.write(header);
    std::uint64_t written = 0, expected = 0;
    for (const std::uint64_t size : frame_bytes) expected += size;
    copy([&](std::span<const std::byte> bytes) {
        out.write(bytes);
        written += bytes.size();
    });
    if (written != expected) throw std::logic_error("frames that do not add up to their sizes");
    out.commit();
}

FramesFile read_frames_file(const std::filesystem::path& file, const std::string& label) {
    const auto wrong = [&](const std::string& what) {
        return std::runtime_error(file.string() + ": " + what + " (a packed file of the build's, " + label + ")");
    };
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) throw wrong(std::string("cannot open it: ") + std::strerror(errno));
    std::vector<std::byte> data(static_cast<std::size_t>(in.tellg()));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size())))
        throw wrong("cannot read it");
    std::uint64_t at = 0;
    const auto word = [&] {
        if (data.size() - at < 8) throw wrong("cut short");
        std::uint64_t w = 0;
        for (int i = 0; i < 8; ++i) w |= std::to_integer<std::uint64_t>(data[at + i]) << (8 * i);
        at += 8;
        return w;
    };
    const auto count = [&](std::uint64_t each) {  // a count of items of `each` bytes that must fit what is left
        const std::uint64_t n = word();
        if (n > (data.size() - at) / each) throw wrong("cut short");
        return n;
    };
    const auto text = [&](std::uint64_t size) {
        return std::string_view(reinterpret_cast<const char*>(data.data()) + at, size);
    };
    if (data.size() < magic.size() || text(magic.size()) != magic) throw wrong("not a packed file of dtb's");
    at = magic.size();
    const std::uint64_t label_size = count(1);
    if (text(label_size) != label) throw wrong("holds other values than those asked for");
    at += label_size;
    FramesFile out;
    out.words.resize(count(8));
    for (std::uint64_t& w : out.words) w = word();
    const std::uint64_t frames = count(16);
    std::vector<std::uint64_t> sums;
    std::uint64_t total = 0;
    for (std::uint64_t f = 0; f < frames; ++f) {
        out.frames.frame_bytes.push_back(word());
        sums.push_back(word());
        if (out.frames.frame_bytes.back() > data.size() - total) throw wrong("cut short");
        total += out.frames.frame_bytes.back();
    }
    if (total != data.size() - at) throw wrong(total > data.size() - at ? "cut short" : "longer than its frames");
    const std::vector<std::uint64_t> offsets = offsets_of(out.frames);
    data.erase(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(at));  // the frames alone, in place
    out.frames.bytes = std::move(data);
    std::vector<char> bad(frames, 0);
    tbb::parallel_for(std::size_t{0}, static_cast<std::size_t>(frames), [&](std::size_t f) {
        bad[f] = checksum(std::span(out.frames.bytes).subspan(offsets[f], out.frames.frame_bytes[f])) != sums[f];
    });
    if (std::find(bad.begin(), bad.end(), 1) != bad.end()) throw wrong("a frame's checksum differs");
    return out;
}

void write_packed_file(const std::filesystem::path& file, const std::string& label,
                       const std::vector<std::span<const std::uint8_t>>& arrays) {
    std::vector<std::uint64_t> lengths;
    for (const auto& a : arrays) lengths.push_back(a.size());
    const std::vector<ArrayFrame> at = frames_of(lengths);
    std::vector<std::vector<std::byte>> frames(at.size());
    tbb::parallel_for(std::size_t{0}, at.size(), [&](std::size_t f) {
        frames[f] = zstd_compress(std::as_bytes(arrays[at[f].array].subspan(at[f].first, at[f].count)), level);
    });
    write_frames_file(file, label, lengths, std::move(frames));
}

std::vector<std::vector<std::uint8_t>> read_packed_file(const std::filesystem::path& file, const std::string& label) {
    const FramesFile read = read_frames_file(file, label);
    for (const std::uint64_t length : read.words)
        if (length > (std::uint64_t{1} << 48))
            throw std::runtime_error(file.string() + ": not a packed file of byte arrays (" + label + ")");
    const std::vector<ArrayFrame> at = frames_of(read.words);
    if (at.size() != read.frames.frame_bytes.size())
        throw std::runtime_error(file.string() + ": its frames are not those of its arrays (" + label + ")");
    std::vector<std::vector<std::uint8_t>> arrays(read.words.size());
    for (std::size_t a = 0; a < arrays.size(); ++a) arrays[a].resize(read.words[a]);
    const std::vector<std::uint64_t> offsets = offsets_of(read.frames);
    std::vector<std::string> errors(at.size());
    tbb::parallel_for(std::size_t{0}, at.size(), [&](std::size_t f) {
        errors[f] = zstd_decompress(std::span(read.frames.bytes).subspan(offsets[f], read.frames.frame_bytes[f]),
                                    std::as_writable_bytes(std::span(arrays[at[f].array]).subspan(at[f].first, at[f].count)));
    });
    for (const std::string& e : errors)
        if (!e.empty()) throw std::runtime_error(file.string() + ": a frame " + e + " (" + label + ")");
    return arrays;
}

}  // namespace dtb
