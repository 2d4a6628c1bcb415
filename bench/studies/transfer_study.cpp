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

// Packs the codes of `tables` a frame of 2^20 at a time, with pack(raw)
// giving the frame's bytes and unpack(bytes, into) putting them back, on
// the calling thread; checks the round trip and reports the bytes and speeds.
template <class Pack, class Unpack>
void time_frames(const std::string& what, const std::vector<dtb::SolvedValues>& tables, std::uint64_t codes,
                 Pack&& pack_frame, Unpack&& unpack_frame) {
    constexpr std::size_t frame = std::size_t{1} << dtb::PackedRange::frame_shift;
    std::uint64_t packed = 0;
    double pack = 0, unpack = 0;
    for (const dtb::SolvedValues& t : tables) {
        std::vector<std::uint16_t> back(t.codes.size());
        for (std::size_t first = 0; first < t.codes.size(); first += frame) {
            const std::size_t n = std::min(frame, t.codes.size() - first);
            auto start = Clock::now();
            const auto f = pack_frame(std::as_bytes(std::span(t.codes).subspan(first, n)));
            pack += seconds_since(start);
            packed += f.size();
            start = Clock::now();
            unpack_frame(std::span<const std::byte>(f), std::as_writable_bytes(std::span(back).subspan(first, n)));
            unpack += seconds_since(start);
        }
        if (!std::ranges::equal(back, t.codes)) throw std::logic_error("a round trip changed the codes");
    }
    report(what, codes, packed, pack, unpack);
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
    for (const int level : {1, -1, -3, -7, -20, -50})
        time_frames(fmt::format("zstd level {}", level), tables, codes,
                    [&](std::span<const std::byte> raw) { return dtb::zstd_compress(raw, level); },
                    [](std::span<const std::byte> f, std::span<std::byte> into) {
                        const std::string error = dtb::zstd_decompress(f, into);
                        if (!error.empty()) throw std::runtime_error(error);
                    });
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
    // As a team's exchanges cross (WirePacker: byte planes of the 16-bit codes at level 1).
    dtb::WirePacker wire;
    dtb::HugePagedVector<std::byte> part;  // kept from frame to frame, as a team's mailboxes keep theirs
    time_frames("WirePacker", tables, codes,
                [&](std::span<const std::byte> raw) {
                    part.clear();
                    wire.pack(raw, 2, part);
                    return std::span<const std::byte>(part);
                },
                [&](std::span<const std::byte> f, std::span<std::byte> into) { wire.unpack(f, 2, into.data(), "the study"); });
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
