// One material solved and its tables written, alone or by a team: what every
// driver of a build (build.cpp, the MPI driver) does for each material.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "builder/driver/build_options.hpp"
#include "builder/output/manifest.hpp"
#include "builder/values/solved_values.hpp"
#include "builder/solver/solve.hpp"
#include "builder/output/table_writer.hpp"
#include "builder/team/ranges.hpp"
#include "builder/team/team.hpp"
#include "builder/team/team_tables.hpp"
#include "builder/values/kept_tables.hpp"
#include "builder/values/value_counts.hpp"
#include "builder/system/work_profile.hpp"
#include "probe/prober.hpp"

namespace dtb {

// What a plain job holds while it solves material m alone with `threads`
// threads: one big pair a thread at once, or fewer where that would not fit
// `budget` (at least one), and the bytes that takes
// (MaterialSolver::working_bytes); the material held whole, or a level at
// a time where whole it does not fit (docs/design.md, "Levels in memory").
struct WorkingSet {
    std::uint64_t pairs_at_once = 1;
    std::uint64_t bytes = 0;
    SolverOptions options;  // those given, or with levels on for m
};

// `bytes` in MiB to one decimal, rounded up, as working sets are printed:
// a --memory of the figure printed holds them.
inline double mib_rounded_up(std::uint64_t bytes) {
    return std::ceil(static_cast<double>(bytes) / (1 << 20) * 10) / 10;
}
template <class V>
WorkingSet plain_working_set(const Material& m, std::uint64_t threads, std::uint64_t budget,
                             const SolverOptions& options) {
    WorkingSet w{std::max<std::uint64_t>(1, threads), 0, options};
    const auto fit = [&] {
        while (w.pairs_at_once > 1 && solver_working_bytes<V>(m, w.pairs_at_once, w.options) > budget)
            w.pairs_at_once /= 2;
        w.bytes = solver_working_bytes<V>(m, w.pairs_at_once, w.options);
    };
    fit();
    if (w.bytes > budget && table_positions<V::board_size>(m) < options.levels_from_positions) {
        const WorkingSet whole = w;
        w.options.levels_from_positions = 0;
        w.pairs_at_once = std::max<std::uint64_t>(1, threads);
        fit();
        if (w.bytes >= whole.bytes) w = whole;  // a material of kings only: one level
    }
    return w;
}

// A team member's bytes a position of its share of a material: its home
// range of values (2.125), and for the positions it solves a state byte and
// four bytes of bucket entries, counted as if every one were queued (as
// working_bytes counts a big pair). Measured: 6.3 to 6.7 bytes a position of
// the share, the program and the tables read included (Canadian KKKvKK on
// teams of 2 and 3, docs/results.md).
inline constexpr double team_member_bytes = 7.125;

// The writer's spec of material m's tables in a build with options `o`.
TableSpec table_spec(const BuildOptions& o, int board_size, const Material& m, std::uint64_t per_side,
                     std::uint32_t max_code);

// The codes the writer stores for `values`: don't-care for capture positions.
ValueSource value_source(const SolvedValues& values);
// The same for a packed table, unpacked a frame at a time: the frames the
// writer's batch in work reads (tables of `block_shift`) kept unpacked.
ValueSource value_source(const PackedTable& table, int block_shift);

// Wins, draws, losses and the longest win over the positions `values` holds
// (the manifest entry's material, positions and counts).
ManifestEntry count_values(const SolvedValues& values);
// The manifest entry of `positions` of m with counts `c`.
ManifestEntry counted(const Material& m, std::uint64_t positions, const ValueCounts& c);

// The files' sizes and checksums, into the manifest's entry.
void record_files(ManifestEntry& entry, const WrittenTables& written);

// Writes the tables of a material solved by one process (SolvedMaterial):
// m's, counted as `entry` says, their codes from `source`.
inline ManifestEntry write_counted(const BuildOptions& o, int board_size, const std::filesystem::path& variant_dir,
                                   const Material& m, std::uint64_t per_side, std::uint32_t max_code,
                                   ManifestEntry entry, const ValueSource& source) {
    record_files(entry, write_tables(variant_dir, table_spec(o, board_size, m, per_side, max_code), source));
    return entry;
}
inline ManifestEntry write_solved(const BuildOptions& o, int board_size, const std::filesystem::path& variant_dir,
                                  const SolvedValues& values) {
    return write_counted(o, board_size, variant_dir, values.material, values.positions_per_side, values.max_code,
                         count_values(values), value_source(values));
}
inline ManifestEntry write_solved(const BuildOptions& o, int board_size, const std::filesystem::path& variant_dir,
                                  const PackedTable& table) {
    return write_counted(o, board_size, variant_dir, table.material, table.positions_per_side, table.max_code,
                         counted(table.material, table.positions, table.counts), value_source(table, o.block_shift));
}

// The block cache of a prober that a job of a build opens to read tables
// through their files, where they are not in memory: the probe library's
// default (64 MiB), or a sixteenth of the budget where that is less (at
// least 1 MiB), so that a small budget is not overrun by it.
inline std::size_t job_cache_bytes(std::uint64_t budget) {
    return static_cast<std::size_t>(
        std::clamp<std::uint64_t>(budget / 16, std::uint64_t{1} << 20, default_cache_bytes));
}

// A prober of the tables in `dir` opened by a job of a build, its block
// cache held in `kept` while it is open, as a job's working set is: the
// build's count sees what the cache may take. The cache is
// job_cache_bytes() of the budget, halved (down to 1 MiB) while that does
// not fit beside what is held once the kept tables no job uses are packed:
// a smaller cache is slower, never wrong. Without `kept`, the default
// cache, not counted.
template <class V>
class JobProber {
public:
    JobProber(const std::filesystem::path& dir, KeptTables* kept)
        : cache_bytes_(kept ? fitting_cache(*kept) : default_cache_bytes), prober_(dir, cache_bytes_) {
        if (kept) held_.emplace(*kept, cache_bytes_);
    }
    JobProber(const JobProber&) = delete;
    JobProber& operator=(const JobProber&) = delete;

    const Prober<V>& get() const noexcept { return prober_; }

private:
    static std::size_t fitting_cache(KeptTables& kept) {
        std::size_t bytes = job_cache_bytes(kept.budget());
        while (bytes > (std::size_t{1} << 20) && !kept.make_room(bytes)) bytes /= 2;
        return bytes;
    }

    std::size_t cache_bytes_;
    Prober<V> prober_;
    std::optional<KeptTables::Held> held_;
};

// The tables a material solved by one process or rank leads to: those
// `find` gives (whole, in memory; null if not) and the others read through a
// prober of the tables in `dir` (a JobProber counted in `kept`). Keeps what
// it found while it lives.
template <class V>
class SuccessorTables {
public:
    template <class Find>
    SuccessorTables(const std::vector<Material>& materials, const std::filesystem::path& dir, KeptTables& kept,
                    Find&& find) {
        bool on_disk = false;
        for (const Material& s : materials) {
            if (std::shared_ptr<const SolvedValues> values = find(s))
                in_memory_.push_back(std::move(values));
            else
                on_disk = true;
        }
        if (on_disk) prober_.emplace(dir, &kept);
        successors_.emplace(in_memory_, prober_ ? &prober_->get() : nullptr);
    }
    SuccessorTables(const SuccessorTables&) = delete;
    SuccessorTables& operator=(const SuccessorTables&) = delete;

    const Successors<V>& get() const noexcept { return *successors_; }

private:
    std::vector<std::shared_ptr<const SolvedValues>> in_memory_;
    std::optional<JobProber<V>> prober_;  // successors_ points to it
    std::optional<Successors<V>> successors_;
};

// Where a team member finds tables besides its kept ones and their files: the
// other ranks that keep them (builder/mpi/table_exchange.hpp). Either may be empty.
struct TableSources {
    // Table s whole, or null if no one else has it all.
    std::function<std::shared_ptr<const SolvedValues>(const Material&)> whole;
    // Positions [first, first + count) of table s (first a multiple of 64):
    // this member's own kept range if it holds them, else filled from
    // others; null if they lack some of it.
    RangeSource range;
    // Told what this member read back from the files (may be empty); a
    // table the team reads together counts its sharing among the members.
    std::function<void(const ReadBacks&)> read_back;
    // Told, on every member, its range of m's values once the tables are
    // written, with the .dtw's table checksum (may be empty).
    std::function<void(const SolvedValues& home, std::uint64_t dtw_checksum)> written;
    // Whether each member keeps its range of m's values once written: some
    // job will read them.
    bool keep_home = true;
};

// Table s whole on every member of `team`, from the ranges of it the
// members keep, if each keeps the range a team of its size gives it (s was
// solved by a team of as many ranks, in the same order): each range packed
// once and sent to every other member (share_packed()). Null on every
// member if one lacks its range.
template <class V>
std::shared_ptr<const SolvedValues> gather_ranges_in_team(Team& team, KeptTables* kept, const Material& s,
                                                          int block_shift, const KeptTables::Reads& reads) {
    const int k = team.size(), me = team.rank();
    const Ranges ranges = Ranges::split(table_positions<V::board_size>(s), k, block_shift);
    const std::shared_ptr<const SolvedValues> mine = kept ? kept->find(s, &reads) : nullptr;
    const bool has = mine && mine->first == ranges.first(me) && mine->codes.size() == ranges.count(me) &&
                     mine->capture.size() == (ranges.count(me) + 63) / 64;
    if (team.all_sum(has ? 1 : 0) != static_cast<std::uint64_t>(k)) return nullptr;
    auto whole = std::make_shared<SolvedValues>(s, Index<V::board_size>(s).size());
    std::copy(mine->codes.begin(), mine->codes.end(), whole->codes.begin() + static_cast<std::ptrdiff_t>(mine->first));
    std::copy(mine->capture.begin(), mine->capture.end(),
              whole->capture.begin() + static_cast<std::ptrdiff_t>(mine->first / 64));  // ranges start at multiples of 64
    std::vector<std::uint64_t> first(k), count(k);
    for (int j = 0; j < k; ++j) {
        first[j] = ranges.first(j);
        count[j] = ranges.count(j);
    }
    share_packed(team, *whole, first, count);
    return whole;
}

// Solves material m with `team` and writes its tables. The tables m leads to
// are held whole by every member where each has room among its `kept`
// tables (null: none), taken in order of size, the members agreeing table
// by table. A
// member that has one sends it to those that lack it; if none has it, member
// 0 tries `sources.whole`, and else the team reads it from its file together
// (load_whole_in_team); all keep it. The others are shared out, every member
// taking its range of them from `sources.range` or else from the file.
// Tables are read from `variant_dir`. Each member solves its share and
// compresses its range of the tables, and keeps that range (to be asked for
// it later) unless sources.keep_home says no job reads it;
// member 0 writes the files and gets the manifest entry, the others nothing.
template <class V>
std::optional<ManifestEntry> solve_in_team(Team& team, const BuildOptions& o, const std::filesystem::path& variant_dir,
                                           const Material& m, KeptTables* kept, const TableSources& sources = {},
                                           SolveProgress progress = {}) {
    std::vector<Material> leads_to = successors(m);
    const auto positions = table_positions<V::board_size>;
    std::stable_sort(leads_to.begin(), leads_to.end(),
                     [&](const Material& a, const Material& b) { return positions(a) < positions(b); });
    const KeptTables::Reads reads{leads_to, TableKind::dtw};
    const JobProber<V> files(o.dir, kept);
    const Prober<V>& prober = files.get();
    const auto k = static_cast<std::uint64_t>(team.size());
    std::vector<std::shared_ptr<const SolvedValues>> held;
    std::vector<Material> shared;
    ReadBacks read_back;
    for (const Material& s : leads_to) {
        std::shared_ptr<const SolvedValues> copy = kept ? kept->find_whole(s, &reads) : nullptr;
        const bool worth = static_cast<double>(k) * static_cast<double>(positions(s)) <=
                           o.team.held_ratio * static_cast<double>(positions(m));
        const bool room = worth && (copy || (kept && kept->make_room(SolvedValues::bytes_for(positions(s)), &reads)));
        if (team.all_sum(room ? 1 : 0) != k) {
            shared.push_back(s);
            continue;
        }
        if (team.all_sum(copy ? 1 : 0) != k) {
            // Who has it: the highest member that does; else every member its
            // range of it (the ranges of this team's split), each range
            // crossing once to the others; else member 0 if it can fetch it.
            int source = static_cast<int>(team.all_max(copy ? team.rank() + 1 : 0)) - 1;
            std::shared_ptr<const SolvedValues> gathered;
            if (source < 0) gathered = gather_ranges_in_team<V>(team, kept, s, o.block_shift, reads);
            if (source < 0 && !gathered) {  // every member takes part, whatever its `fetch`
                if (team.rank() == 0 && sources.whole) copy = sources.whole(s);
                if (team.all_max(copy ? 1 : 0)) source = 0;
            }
            if (gathered) {
                copy = std::move(gathered);
            } else if (source >= 0) {
                copy = send_whole_in_team(team, source, copy, s, Index<V::board_size>(s).size());
            } else {
                // Capture positions of s are answered from the tables held so far and what this rank has.
                std::vector<std::shared_ptr<const SolvedValues>> known = held;
                for (auto& t : kept->find_all(successors(s))) known.push_back(std::move(t));
                read_back.count([&] {
                    copy = std::make_shared<const SolvedValues>(
                        load_whole_in_team<V>(team, open_dtw_table<V>(variant_dir, s), Successors<V>(known, &prober)));
                });
            }
            kept->keep(copy);
        }
        held.push_back(std::move(copy));
    }
    const Successors<V> held_whole(held, &prober);
    TeamTables<V> tables(team, m, o.block_shift, shared, variant_dir, held_whole, sources.range);
    if (sources.read_back) sources.read_back(read_back += tables.read_back());
    const auto home = std::make_shared<const SolvedValues>(
        solve_material_in_team<V>(m, team, tables, held_whole, o.team, std::move(progress)));
    const TableSpec spec = table_spec(o, V::board_size, m, home->positions_per_side, home->max_code);
    const WrittenTables written =
        write_tables(team, variant_dir, spec, home->first, home->codes.size(), value_source(*home));
    const std::uint64_t checksum = team.all_max(team.rank() == 0 ? written.dtw_checksum : 0);
    if (sources.written) sources.written(*home, checksum);
    ManifestEntry entry = count_values(*home);
    if (kept && sources.keep_home) kept->keep(home);
    entry.positions = team.all_sum(entry.positions);
    entry.wins = team.all_sum(entry.wins);
    entry.draws = team.all_sum(entry.draws);
    entry.losses = team.all_sum(entry.losses);
    entry.longest_win = static_cast<int>(team.all_max(static_cast<std::uint64_t>(entry.longest_win + 1))) - 1;
    if (team.rank() != 0) return std::nullopt;
    record_files(entry, written);
    return entry;
}

// Test hook: DTB_TEST_KILL_AFTER_WRITE=MATERIAL kills the process with
// SIGKILL once that material's tables are written and before the manifest
// lists them, the moment a resumed build must not trust (every driver calls
// it there); the rule build's hook is MATERIAL.rul.
void maybe_kill_after_write(const Material& m);
void maybe_kill_after_write(const std::string& name);

}  // namespace dtb
