// What a .wld's layout buys (issue 51, item 3): reads the .wld tables of
// DIR/VARIANT (format 1, every position) and sums, over the set, the bytes
// zstd makes of its values and the time to decompress them, for
//
//   - "apart": each side to move of a material coded on its own, 2 bits a
//     position, blocks of 2^s positions (today's coding; the materials equal
//     to their mirror have one side);
//   - "pairs": a placement's two sides to move in one nibble (White to move
//     in the low bits), blocks of 2^s positions (2^(s-1) placements), each
//     side's capture positions filled with that side's value before;
//
//   - "up-fill b" and "up-fill k": apart, but a capture position filled with
//     the value one row up (the position `stride` before it in the frame:
//     b, the black kings' placements, the white kings one step back; k, the
//     king placements, the men configuration before), else the one before;
//   - "xor b" and "xor k": the same fill, then each value XORed with the
//     one a row up (in the frame; the first row as it is): a value as
//     likely as the row above's becomes a 0, which zstd codes in fewer bytes
//     than LZ matches broken by a few differences;
//
//   - "compact": "pairs" (for a material equal to its mirror, "apart") with
//     the positions a one-ply search answers left to the coder (filled as a
//     capture position is): the side to move has no capture, the side not
//     to move has one, and no move leads to such a position again
//     (probe/left_out.hpp, what a .wld of version 4 leaves out);
//
// for s = 16, 17, 18 and zstd levels 12 and 19. The materials equal to their
// mirror stay "apart" in every row ("pairs" is "apart" there).
//
//     wld_study VARIANT DIR [STRIDE [LEVELS [SHIFTS]]]
//
// STRIDE: every STRIDE-th span of 2^18 placements only (default 4); LEVELS
// and SHIFTS: lists such as 12,19 and 16,17,18 (the defaults). Not a test:
// it measures.
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <tbb/parallel_for.h>

#include "bench/studies/study.hpp"
#include "draughts/movegen.hpp"
#include "draughts/variant.hpp"
#include "probe/index.hpp"
#include "probe/left_out.hpp"
#include "probe/table_file.hpp"
#include "probe/value.hpp"
#include "probe/zstd_frame.hpp"

using namespace dtb;

namespace {

constexpr int span_shift = 18;  // placements a sampled span
std::vector<int> levels = {12, 19};
std::vector<int> shifts = {16, 17, 18};

using bench::Sums;

std::vector<std::uint8_t> decode(const TableFile& f) {
    const TableHeader& h = f.header();
    std::vector<std::uint8_t> out(h.positions());
    tbb::parallel_for(std::uint64_t{0}, h.block_count(), [&](std::uint64_t b) {
        std::vector<std::byte> raw(h.block_bytes(b));
        f.read_block(b, raw);
        for (std::uint64_t k = 0; k < h.block_values(b); ++k)
            out[h.block_first(b) + k] = static_cast<std::uint8_t>(value_at(raw, 2, k));
    });
    return out;
}

// `values` packed `per_byte` (4: 2 bits each; 2: nibbles) and coded in frames
// of `frame_values` values: bytes and decompression seconds added to `sums`.
void code(const std::vector<std::uint8_t>& values, int per_byte, std::uint64_t frame_values, const std::string& name,
          std::map<std::string, double>& sums) {
    const int bits = 8 / per_byte;
    for (std::uint64_t first = 0; first < values.size(); first += frame_values) {
        const std::uint64_t n = std::min<std::uint64_t>(frame_values, values.size() - first);
        std::vector<std::byte> raw((n + per_byte - 1) / per_byte, std::byte{0});
        for (std::uint64_t k = 0; k < n; ++k)
            raw[k / per_byte] |= std::byte(values[first + k] << (bits * (k % per_byte)));
        for (int level : levels) {
            const auto t0 = std::chrono::steady_clock::now();
            const auto frame = zstd_compress(raw, level);
            const auto t1 = std::chrono::steady_clock::now();
            std::vector<std::byte> back(raw.size());
            zstd_decompress(frame, back);
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
            sums[name + " z" + std::to_string(level) + " compress s"] += std::chrono::duration<double>(t1 - t0).count();
            sums[name + " z" + std::to_string(level)] += frame.size();
            sums[name + " z" + std::to_string(level) + " decompress us/frame"] += s * 1e6;
            sums[name + " z" + std::to_string(level) + " frames"] += 1;
        }
    }
}

// The values not kept replaced by the kept one before (the first kept for
// those before it), as the writer fills a capture position.
void fill(std::vector<std::uint8_t>& values, const std::vector<bool>& kept) {
    std::size_t k = 0;
    while (k < values.size() && !kept[k]) ++k;
    std::uint8_t prev = k < values.size() ? values[k] : 0;
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = kept[i] ? (prev = values[i]) : prev;
}

// One side's values of a span (code 0 draw, 1 win, 2 loss) with the
// positions its side to move has a capture in marked, coded apart and with
// the filters above in frames of 2^shift values: bytes and times to `u`.
void code_side(const std::vector<std::uint8_t>& values, const std::vector<bool>& care, std::uint64_t b_stride,
               std::uint64_t k_stride, std::map<std::string, double>& u) {
    const std::uint64_t n = values.size();
    std::vector<std::uint8_t> before(n);
    {
        std::size_t k = 0;
        while (k < n && !care[k]) ++k;
        std::uint8_t prev = k < n ? values[k] : 0;
        for (std::size_t i = 0; i < n; ++i) before[i] = care[i] ? (prev = values[i]) : prev;
    }
    for (int shift : shifts) {
        const std::string sh = " 2^" + std::to_string(shift);
        const std::uint64_t frame = std::uint64_t{1} << shift;
        code(before, 4, frame, "apart" + sh, u);
        for (const auto& [name, stride] : {std::pair{"b", b_stride}, std::pair{"k", k_stride}}) {
            std::vector<std::uint8_t> up(n), x(n);
            for (std::uint64_t i = 0; i < n; ++i) {
                const std::uint64_t at = i % frame;
                if (care[i]) up[i] = values[i];
                else if (at >= stride) up[i] = up[i - stride];
                else up[i] = at > 0 ? up[i - 1] : before[i];
                x[i] = at >= stride ? static_cast<std::uint8_t>(up[i] ^ up[i - stride]) : up[i];
            }
            code(up, 4, frame, std::string("up-fill ") + name + sh, u);
            code(x, 4, frame, std::string("xor ") + name + sh, u);
        }
    }
}

template <class V>
void run(const std::filesystem::path& dir, std::uint64_t stride, Sums& totals) {
    constexpr int N = V::board_size;
    for (auto& e : std::filesystem::directory_iterator(dir / std::string(V::name))) {
        if (e.path().extension() != ".wld") continue;
        const Material m = Material::parse(e.path().stem().string());
        const TableFile f = TableFile::open(e.path(), {V::name, m, TableKind::wld});
        const auto wdl = decode(f);
        const Index<N> own(m), mirror(m.mirrored());
        const std::uint64_t pps = own.size();
        const std::uint64_t spans = (pps + (std::uint64_t{1} << span_shift) - 1) >> span_shift;
        const std::uint64_t sampled = (spans + stride - 1) / stride;
        std::map<std::string, double> t;
        t["file bytes"] = static_cast<double>(std::filesystem::file_size(e.path()));
        t["file positions"] = static_cast<double>(wdl.size());
        std::mutex tm;
        tbb::parallel_for(std::uint64_t{0}, sampled, [&](std::uint64_t s) {
            const std::uint64_t first = (s * stride) << span_shift;
            const std::uint64_t n = std::min<std::uint64_t>(std::uint64_t{1} << span_shift, pps - first);
            std::map<std::string, double> u;
            const std::uint64_t b_stride = std::max<std::uint64_t>(
                                    1, combination::binomial(draughts::Geometry<N>::squares - m.white_men - m.black_men -
                                                                 m.white_kings,
                                                             m.black_kings)),
                                k_stride = own.king_placements();
            if (m == m.mirrored()) {
                const std::vector<std::uint8_t> w(wdl.begin() + first, wdl.begin() + first + n);
                std::vector<bool> care(n);
                std::vector<std::uint8_t> compact(w);
                std::vector<bool> kept(n);
                for (std::uint64_t i = 0; i < n; ++i) {
                    const draughts::Position<N> p = own.unrank(first + i);
                    care[i] = !draughts::has_capture<V>(p);
                    const bool out = care[i] && left_out<V>(p);
                    kept[i] = care[i] && !out;
                    u["threatened"] += care[i] && threatened<V>(p);
                    u["left out"] += out;
                }
                fill(compact, kept);
                for (int shift : shifts) {
                    code(w, 4, std::uint64_t{1} << shift, "pairs 2^" + std::to_string(shift), u);
                    code(compact, 4, std::uint64_t{1} << shift, "compact 2^" + std::to_string(shift), u);
                }
                code_side(w, care, b_stride, k_stride, u);
                u["positions"] += n;
            } else {
                std::vector<std::uint8_t> w(n), b(n);
                std::vector<bool> wcare(n), bcare(n), wkept(n), bkept(n);
                for (std::uint64_t i = 0; i < n; ++i) {
                    draughts::Position<N> p = own.unrank(first + i);
                    w[i] = wdl[first + i];
                    wcare[i] = !draughts::has_capture<V>(p);
                    // The same placement with Black to move, turned round
                    // (flipped() keeps the mover: White to move after it).
                    draughts::Position<N> q = p.flipped();
                    q.side_to_move = draughts::Color::white;
                    b[i] = wdl[pps + mirror.rank(q)];
                    bcare[i] = !draughts::has_capture<V>(q);
                    // Threatened: this side has no capture, the other one has.
                    u["threatened"] += (wcare[i] && !bcare[i]) + (bcare[i] && !wcare[i]);
                    const bool wout = wcare[i] && !bcare[i] && left_out<V>(p);
                    const bool bout = bcare[i] && !wcare[i] && left_out<V>(q);
                    u["left out"] += wout + bout;
                    wkept[i] = wcare[i] && !wout;
                    bkept[i] = bcare[i] && !bout;
                }
                std::vector<std::uint8_t> wc(w), bc(b), compact(n);
                fill(wc, wkept);
                fill(bc, bkept);
                for (std::uint64_t i = 0; i < n; ++i) compact[i] = static_cast<std::uint8_t>(wc[i] | bc[i] << 2);
                for (auto* side : {&w, &b}) {
                    const auto& care = side == &w ? wcare : bcare;
                    std::size_t k = 0;
                    while (k < n && !care[k]) ++k;
                    std::uint8_t prev = k < n ? (*side)[k] : 0;
                    for (std::size_t i = 0; i < n; ++i) (*side)[i] = care[i] ? (prev = (*side)[i]) : prev;
                }
                std::vector<std::uint8_t> pairs(n);
                for (std::uint64_t i = 0; i < n; ++i) pairs[i] = static_cast<std::uint8_t>(w[i] | b[i] << 2);
                for (int shift : shifts) {
                    code(pairs, 2, std::uint64_t{1} << (shift - 1), "pairs 2^" + std::to_string(shift), u);
                    code(compact, 2, std::uint64_t{1} << (shift - 1), "compact 2^" + std::to_string(shift), u);
                }
                code_side(w, wcare, b_stride, k_stride, u);
                code_side(b, bcare, b_stride, k_stride, u);
                u["positions"] += 2.0 * n;
            }
            std::lock_guard l(tm);
            for (auto& [k, v] : u) t[k] += v;
        });
        std::fprintf(stderr, "%-10s %s %8.2f today, %8.2f pairs 2^16 z12, %8.2f compact; %.1f%% threatened, %.1f%% left out\n",
                     m.name().c_str(), m == m.mirrored() ? "sym" : "   ", t["file positions"] / t["file bytes"],
                     t["positions"] / t["pairs 2^16 z12"], t["positions"] / t["compact 2^16 z12"],
                     100 * t["threatened"] / t["positions"], 100 * t["left out"] / t["positions"]);
        // The sample's bytes of each coding scaled to the set: the file's bytes
        // times the coding's bytes over today's coding's on the same sample.
        const double base = t["apart 2^" + std::to_string(shifts[0]) + " z" + std::to_string(levels[0])];
        for (auto& [k, v] : t) {
            const bool bytes = k.find(" z") != std::string::npos && k.find(" s") == std::string::npos &&
                               k.find("frame") == std::string::npos;
            const double scaled = bytes ? t["file bytes"] * v / base : v;
            totals.add((m == m.mirrored() ? "sym " : "non-sym ") + k, scaled);
            totals.add("all " + k, scaled);
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: wld_study VARIANT DIR [STRIDE]\n");
        return 2;
    }
    const std::uint64_t stride = argc > 3 ? std::stoull(argv[3]) : 4;
    auto list = [](const char* text) {
        std::vector<int> out;
        for (const char* c = text; *c;) {
            out.push_back(std::atoi(c));
            while (*c && *c != ',') ++c;
            if (*c == ',') ++c;
        }
        return out;
    };
    if (argc > 4) levels = list(argv[4]);
    if (argc > 5) shifts = list(argv[5]);
    Sums totals;
    draughts::with_variant(argv[1], [&]<class V>() { run<V>(argv[2], stride, totals); });
    for (const char* group : {"sym ", "non-sym ", "all "}) {
        auto& b = totals.bytes;
        const std::string g = group;
        const double pos = b[g + "file positions"];
        std::printf("%s: %.0f positions sampled; files %.2f positions a byte (the rows: the files' bytes scaled "
                    "by each coding's bytes over today's on the sample)\n",
                    group, b[g + "positions"], pos / b[g + "file bytes"]);
        for (auto& [k, v] : b) {
            if (k.rfind(g, 0) != 0 || k.find("frames") != std::string::npos || k.find("file") != std::string::npos ||
                k == g + "positions")
                continue;
            if (k == g + "threatened" || k == g + "left out") {
                std::printf("  %-36s %10.1f%% of the positions sampled\n", k.c_str() + g.size(),
                            100 * v / b[g + "positions"]);
            } else if (k.find("compress s") != std::string::npos) {
                std::printf("  %-36s %10.1f s, sample\n", k.c_str() + g.size(), v);
            } else if (k.find("decompress") != std::string::npos) {
                const std::string frames = k.substr(0, k.find(" decompress")) + " frames";
                std::printf("  %-36s %10.2f\n", k.c_str() + g.size(), v / b[frames]);
            } else {
                std::printf("  %-36s %12.0f bytes %8.2f positions a byte\n", k.c_str() + g.size(), v, pos / v);
            }
        }
    }
}
