#include "builder/team/wire_packing.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>

#include <zstd.h>

namespace dtb {

namespace {

constexpr std::size_t wire_header_bytes = 8;
// Smaller parts cross as they are: a zstd frame's own bytes would be most of them.
constexpr std::size_t wire_smallest_packed = 256;
constexpr int wire_level = 1;  // zstd's fastest that still finds the runs (as PackedCodes)

void write_wire_header(std::uint64_t word, std::byte* at) {
    for (int b = 0; b < 8; ++b) at[b] = static_cast<std::byte>(word >> 8 * b);
}

std::uint64_t read_wire_header(std::span<const std::byte> part) {
    std::uint64_t word = 0;
    for (int b = 0; b < 8; ++b) word |= std::uint64_t{std::to_integer<std::uint8_t>(part[b])} << 8 * b;
    return word;
}

// Calls f with `size` as a constant for the element sizes teams send (2, 4
// and 8 bytes), so that the loops over an element's bytes unroll and
// vectorise (bench/studies/transfer_study times the packing), else with
// `size` itself.
template <class F>
void with_element_size(std::size_t size, F&& f) {
    switch (size) {
    case 2: return f(std::integral_constant<std::size_t, 2>{});
    case 4: return f(std::integral_constant<std::size_t, 4>{});
    case 8: return f(std::integral_constant<std::size_t, 8>{});
    default: return f(size);
    }
}

// Element i's byte b goes to plane b: planes[b * n + i] (n elements).
void to_byte_planes(const std::byte* raw, std::size_t n, std::size_t size, std::byte* planes) {
    with_element_size(size, [&](auto s) {
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t b = 0; b < s; ++b) planes[b * n + i] = raw[i * s + b];
    });
}

void from_byte_planes(const std::byte* planes, std::size_t n, std::size_t size, std::byte* raw) {
    with_element_size(size, [&](auto s) {
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t b = 0; b < s; ++b) raw[i * s + b] = planes[b * n + i];
    });
}

}  // namespace

struct WirePacker::Contexts {
    ZSTD_CCtx* pack = ZSTD_createCCtx();
    ZSTD_DCtx* unpack = ZSTD_createDCtx();
    ~Contexts() {
        ZSTD_freeCCtx(pack);
        ZSTD_freeDCtx(unpack);
    }
};

WirePacker::WirePacker() : contexts_(std::make_unique<Contexts>()) {
    if (!contexts_->pack || !contexts_->unpack) throw std::bad_alloc();
}

WirePacker::~WirePacker() = default;

void WirePacker::pack(std::span<const std::byte> raw, std::size_t element_size, HugePagedVector<std::byte>& out) {
    if (raw.empty()) return;
    const std::size_t at = out.size();
    if (raw.size() >= wire_smallest_packed) {
        const std::byte* source = raw.data();
        if (element_size > 1) {
            planes_.resize(raw.size());
            to_byte_planes(raw.data(), raw.size() / element_size, element_size, planes_.data());
            source = planes_.data();
        }
        const std::size_t bound = ZSTD_compressBound(raw.size());
        out.resize(at + wire_header_bytes + bound);
        const std::size_t n =
            ZSTD_compressCCtx(contexts_->pack, out.data() + at + wire_header_bytes, bound, source, raw.size(), wire_level);
        if (!ZSTD_isError(n) && n < raw.size()) {
            write_wire_header(std::uint64_t{raw.size()} << 1 | 1, out.data() + at);
            out.resize(at + wire_header_bytes + n);
            return;
        }
    }
    out.resize(at + wire_header_bytes + raw.size());
    write_wire_header(std::uint64_t{raw.size()} << 1, out.data() + at);
    std::memcpy(out.data() + at + wire_header_bytes, raw.data(), raw.size());
}

std::size_t WirePacker::unpacked_size(std::span<const std::byte> part) {
    return part.size() < wire_header_bytes ? 0 : static_cast<std::size_t>(read_wire_header(part) >> 1);
}

void WirePacker::unpack(std::span<const std::byte> part, std::size_t element_size, std::byte* into,
                        const std::string& from) {
    if (part.empty()) return;
    if (part.size() < wire_header_bytes) throw std::runtime_error(from + " sent a part cut short");
    const std::uint64_t header = read_wire_header(part);
    const std::size_t size = static_cast<std::size_t>(header >> 1);
    const std::span<const std::byte> body = part.subspan(wire_header_bytes);
    if (!(header & 1)) {
        if (body.size() != size) throw std::runtime_error(from + " sent a part of another size than it said");
        std::memcpy(into, body.data(), size);
        return;
    }
    if (size % element_size != 0) throw std::runtime_error(from + " sent a part of part elements");
    std::byte* target = into;
    if (element_size > 1) {
        planes_.resize(size);
        target = planes_.data();
    }
    const std::size_t n = ZSTD_decompressDCtx(contexts_->unpack, target, size, body.data(), body.size());
    if (ZSTD_isError(n) || n != size)
        throw std::runtime_error(from + " sent a packed part that does not unpack to its size" +
                                 (ZSTD_isError(n) ? std::string(" (") + ZSTD_getErrorName(n) + ")" : std::string()));
    if (element_size > 1) from_byte_planes(planes_.data(), size / element_size, element_size, into);
}

}  // namespace dtb
