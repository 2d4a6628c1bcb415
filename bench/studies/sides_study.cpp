// How much the two sides to move of one placement say about each other
// (issue 15): reads the .dtw tables of DIR/VARIANT, pairs each placement of a
// material with White to move with the same placement with Black to move, and
// sums over the set, for chunks of 2^15 placements (2^16 positions, today's
// block), the bytes zstd makes of
//
//   - "apart": the two sides' values coded one after the other, each side's
//     capture positions filled with the value before (today's coding, in the
//     new order);
//   - "given": White's values, then Black's replaced by their rank among the
//     Black values seen with the same White value in the table (most frequent
//     first), so that a decoder that has read White's value inverts it;
//   - the same two in moves, with draws and capture positions left to the
//     coder, and the order-0 entropies H(W) + H(B) and H(W) + H(B | W).
//
//     sides_study VARIANT DIR [MATERIAL|all [STRIDE [LEVEL]]]
//
// STRIDE: every STRIDE-th chunk only (default 8). Materials equal to their
// mirror are left out (they store one side). Not a test: it measures.
#include <cmath>
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
#include "probe/table_file.hpp"
#include "probe/value.hpp"
#include "probe/zstd_frame.hpp"

using namespace dtb;

namespace {

constexpr int chunk_shift = 15;

using bench::moves_of;
using bench::Sums;

// The values of one table, decoded whole.
std::vector<std::uint16_t> decode(const TableFile& f) {
    const TableHeader& h = f.header();
    std::vector<std::uint16_t> out(h.positions());
    tbb::parallel_for(std::uint64_t{0}, h.block_count(), [&](std::uint64_t b) {
        std::vector<std::byte> raw(h.block_bytes(b));
        f.read_block(b, raw);
        for (std::uint64_t k = 0; k < h.block_values(b); ++k)
            out[h.block_first(b) + k] = static_cast<std::uint16_t>(value_at(raw, h.value_bits, k));
    });
    return out;
}

double entropy(const std::map<std::uint32_t, double>& counts) {
    double n = 0, bits = 0;
    for (auto& [s, c] : counts) n += c;
    for (auto& [s, c] : counts) bits -= c * std::log2(c / n);
    return bits;
}

// Keeps cared values, fills the others with the value before (the first cared one at the start).
std::vector<std::uint32_t> filled(const std::vector<std::uint32_t>& v, const std::vector<bool>& care) {
    std::vector<std::uint32_t> out(v.size());
    std::size_t first = 0;
    while (first < v.size() && !care[first]) ++first;
    std::uint32_t prev = first < v.size() ? v[first] : 0;
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = care[i] ? (prev = v[i]) : prev;
    return out;
}

std::size_t zbytes(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, bool wide, int level) {
    std::vector<std::byte> raw;
    for (const auto* v : {&a, &b})
        for (auto x : *v) {
            raw.push_back(std::byte(x & 255));
            if (wide) raw.push_back(std::byte(x >> 8));
        }
    return zstd_compress(raw, level).size();
}

template <class V>
void run(const std::filesystem::path& dir, const std::string& only, std::uint64_t stride, int level, Sums& totals) {
    constexpr int N = V::board_size;
    for (auto& e : std::filesystem::directory_iterator(dir / std::string(V::name))) {
        if (e.path().extension() != ".dtw") continue;
        const Material m = Material::parse(e.path().stem().string());
        if (!only.empty() && m.name() != only) continue;
        if (m == m.mirrored()) continue;
        const TableFile f = TableFile::open(e.path(), {V::name, m, TableKind::dtw});
        const bool wide = f.header().value_bits == 16;
        const auto code = decode(f);
        const Index<N> own(m), mirror(m.mirrored());
        const std::uint64_t pps = own.size(), chunks = (pps + (1u << chunk_shift) - 1) >> chunk_shift;
        // Per chunk: (W, B) codes and the care flags, for the sampled chunks.
        struct Chunk {
            std::vector<std::uint32_t> w, b;
            std::vector<bool> wcare, bcare;
        };
        std::vector<Chunk> sampled((chunks + stride - 1) / stride);
        tbb::parallel_for(std::uint64_t{0}, sampled.size(), [&](std::uint64_t s) {
            const std::uint64_t first = (s * stride) << chunk_shift;
            const std::uint64_t n = std::min<std::uint64_t>(std::uint64_t{1} << chunk_shift, pps - first);
            Chunk& c = sampled[s];
            c.w.resize(n), c.b.resize(n), c.wcare.resize(n), c.bcare.resize(n);
            for (std::uint64_t i = 0; i < n; ++i) {
                draughts::Position<N> p = own.unrank(first + i);
                c.w[i] = code[first + i];
                c.wcare[i] = !draughts::has_capture<V>(p);
                p.side_to_move = draughts::Color::black;
                const draughts::Position<N> q = p.flipped();
                c.b[i] = code[pps + mirror.rank(q)];
                c.bcare[i] = !draughts::has_capture<V>(q);
            }
        });
        // Joint counts over the table's sample, for the ranks and the entropies.
        std::map<std::string, double> t;
        std::map<std::uint32_t, std::map<std::uint32_t, double>> joint[2];  // codes, moves
        std::map<std::uint32_t, double> hw[2], hb[2];
        for (const Chunk& c : sampled) {
            const auto wf = filled(c.w, c.wcare), bf = filled(c.b, c.bcare);
            for (std::size_t i = 0; i < c.w.size(); ++i) {
                joint[0][wf[i]][bf[i]] += 1;
                if (c.wcare[i]) hw[0][c.w[i]] += 1;
                if (c.bcare[i]) hb[0][c.b[i]] += 1;
                if (c.wcare[i] && c.bcare[i] && c.w[i] && c.b[i]) joint[1][moves_of(c.w[i])][moves_of(c.b[i])] += 1;
                if (c.wcare[i] && c.w[i]) hw[1][moves_of(c.w[i])] += 1;
                if (c.bcare[i] && c.b[i]) hb[1][moves_of(c.b[i])] += 1;
            }
            t["positions"] += 2.0 * c.w.size();
        }
        double hbw = 0;
        for (auto& [w, row] : joint[1]) hbw += entropy(row);
        t["H0 moves W + B (bytes)"] = (entropy(hw[1]) + entropy(hb[1])) / 8;
        t["H0 moves W + B|W (bytes), both cared"] = (entropy(hw[1]) + hbw) / 8;
        // Rank of each B value given W, most frequent first.
        std::map<std::uint32_t, std::map<std::uint32_t, std::uint32_t>> rank;
        for (auto& [w, row] : joint[0]) {
            std::vector<std::pair<double, std::uint32_t>> order;
            for (auto& [b, c] : row) order.push_back({-c, b});
            std::sort(order.begin(), order.end());
            for (std::uint32_t r = 0; r < order.size(); ++r) rank[w][order[r].second] = r;
        }
        std::mutex tm;
        tbb::parallel_for(std::size_t{0}, sampled.size(), [&](std::size_t s) {
            const Chunk& c = sampled[s];
            const auto wf = filled(c.w, c.wcare), bf = filled(c.b, c.bcare);
            std::vector<std::uint32_t> br(c.w.size());
            for (std::size_t i = 0; i < br.size(); ++i) br[i] = rank.at(wf[i]).at(bf[i]);
            std::vector<std::uint32_t> wm(c.w.size()), bm(c.w.size());
            std::vector<bool> wmc(c.w.size()), bmc(c.w.size());
            for (std::size_t i = 0; i < wm.size(); ++i) {
                wm[i] = moves_of(c.w[i]), bm[i] = moves_of(c.b[i]);
                wmc[i] = c.wcare[i] && c.w[i], bmc[i] = c.bcare[i] && c.b[i];
            }
            const double apart = zbytes(wf, bf, wide, level), given = zbytes(wf, br, wide, level);
            const double apart_w = zbytes(wf, {}, wide, level), apart_b = zbytes(bf, {}, wide, level);
            const double mapart = zbytes(filled(wm, wmc), filled(bm, bmc), false, level);
            // .wld: 2 bits a value, the sides apart (4 a byte), or a placement's two values
            // in one nibble (2 placements a byte).
            std::vector<std::uint32_t> ww(wf.size()), wb(wf.size());
            for (std::size_t i = 0; i < ww.size(); ++i)
                ww[i] = wld_code(value_of_dtw_code(wf[i]).wdl), wb[i] = wld_code(value_of_dtw_code(bf[i]).wdl);
            auto packed = [](const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, bool pairs) {
                std::vector<std::byte> r;
                if (pairs) {
                    r.resize((a.size() + 1) / 2);
                    for (std::size_t i = 0; i < a.size(); ++i)
                        r[i / 2] |= std::byte((a[i] | b[i] << 2) << (4 * (i % 2)));
                } else {
                    r.resize((a.size() + 3) / 4 + (b.size() + 3) / 4);
                    for (std::size_t i = 0; i < a.size(); ++i) r[i / 4] |= std::byte(a[i] << (2 * (i % 4)));
                    const std::size_t o = (a.size() + 3) / 4;
                    for (std::size_t i = 0; i < b.size(); ++i) r[o + i / 4] |= std::byte(b[i] << (2 * (i % 4)));
                }
                return r;
            };
            const double wapart = zstd_compress(packed(ww, {}, false), 12).size() +
                                  zstd_compress(packed(wb, {}, false), 12).size();
            const double wpairs = zstd_compress(packed(ww, wb, true), 12).size();
            const double wpairs19 = zstd_compress(packed(ww, wb, true), 19).size();
            // Positions where either side has a capture left to the coder (Chinook's
            // exclusion: a probe would search them).
            std::vector<bool> quiet(c.w.size());
            std::uint64_t nquiet = 0;
            for (std::size_t i = 0; i < quiet.size(); ++i) nquiet += quiet[i] = c.wcare[i] && c.bcare[i];
            const auto wq = filled(c.w, quiet), bq = filled(c.b, quiet);
            std::vector<std::uint32_t> wwq(wq.size()), wbq(wq.size());
            for (std::size_t i = 0; i < wq.size(); ++i)
                wwq[i] = wld_code(value_of_dtw_code(wq[i]).wdl), wbq[i] = wld_code(value_of_dtw_code(bq[i]).wdl);
            const double wquiet = zstd_compress(packed(wwq, {}, false), 12).size() +
                                  zstd_compress(packed(wbq, {}, false), 12).size();
            const double dquiet_w = zbytes(wq, {}, wide, level), dquiet_b = zbytes(bq, {}, wide, level);
            const double dquiet = dquiet_w + dquiet_b;
            std::uint64_t nw = 0, nb = 0;
            for (std::size_t i = 0; i < quiet.size(); ++i) nw += c.wcare[i], nb += c.bcare[i];
            std::lock_guard l(tm);
            t["wld quiet only z12"] += wquiet;
            t["dtw quiet only"] += dquiet;
            t["dtw quiet only, White's side"] += dquiet_w;
            t["dtw quiet only, Black's side"] += dquiet_b;
            t["dtw White's side"] += apart_w;
            t["dtw Black's side"] += apart_b;
            t["n quiet placements x2"] += 2.0 * nquiet;
            t["n stored today"] += nw + nb;
            t["wld apart z12"] += wapart;
            t["wld pairs z12"] += wpairs;
            t["wld pairs z19"] += wpairs19;
            t["apart (one frame)"] += apart;
            t["apart (a frame a side)"] += apart_w + apart_b;
            t["given"] += given;
            t["moves apart, draws free"] += mapart;
        });
        // One side stored, the cheaper in this table.
        t["dtw one side, the smaller"] = std::min(t["dtw White's side"], t["dtw Black's side"]);
        t["dtw one side quiet only, the smaller"] =
            std::min(t["dtw quiet only, White's side"], t["dtw quiet only, Black's side"]);
        std::fprintf(stderr, "%-10s %8.2f %8.2f  pos/byte apart, given\n", m.name().c_str(),
                     t["positions"] / t["apart (a frame a side)"], t["positions"] / t["given"]);
        totals.add(t);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: sides_study VARIANT DIR [MATERIAL|all [STRIDE [LEVEL]]]\n");
        return 2;
    }
    const std::string only = argc > 3 && std::string(argv[3]) != "all" ? argv[3] : "";
    const std::uint64_t stride = argc > 4 ? std::stoull(argv[4]) : 8;
    const int level = argc > 5 ? std::atoi(argv[5]) : 3;
    Sums totals;
    draughts::with_variant(argv[1], [&]<class V>() { run<V>(argv[2], only, stride, level, totals); });
    const double pos = totals.bytes["positions"];
    for (auto& [k, v] : totals.bytes) std::printf("%-42s %16.0f  %8.2f positions/byte\n", k.c_str(), v, pos / v);
}
