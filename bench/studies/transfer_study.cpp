// Whether tables passed between the ranks of a distributed build should
// cross packed, and how (issue 14): reads materials of DIR/VARIANT back into
// solved values (codes, capture positions included, as ranks hold them), and
// packs their codes in frames of 2^20 with zstd at several levels, negative
// (its fast levels) included, then as dtb packs them (pack_range(): byte
// planes at level 1, with the capture marks), then as a team's exchanges
// cross (WirePacker), on one thread. Prints for each the bytes against the
// two bytes a position, and the speed of packing and unpacking in GB of
// codes a second. Sending raw costs 2 / B seconds a code on a network of B
// bytes a second; packed, about (2 r / B) plus the packing time spread over
// the sender's threads, so packing pays only where a thread packs faster
// than B / T.
//
//     transfer_study VARIANT DIR MATERIAL...
//
// Not a test: it measures.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <tbb/task_arena.h>

#include "builder/values/packed_codes.hpp"
#include "builder/system/process.hpp"
#include "builder/team/wire_packing.hpp"
#include "builder/values/table_loader.hpp"
#include "draughts/variant.hpp"
#include "probe/prober.hpp"
#include "probe/zstd_frame.hpp"

namespace {

using dtb::Clock;
using dtb::seconds_since;

void report(const std::string& what, std::uint64_t codes, std::uint64_t packed, double pack, double unpack) {
    const double raw_bytes = 2.0 * static_cast<double>(codes);
    fmt::print("{:>16}: {:>13} bytes, {:5.1f}% of 2 a position, packs {:5.2f} GB/s, unpacks {:5.2f} GB/s\n", what,
               packed, 100.0 * static_cast<double>(packed) / raw_bytes, raw_bytes / pack / 1e9, raw_bytes / unpack / 1e9);
}

template <class V>
void study(const std::filesystem::path& dir, const std::vector<std::string>& names) {
    const dtb::Prober<V> prober(dir);
    const std::filesystem::path variant_dir = dir / V::name;
    std::vector<dtb::SolvedValues> tables;
    std::uint64_t codes = 0;
    for (const std::string& name : names) {
        const dtb::Material m = dtb::Material::parse(name);
        const dtb::TableFile file = dtb::open_dtw_table<V>(variant_dir, m);
        tables.push_back(dtb::load_solved_values<V>(file, dtb::Successors<V>({}, &prober), 0, file.header().table_blocks()));
        codes += tables.back().codes.size();
    }
    fmt::print("{} codes in {} tables\n", codes, tables.size());
    constexpr std::size_t frame = std::size_t{1} << dtb::PackedRange::frame_shift;
    for (const int level : {1, -1, -3, -7, -20, -50}) {
        std::uint64_t packed = 0;
        double pack = 0, unpack = 0;
        for (const dtb::SolvedValues& t : tables) {
            std::vector<std::uint16_t> back(t.codes.size());
            for (std::size_t first = 0; first < t.codes.size(); first += frame) {
                const std::size_t n = std::min(frame, t.codes.size() - first);
                const auto raw = std::as_bytes(std::span(t.codes).subspan(first, n));
                auto start = Clock::now();
                const std::vector<std::byte> f = dtb::zstd_compress(raw, level);
                pack += seconds_since(start);
                packed += f.size();
                start = Clock::now();
                const std::string error = dtb::zstd_decompress(f, std::as_writable_bytes(std::span(back).subspan(first, n)));
                unpack += seconds_since(start);
                if (!error.empty()) throw std::runtime_error(error);
            }
            if (!std::ranges::equal(back, t.codes)) throw std::logic_error("a round trip changed the codes");
        }
        report(fmt::format("zstd level {}", level), codes, packed, pack, unpack);
    }
    // As dtb packs a range for the wire, on one thread.
    std::uint64_t packed = 0;
    double pack = 0, unpack = 0;
    tbb::task_arena one(1);
    for (const dtb::SolvedValues& t : tables) {
        dtb::SolvedValues back(t.material, t.positions_per_side);
        one.execute([&] {
            auto start = Clock::now();
            const dtb::PackedRange p = dtb::pack_range(t, 0, t.codes.size());
            pack += seconds_since(start);
            packed += p.bytes.size();
            start = Clock::now();
            dtb::unpack_range(p.bytes, p.frame_bytes, back, 0, t.codes.size(), "the study");
            unpack += seconds_since(start);
        });
        if (back.codes != t.codes || back.capture != t.capture) throw std::logic_error("a round trip changed the values");
    }
    report("pack_range", codes, packed, pack, unpack);
    // As a team's exchanges cross (WirePacker: byte planes of the 16-bit
    // codes at level 1), in parts of a frame's codes, on one thread.
    packed = 0;
    pack = unpack = 0;
    dtb::WirePacker wire;
    for (const dtb::SolvedValues& t : tables) {
        std::vector<std::uint16_t> back(t.codes.size());
        dtb::HugePagedVector<std::byte> part;
        for (std::size_t first = 0; first < t.codes.size(); first += frame) {
            const std::size_t n = std::min(frame, t.codes.size() - first);
            part.clear();
            auto start = Clock::now();
            wire.pack(std::as_bytes(std::span(t.codes).subspan(first, n)), 2, part);
            pack += seconds_since(start);
            packed += part.size();
            start = Clock::now();
            wire.unpack(part, 2, reinterpret_cast<std::byte*>(back.data() + first), "the study");
            unpack += seconds_since(start);
        }
        if (!std::ranges::equal(back, t.codes)) throw std::logic_error("a round trip changed the codes");
    }
    report("WirePacker", codes, packed, pack, unpack);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        fmt::print(stderr, "usage: transfer_study VARIANT DIR MATERIAL...\n");
        return 2;
    }
    try {
        const std::vector<std::string> names(argv + 3, argv + argc);
        draughts::with_variant(argv[1], [&]<class V>() { study<V>(argv[2], names); });
    } catch (const std::exception& e) {
        fmt::print(stderr, "transfer_study: {}\n", e.what());
        return 1;
    }
    return 0;
}
