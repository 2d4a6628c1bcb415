#include "builder/output/packed_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <tbb/parallel_for.h>

#include "builder/output/replaced_file.hpp"
#include "probe/table_format.hpp"
#include "probe/zstd_frame.hpp"

namespace dtb {

namespace {

constexpr std::string_view magic = "dtb packed values 1\n";
constexpr std::uint64_t frame_size = std::uint64_t{1} << 20;
constexpr int level = 1;

// A frame's place: which array and where in it.
struct FrameAt {
    std::size_t array;
    std::uint64_t first, count;
};

template <class Arrays>
std::vector<FrameAt> frames_of(const Arrays& arrays) {
    std::vector<FrameAt> out;
    for (std::size_t a = 0; a < arrays.size(); ++a)
        for (std::uint64_t first = 0; first < arrays[a].size(); first += frame_size)
            out.push_back({a, first, std::min<std::uint64_t>(frame_size, arrays[a].size() - first)});
    return out;
}

void put_word(std::string& out, std::uint64_t word) {
    for (int i = 0; i < 8; ++i) out += static_cast<char>((word >> (8 * i)) & 0xff);
}

std::uint64_t get_word(const std::byte* in) {
    std::uint64_t word = 0;
    for (int i = 0; i < 8; ++i) word |= std::to_integer<std::uint64_t>(in[i]) << (8 * i);
    return word;
}

}  // namespace

void write_packed_file(const std::filesystem::path& file, const std::string& label,
                       const std::vector<std::span<const std::uint8_t>>& arrays) {
    const std::vector<FrameAt> at = frames_of(arrays);
    std::vector<std::vector<std::byte>> frames(at.size());
    tbb::parallel_for(std::size_t{0}, at.size(), [&](std::size_t f) {
        frames[f] = zstd_compress(std::as_bytes(arrays[at[f].array].subspan(at[f].first, at[f].count)), level);
    });
    // The header: magic, the label's length and bytes, the number of arrays
    // and their lengths, then each frame's size and checksum, all words of
    // 8 bytes, little-endian.
    std::string header(magic);
    put_word(header, label.size());
    header += label;
    put_word(header, arrays.size());
    for (const auto& a : arrays) put_word(header, a.size());
    for (const auto& frame : frames) {
        put_word(header, frame.size());
        put_word(header, checksum(frame));
    }
    ReplacedFile out(file);
    out.write(header);
    for (const auto& frame : frames) out.write(frame);
    out.commit();
}

std::vector<std::vector<std::uint8_t>> read_packed_file(const std::filesystem::path& file, const std::string& label) {
    const auto wrong = [&](const std::string& what) {
        return std::runtime_error(file.string() + ": " + what + " (a scratch file of the build, packed values of " +
                                  label + ")");
    };
    std::ifstream in(file, std::ios::binary);
    if (!in) throw wrong(std::string("cannot open it: ") + std::strerror(errno));
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw wrong("cannot read it");
    const auto* bytes = reinterpret_cast<const std::byte*>(text.data());
    std::uint64_t at = 0;
    const auto word = [&] {
        if (text.size() - at < 8) throw wrong("cut short");
        at += 8;
        return get_word(bytes + at - 8);
    };
    if (text.compare(0, magic.size(), magic) != 0) throw wrong("not a file of packed values");
    at = magic.size();
    const std::uint64_t label_size = word();
    if (label_size > text.size() - at || text.compare(at, label_size, label) != 0)
        throw wrong("holds other values than those asked for");
    at += label_size;
    const std::uint64_t count = word();
    if (count > (text.size() - at) / 8) throw wrong("cut short");
    std::vector<std::vector<std::uint8_t>> arrays(count);
    for (auto& a : arrays) {
        const std::uint64_t size = word();
        if (size > (std::uint64_t{1} << 48)) throw wrong("not a file of packed values");
        a.resize(size);
    }
    const std::vector<FrameAt> frames = frames_of(arrays);
    std::vector<std::uint64_t> offsets, sums;
    for (std::size_t f = 0; f < frames.size(); ++f) {
        offsets.push_back(word());
        sums.push_back(word());
    }
    for (std::uint64_t& o : offsets) {  // sizes to offsets
        const std::uint64_t size = o;
        o = at;
        if (size > text.size() - at) throw wrong("cut short");
        at += size;
    }
    if (at != text.size()) throw wrong("longer than its frames");
    offsets.push_back(at);
    std::vector<std::string> errors(frames.size());
    tbb::parallel_for(std::size_t{0}, frames.size(), [&](std::size_t f) {
        const std::span<const std::byte> frame(bytes + offsets[f], offsets[f + 1] - offsets[f]);
        if (checksum(frame) != sums[f]) {
            errors[f] = "a frame's checksum differs";
            return;
        }
        const FrameAt& where = frames[f];
        errors[f] = zstd_decompress(frame, std::as_writable_bytes(std::span(arrays[where.array]).subspan(where.first, where.count)));
    });
    for (const std::string& e : errors)
        if (!e.empty()) throw wrong(e);
    return arrays;
}

}  // namespace dtb
