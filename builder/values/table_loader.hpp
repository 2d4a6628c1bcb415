// Tables built before, read back into the solver's form (SolvedValues): the
// stored codes, and the capture positions, which the files store as fillers,
// solved again from the tables their captures lead to (in memory where the
// caller has them, through the probe library otherwise). A build reads whole
// tables; a team member its range of blocks.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <tbb/parallel_for.h>

#include "builder/values/capture_values.hpp"
#include "builder/system/process.hpp"
#include "builder/values/solved_values.hpp"
#include "builder/system/work_profile.hpp"
#include "probe/prober.hpp"
#include "probe/table_file.hpp"

namespace dtb {

// Tables (or a team member's range of one) read back from their files, and
// the seconds that took: what a rank of a distributed build counts of it.
// `processor` is the process's processor time meanwhile, all its threads
// (what else the rank did beside it included), so that a benchmark can tell
// solving from reading back (bench/team_bench.sh).
struct ReadBacks {
    int tables = 0;
    double seconds = 0;
    double processor = 0;

    // Runs `read` (which reads one back) and counts it.
    template <class F>
    void count(F&& read) {
        const auto start = std::chrono::steady_clock::now();
        const double processor_start = cpu_seconds();
        read();
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        processor += cpu_seconds() - processor_start;
        ++tables;
    }
    ReadBacks& operator+=(const ReadBacks& o) noexcept {
        tables += o.tables;
        seconds += o.seconds;
        processor += o.processor;
        return *this;
    }
};

// The .dtw table of canonical material m in `variant_dir`. Throws TableError.
template <class V>
TableFile open_dtw_table(const std::filesystem::path& variant_dir, const Material& m) {
    return TableFile::open(variant_dir / table_file_name(m, TableKind::dtw), {std::string_view(V::name), m, TableKind::dtw});
}

// Blocks [first_block, last_block) of `file` into `values`, which holds
// them (and maybe more). `successors` answers for the tables the material
// leads to, to solve the capture positions again.
template <class V>
void load_solved_values(SolvedValues& values, const TableFile& file, const Successors<V>& successors,
                        std::uint64_t first_block, std::uint64_t last_block) {
    constexpr int N = V::board_size;
    const TableHeader& h = file.header();
    const Material& m = h.material;
    const Index<N> own(m), mirror(m.mirrored());
    work_profile::Step step(work_profile::Kind::read_back, std::max(first_block, last_block) - first_block);
    tbb::parallel_for(first_block, std::max(first_block, last_block), [&](std::uint64_t b) {
        const auto piece = step.piece();
        std::vector<std::byte> block(h.block_bytes(b));
        file.read_block(b, block);
        const std::uint64_t start = b << h.block_shift;
        CaptureValues<V> captures(successors);
        // In groups, whose captures are found and prefetched together.
        constexpr std::uint64_t group = 16;
        std::array<draughts::Position<N>, group> positions;
        for (std::uint64_t k0 = 0; k0 < h.block_values(b); k0 += group) {
            const std::uint64_t n = std::min(group, h.block_values(b) - k0);
            for (std::uint64_t i = 0; i < n; ++i) {
                const std::uint64_t g = start + k0 + i;
                positions[i] = table_position(own, mirror, g);
            }
            captures.prepare(std::span<const draughts::Position<N>>(positions.data(), n));
            for (std::uint64_t i = 0; i < n; ++i) {
                const std::uint64_t g = start + k0 + i;
                if (const std::optional<Value> v = captures.next()) {
                    values.mark_capture(g);
                    values.code(g) = static_cast<std::uint16_t>(dtw_code(*v));
                } else {
                    values.code(g) = static_cast<std::uint16_t>(value_at(block, h.value_bits, k0 + i));
                }
            }
        }
    });
}

// The same into values of their own.
template <class V>
SolvedValues load_solved_values(const TableFile& file, const Successors<V>& successors, std::uint64_t first_block,
                                std::uint64_t last_block) {
    const TableHeader& h = file.header();
    const std::uint64_t first = first_block << h.block_shift;
    const std::uint64_t end = std::min(h.positions(), last_block << h.block_shift);
    SolvedValues values(h.material, h.positions_per_side, first, end > first ? end - first : 0);
    load_solved_values<V>(values, file, successors, first_block, last_block);
    return values;
}

}  // namespace dtb
