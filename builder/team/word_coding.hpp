// The words of positions a team member asks other members for
// (TeamTables::locate), as small distances rather than eight bytes each
// (docs/design.md, "Distributed build"; docs/scaling.md). The questions of a
// run of positions come as interleaved streams: a position asks for the child
// of each of its man moves in turn, and the next position's children under the
// same moves lie a few places further on in the same tables, since the king
// placements of one men configuration map in order onto those of the
// configuration after a man move. So each word is written as its distance
// from the nearest of eight references: a word near it (within 2^10)
// replaces that reference, so that each stream keeps its own; a word far
// from all starts a stream, in the reference longest unused by a far word
// (in turn). The reader makes the same choices from the same words.
//
// A word: the reference r (3 bits) and the low 4 bits of the zigzagged
// distance in a first byte whose top bit says more follows, then the rest of
// the distance 7 bits a byte (LEB128). A distance within [-8, 7] takes one
// byte, within [-1024, 1023] two, and any 64-bit word at most ten.
//
// StreamVByte (Debian's libstreamvbyte) codes 32-bit integers and their
// differences from the previous one only; these are 64-bit words of several
// streams at once, so it does not serve.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

namespace dtb {

class WordCoding {
public:
    static constexpr int references = 8;

    static constexpr std::size_t max_bytes = 10;  // of one word

    // Writes `w` at `out`, which has room for max_bytes; returns the end.
    std::byte* write(std::uint64_t w, std::byte* out) noexcept {
        const int r = nearest(w);
        const std::uint64_t d = w - last_[r];  // modulo 2^64: the distance, signed
        std::uint64_t z = d << 1 ^ (0 - (d >> 63));  // zigzag: a short distance either way, a small number
        keep(r, z, w);
        std::byte first = static_cast<std::byte>(r | (z & 0xF) << 3);
        z >>= 4;
        if (z) first |= std::byte{0x80};
        *out++ = first;
        while (z) {
            *out++ = static_cast<std::byte>((z & 0x7F) | (z > 0x7F ? 0x80 : 0));
            z >>= 7;
        }
        return out;
    }
    // Appends `w` to `out`.
    void write(std::uint64_t w, std::vector<std::byte>& out) {
        const std::size_t at = out.size();
        out.resize(at + max_bytes);
        out.resize(static_cast<std::size_t>(write(w, out.data() + at) - out.data()));
    }

    // Reads the next word from `in` at `at`, which it moves past it; throws
    // if the bytes end inside a word or spell more than 64 bits.
    std::uint64_t read(std::span<const std::byte> in, std::size_t& at) {
        if (at >= in.size()) throw std::runtime_error("a team message of position words ends inside a word");
        const auto first = std::to_integer<unsigned>(in[at++]);
        const int r = static_cast<int>(first & 7);
        std::uint64_t z = first >> 3 & 0xF;
        for (int shift = 4, more = first & 0x80; more; shift += 7) {
            if (shift > 63)
                throw std::runtime_error("a team message of position words spells a word of more than 64 bits");
            if (at >= in.size()) throw std::runtime_error("a team message of position words ends inside a word");
            const auto b = std::to_integer<unsigned>(in[at++]);
            if (shift > 57 && (b & 0x7F) >> (64 - shift) != 0)  // the tenth byte holds 4 bits only
                throw std::runtime_error("a team message of position words spells a word of more than 64 bits");
            z |= std::uint64_t{b & 0x7F} << shift;
            more = b & 0x80;
        }
        const std::uint64_t w = last_[r] + (z >> 1 ^ (0 - (z & 1)));
        keep(r, z, w);
        return w;
    }

private:
    static constexpr std::uint64_t near = 2048;  // zigzag of 2^10: two bytes

    // Word w, at zigzagged distance z from reference r, becomes a reference.
    void keep(int r, std::uint64_t z, std::uint64_t w) noexcept {
        if (z < near) {
            last_[r] = w;
        } else {
            last_[next_] = w;
            next_ = (next_ + 1) % references;
        }
    }

    // The reference closest to w (the first of equals).
    int nearest(std::uint64_t w) const noexcept {
        int best = 0;
        std::uint64_t best_distance = ~std::uint64_t{0};
        for (int r = 0; r < references; ++r) {
            const std::uint64_t distance = w >= last_[r] ? w - last_[r] : last_[r] - w;
            if (distance < best_distance) {
                best_distance = distance;
                best = r;
            }
        }
        return best;
    }

    std::array<std::uint64_t, references> last_{};
    int next_ = 0;
};

}  // namespace dtb
