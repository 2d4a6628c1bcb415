// Where the bytes of a set's tables go (issue 15): reads every .dtw table of
// DIR/VARIANT, works out which positions have a capture (their value is never
// read), and sums over the set the bytes of other encodings of the same
// values, with the time zstd took for each: the .dtw as written today,
// distances in moves with draws and capture positions left to the coder, at
// zstd levels 3, 6 and 9; the .wld at levels 12, 15 and 19 in blocks of
// 2^16, 2^17 and 2^18 positions, packed 4 a byte or one a byte; and the
// order-0 entropy of the distances per superblock, with the previous value
// as context (order 1) and within each men configuration. Then zstd
// dictionaries, trained on every other block of 2^16 positions of the
// sample and tried on the others: one for the variant, and one for each
// table (its size counted against the table).
//
//     compression_study VARIANT DIR [SHIFT [MATERIAL|all [STRIDE]]]
//
// SHIFT: superblocks of 2^SHIFT positions (default 18); STRIDE: study every
// STRIDE-th superblock only (default 1, all). Prints one line a figure:
// bytes, and positions a byte. Not a test: it measures.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <tbb/parallel_for.h>
#include <zdict.h>
#include <zstd.h>

#include "bench/studies/study.hpp"
#include "draughts/movegen.hpp"
#include "draughts/variant.hpp"
#include "probe/index.hpp"
#include "probe/table_file.hpp"
#include "probe/value.hpp"
#include "probe/zstd_frame.hpp"

using namespace dtb;

using bench::Sums;

// Blocks of 2^16 positions as coded today, kept for the dictionary study:
// by kind, the raw bytes and the positions of each block, and whether it is
// one the dictionary is trained on (every other) or one it is tried on.
struct Blocks {
    struct Block {
        std::vector<std::byte> raw;
        std::uint64_t positions = 0;
        bool train = false;
        std::string material;
    };
    std::mutex m;
    std::map<std::string, std::vector<Block>> kinds;
    void add(const std::string& kind, std::vector<std::byte> raw, std::uint64_t positions, bool train,
             const std::string& material) {
        std::lock_guard l(m);
        kinds[kind].push_back({std::move(raw), positions, train, material});
    }
};

static std::size_t zsize(const std::vector<std::byte>& raw, int level) { return zstd_compress(raw, level).size(); }

using bench::moves_of;

template <class V>
void run(const std::filesystem::path& dir, Sums& sums, Blocks& blocks, int shift, const std::string& only,
         std::uint64_t stride) {
    constexpr int N = V::board_size;
    for (auto& e : std::filesystem::directory_iterator(dir / std::string(V::name))) {
        if (e.path().extension() != ".dtw") continue;
        const Material m = Material::parse(e.path().stem().string());
        if (!only.empty() && m.name() != only) continue;
        const TableFile f = TableFile::open(e.path(), {V::name, m, TableKind::dtw});
        const TableHeader& h = f.header();
        const Index<N> own(m), mirror(m.mirrored());
        const std::uint64_t pps = h.positions_per_side, total = h.positions();
        const std::uint64_t sb = std::uint64_t{1} << shift;  // superblock
        const std::uint64_t nsb = (total + sb - 1) / sb;
        Sums local;
        tbb::parallel_for(std::uint64_t{0}, nsb, [&](std::uint64_t s) {
            if (s % stride != 0) return;
            const std::uint64_t first = s * sb, count = std::min(sb, total - first);
            std::vector<std::uint32_t> code(count);
            std::vector<std::uint8_t> care(count);
            std::vector<std::byte> raw;
            for (std::uint64_t b = first >> h.block_shift; b <= (first + count - 1) >> h.block_shift; ++b) {
                raw.resize(h.block_bytes(b));
                f.read_block(b, raw);
                const std::uint64_t g0 = b << h.block_shift;
                for (std::uint64_t k = 0; k < h.block_values(b); ++k) {
                    const std::uint64_t g = g0 + k;
                    if (g < first || g >= first + count) continue;
                    code[g - first] = value_at(raw, h.value_bits, k);
                }
            }
            for (std::uint64_t i = 0; i < count; ++i) {
                const std::uint64_t g = first + i;
                const auto p = table_position(own, mirror, g);
                care[i] = !draughts::has_capture<V>(p);
            }
            // sub-blocks of 2^16 (and whole superblock)
            auto each = [&](int bshift, auto&& f) {
                const std::uint64_t bs = std::uint64_t{1} << bshift;
                for (std::uint64_t a = 0; a < count; a += bs) f(a, std::min(bs, count - a));
            };
            auto fill = [&](std::uint64_t a, std::uint64_t n, auto&& sym, auto&& cares) {
                std::vector<std::uint32_t> out(n);
                std::uint64_t firstc = 0;
                while (firstc < n && !cares(a + firstc)) ++firstc;
                std::uint32_t prev = firstc < n ? sym(a + firstc) : 0;
                for (std::uint64_t i = 0; i < n; ++i) {
                    if (cares(a + i)) prev = sym(a + i);
                    out[i] = prev;
                }
                return out;
            };
            auto bytes8 = [&](const std::vector<std::uint32_t>& v, bool wide) {
                std::vector<std::byte> r;
                for (auto x : v) {
                    r.push_back(std::byte(x & 255));
                    if (wide) r.push_back(std::byte(x >> 8));
                }
                return r;
            };
            auto packed2 = [&](const std::vector<std::uint32_t>& v) {
                std::vector<std::byte> r((v.size() + 3) / 4);
                for (std::size_t i = 0; i < v.size(); ++i) r[i / 4] |= std::byte(v[i] << (2 * (i % 4)));
                return r;
            };
            const bool wide = h.value_bits == 16;
            auto wdl = [&](std::uint64_t i) { return wld_code(value_of_dtw_code(code[i]).wdl); };
            auto capt = [&](std::uint64_t i) { return care[i] != 0; };
            auto notdraw = [&](std::uint64_t i) { return care[i] && code[i] != 0; };
            auto cod = [&](std::uint64_t i) { return code[i]; };
            auto mov = [&](std::uint64_t i) { return moves_of(code[i]); };
            auto timed = [&](const std::string& k, const std::vector<std::byte>& raw, int level) {
                const auto t0 = std::chrono::steady_clock::now();
                const double z = zsize(raw, level);
                const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
                local.add(k, z);
                local.add("time_us " + k, us);
            };
            const std::string side = first < pps ? "W" : "B";
            for (int bshift : {16, 17, 18}) {
                if (bshift > shift) continue;
                const std::string t = "b" + std::to_string(bshift).append(" ");
                each(bshift, [&](std::uint64_t a, std::uint64_t n) {
                    if (bshift == 16) {
                        const auto c0 = bytes8(fill(a, n, cod, capt), wide);
                        const bool train = ((s / stride) + (a >> 16)) % 2 == 0;
                        blocks.add("dtw z3", c0, n, train, m.name());
                        blocks.add("wld z12", packed2(fill(a, n, wdl, capt)), n, train, m.name());
                        timed(t + "dtw0 codes prevfill z3", c0, 3);
                        local.add(t + "dtw0 side " + side, zsize(c0, 3));
                        const auto mv = bytes8(fill(a, n, mov, notdraw), wide);
                        timed(t + "dtw2 moves drawsfree z3", mv, 3);
                        timed(t + "dtw2 moves drawsfree z6", mv, 6);
                        timed(t + "dtw2 moves drawsfree z9", mv, 9);
                    }
                    const auto w = fill(a, n, wdl, capt);
                    const auto wp = packed2(w);
                    timed(t + "wld0 packed z12", wp, 12);
                    timed(t + "wld0 packed z15", wp, 15);
                    timed(t + "wld0 packed z19", wp, 19);
                    if (bshift != 17) timed(t + "wld1 bytes z12", bytes8(w, false), 12);
                });
            }
            // entropy of moves symbols over cared non-draw positions, order 0 and order 1 (prev cared)
            std::uint64_t n = 0;
            std::map<std::uint32_t, std::uint64_t> h0;
            for (std::uint64_t i = 0; i < count; ++i)
                if (notdraw(i)) ++h0[mov(i)], ++n;
            double bits = 0;
            for (auto& [s, c] : h0) bits -= c * std::log2(double(c) / n);
            local.add("H0 moves (bytes) per superblock", bits / 8);
            {   // order 1: context = previous cared nondraw symbol (capped at 255)
                std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> c2;
                std::map<std::uint32_t, std::uint64_t> c1;
                std::uint32_t prev = 0;
                for (std::uint64_t i = 0; i < count; ++i)
                    if (notdraw(i)) { ++c2[{prev, mov(i)}]; ++c1[prev]; prev = mov(i); }
                double b1 = 0;
                for (auto& [k, c] : c2) b1 -= c * std::log2(double(c) / c1[k.first]);
                local.add("H1 moves (bytes) per superblock", b1 / 8);
                // order 0 within each men configuration
                std::map<std::pair<std::uint64_t, std::uint32_t>, std::uint64_t> cm;
                std::map<std::uint64_t, std::uint64_t> nm;
                for (std::uint64_t i = 0; i < count; ++i) {
                    if (!notdraw(i)) continue;
                    const std::uint64_t g = first + i;
                    const std::uint64_t mc = g < pps ? g / own.king_placements() : (1ull << 40) + (g - pps) / mirror.king_placements();
                    ++cm[{mc, mov(i)}]; ++nm[mc];
                }
                double bm = 0;
                for (auto& [k, c] : cm) bm -= c * std::log2(double(c) / nm[k.first]);
                local.add("Hmen moves (bytes) per superblock", bm / 8);
                local.add("men configs", nm.size());
            }
            std::uint64_t nw = 0, hw[3] = {0, 0, 0};
            for (std::uint64_t i = 0; i < count; ++i)
                if (capt(i)) ++hw[wdl(i)], ++nw;
            double bw = 0;
            for (auto c : hw)
                if (c) bw -= c * std::log2(double(c) / nw);
            local.add("H0 wld (bytes) per superblock", bw / 8);
            local.add("positions", count);
            local.add("cared", nw);
            local.add("cared nondraw", n);
        });
        for (auto& [k, v] : local.bytes) sums.add(k, v);
        std::fprintf(stderr, "%s done\n", m.name().c_str());
    }
}

int main(int argc, char** argv) {
    if (argc < 3) return 2;
    const std::string variant = argv[1];
    const std::filesystem::path dir = argv[2];
    const int shift = argc > 3 ? std::atoi(argv[3]) : 18;
    const std::string only = argc > 4 && std::string(argv[4]) != "all" ? argv[4] : "";
    const std::uint64_t stride = argc > 5 ? std::atoi(argv[5]) : 1;
    Sums sums;
    Blocks blocks;
    draughts::with_variant(variant, [&]<class V>() { run<V>(dir, sums, blocks, shift, only, stride); });
    const double pos = sums.bytes["positions"];
    for (auto& [k, v] : sums.bytes)
        std::printf("%-40s %16.0f  %8.2f positions/byte\n", k.c_str(), v, v > 0 ? pos / v : 0.0);
    // Dictionaries trained on half the blocks (at most 4,000 of them and 96
    // MiB) and tried on the other half: one for the variant, and one of at
    // most 16 KiB for each table (none where training fails: too few blocks).
    using Block = Blocks::Block;
    struct Tried {
        std::uint64_t positions = 0;
        double plain = 0, with = 0, dictionaries = 0;
    };
    auto attempt = [&](const std::vector<const Block*>& list, int level, std::size_t capacity) {
        Tried t;
        std::vector<std::byte> samples;
        std::vector<std::size_t> sizes;
        for (const Block* b : list)
            if (b->train && sizes.size() < 4000 && samples.size() < (std::size_t{96} << 20)) {
                samples.insert(samples.end(), b->raw.begin(), b->raw.end());
                sizes.push_back(b->raw.size());
            }
        std::vector<std::byte> dict(capacity);
        const std::size_t made =
            sizes.size() < 8 ? 0
                             : ZDICT_trainFromBuffer(dict.data(), capacity, samples.data(), sizes.data(),
                                                     static_cast<unsigned>(sizes.size()));
        const bool have = made > 0 && !ZDICT_isError(made);
        ZSTD_CDict* cdict = have ? ZSTD_createCDict(dict.data(), made, level) : nullptr;
        ZSTD_CCtx* cctx = ZSTD_createCCtx();
        std::vector<std::byte> out;
        for (const Block* b : list) {
            if (b->train) continue;
            t.positions += b->positions;
            const double plain = zsize(b->raw, level);
            t.plain += plain;
            if (!have) {
                t.with += plain;
                continue;
            }
            out.resize(ZSTD_compressBound(b->raw.size()));
            t.with += std::min(plain, static_cast<double>(ZSTD_compress_usingCDict(cctx, out.data(), out.size(),
                                                                                    b->raw.data(), b->raw.size(), cdict)));
        }
        t.dictionaries = have ? made : 0;
        ZSTD_freeCCtx(cctx);
        ZSTD_freeCDict(cdict);
        return t;
    };
    for (auto& [kind, list] : blocks.kinds) {
        const int level = kind == "wld z12" ? 12 : 3;
        std::vector<const Block*> all;
        std::map<std::string, std::vector<const Block*>> by_material;
        for (const Block& b : list) {
            all.push_back(&b);
            by_material[b.material].push_back(&b);
        }
        for (std::size_t capacity : {std::size_t{16} << 10, std::size_t{64} << 10}) {
            const Tried t = attempt(all, level, capacity);
            std::printf("%s, one dictionary of %.0f bytes: the blocks tried %.2f positions/byte without it, %.2f with "
                        "it (%.1f%% of the bytes)\n",
                        kind.c_str(), t.dictionaries, t.positions / t.plain, t.positions / t.with, 100 * t.with / t.plain);
        }
        for (std::size_t capacity : {std::size_t{4} << 10, std::size_t{16} << 10}) {
            Tried sum;
            for (const auto& [material, blocks_of] : by_material) {
                const Tried t = attempt(blocks_of, level, capacity);
                sum.positions += t.positions;
                sum.plain += t.plain;
                sum.with += t.with;
                sum.dictionaries += t.dictionaries;
            }
            // A table holds one dictionary for all its blocks, not for those tried: its
            // share is weighed against the whole set's bytes, outside this tool.
            std::printf("%s, a dictionary of up to %zu KiB a table (%.0f bytes in all): the blocks tried %.2f "
                        "positions/byte without, %.2f with (%.1f%% of the bytes, the dictionaries not counted)\n",
                        kind.c_str(), capacity >> 10, sum.dictionaries, sum.positions / sum.plain,
                        sum.positions / sum.with, 100 * sum.with / sum.plain);
        }
    }
}
