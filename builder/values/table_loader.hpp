// Tables built before, read back into the solver's form (SolvedValues): the
// stored codes, and the capture positions, which the files store as fillers,
// solved again from the tables their captures lead to (in memory where the
// caller has them, through the probe library otherwise). A build reads whole
// tables; a team member its range of blocks.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <mutex>
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
#include "probe/wld_reader.hpp"

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

// The .wld beside a .dtw of version 2, which holds the draws and the side
// to move that the .dtw leaves out. Throws TableError.
inline TableFile open_wld_beside(const TableFile& dtw) {
    const TableHeader& h = dtw.header();
    const std::filesystem::path wld = dtw.path().parent_path() / table_file_name(h.material, TableKind::wld);
    return TableFile::open(wld, {h.variant, h.material, TableKind::wld});
}

// The table's blocks [first_block, last_block) (blocks of its positions,
// the .wld's: 2^block_shift from g = 0) of `file`, a .dtw, into `values`,
// which holds them (and maybe more). `successors` answers for the tables
// the material leads to, to solve the capture positions again. A .dtw of
// version 2 (docs/format.md) reads its .wld too: a draw is the .wld's, and
// the side to move it does not store is found from the moves into the side
// it stores, read here where these blocks hold them, else through a prober
// of the tables directory (a team member's range of a table).
template <class V>
void load_solved_values(SolvedValues& values, const TableFile& file, const Successors<V>& successors,
                        std::uint64_t first_block, std::uint64_t last_block) {
    constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    const TableHeader& h = file.header();
    const Material& m = h.material;
    const Index<N> own(m), mirror(m.mirrored());
    const std::uint64_t end_block = std::max(first_block, last_block);
    const std::uint64_t begin = first_block << h.block_shift;
    const std::uint64_t end = std::min(h.positions(), end_block << h.block_shift);
    std::optional<TableFile> wld;
    if (h.draws_left_out()) wld.emplace(open_wld_beside(file));
    // The .dtw's raw block of the positions of the table's block b (empty
    // if none is stored), and a reader of the .wld's results by table
    // position (its blocks are not the .dtw's where it is in placement order).
    struct Raw {
        std::vector<std::byte> dtw;
        std::optional<WldReader> wld;
    };
    const auto read_raw = [&](std::uint64_t b) {
        Raw raw;
        const std::uint64_t start = b << h.block_shift;
        const std::uint64_t stop = std::min(end, (b + 1) << h.block_shift);
        if (wld) raw.wld.emplace(*wld);
        const std::uint64_t from = std::max(start, h.stored_begin());
        if (from < std::min(stop, h.stored_end())) {
            const std::uint64_t block = h.place_of(from).block;
            raw.dtw.resize(h.block_bytes(block));
            file.read_block(block, raw.dtw);
        }
        return raw;
    };
    const auto wdl_at = [&](Raw& raw, std::uint64_t g) { return raw.wld->wdl(g); };
    // Pass 1: the positions stored and the capture positions.
    bool others = false;
    {
        work_profile::Step step(work_profile::Kind::read_back, end_block - first_block);
        std::atomic<bool> unstored{false};
        tbb::parallel_for(first_block, end_block, [&](std::uint64_t b) {
            const auto piece = step.piece();
            Raw raw = read_raw(b);
            const std::uint64_t start = b << h.block_shift;
            const std::uint64_t count = std::min(end, (b + 1) << h.block_shift) - start;
            CaptureValues<V> captures(successors);
            // In groups, whose captures are found and prefetched together.
            constexpr std::uint64_t group = 16;
            std::array<Position, group> positions;
            for (std::uint64_t k0 = 0; k0 < count; k0 += group) {
                const std::uint64_t n = std::min(group, count - k0);
                for (std::uint64_t i = 0; i < n; ++i) positions[i] = table_position(own, mirror, start + k0 + i);
                captures.prepare(std::span<const Position>(positions.data(), n));
                for (std::uint64_t i = 0; i < n; ++i) {
                    const std::uint64_t g = start + k0 + i;
                    if (const std::optional<Value> v = captures.next()) {
                        values.mark_capture(g);
                        values.code(g) = static_cast<std::uint16_t>(dtw_code(*v));
                    } else if (!h.stores(g)) {
                        unstored.store(true, std::memory_order_relaxed);
                    } else if (wld && wdl_at(raw, g) == Wdl::draw) {
                        values.code(g) = 0;
                    } else {
                        values.code(g) = static_cast<std::uint16_t>(value_at(raw.dtw, h.value_bits, h.place_of(g).k));
                    }
                }
            }
        });
        others = unstored.load();
    }
    if (!others) return;
    // Pass 2: the side to move not stored, from its moves. Its children
    // without a capture's or a promotion's change of material are in the
    // side stored, read in pass 1.
    std::optional<Prober<V>> outside;  // this table's positions that `values` does not hold
    std::once_flag outside_opened;
    const auto child_value = [&](const Position& child) -> Value {
        if (child.pieces(child.side_to_move) == 0) return Value::loss(0);
        const Position q = white_to_move(child);
        const Material cm = material_of(q);
        if (cm != m && cm != m.mirrored()) return successors.value(child);
        const std::uint64_t g = cm == m ? own.rank(q) : own.size() + mirror.rank(q);
        if (g >= begin && g < end && h.stores(g)) return value_of_dtw_code(values.code(g));
        std::call_once(outside_opened, [&] { outside.emplace(file.path().parent_path().parent_path()); });
        return outside->value(child);
    };
    work_profile::Step step(work_profile::Kind::read_back, end_block - first_block);
    tbb::parallel_for(first_block, end_block, [&](std::uint64_t b) {
        const auto piece = step.piece();
        const std::uint64_t stop = std::min(end, (b + 1) << h.block_shift);
        // The positions of block b in the half the .dtw does not store.
        const std::uint64_t lo = std::max(b << h.block_shift, h.stored_begin() == 0 ? h.stored_end() : 0);
        const std::uint64_t hi = std::min(stop, h.stored_begin() == 0 ? h.positions() : h.stored_begin());
        if (lo >= hi) return;
        Raw raw = read_raw(b);
        draughts::MoveList<N> moves;
        for (std::uint64_t g = lo; g < hi; ++g) {
            if (values.has_capture(g)) continue;
            const Position p = table_position(own, mirror, g);
            const Wdl wdl = wdl_at(raw, g);
            if (wdl == Wdl::draw) {
                values.code(g) = 0;
                continue;
            }
            moves.clear();
            draughts::generate_moves<V>(p, moves);
            const Value v = best_over_moves(p, moves, child_value);
            if (v.wdl != wdl)
                throw TableError(TableErrorKind::corrupted, file.path(),
                                 "position " + std::to_string(g) + ": its moves give " + to_string(v) +
                                     " where the .wld holds a " + (wdl == Wdl::win ? "win" : "loss"));
            values.code(g) = static_cast<std::uint16_t>(dtw_code(v));
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
