// `dtb build`: solves the materials asked for and all they lead to and writes
// their tables and the manifest (docs/design.md, "Solver", "Table files and
// the build's directory", "Command line"). A build that was stopped, killed
// included, resumes when started again.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "builder/driver/build.hpp"
#include "builder/mpi/distributed_build.hpp"
#include "builder/system/process.hpp"
#include "cli/commands.hpp"

namespace dtb::cli {

namespace {

void print_summary(const BuildReport& r) {
    std::size_t built = 0, skipped = 0;
    std::uint64_t wld = 0, dtw = 0;
    for (const MaterialReport& m : r.materials) {
        (m.skipped ? skipped : built) += 1;
        wld += m.entry.wld_bytes;
        dtw += m.entry.dtw_bytes;
    }
    for (const RankReport& k : r.ranks)
        fmt::print("rank {:<3} {} alone, {} in teams, {} rule tables; packed forms written {}, read {}, failed {}; "
                   "rule values read through .rul files {}; working {:.1f} s (waiting for its teams {:.1f} s), idle {:.1f} s, "
                   "processor {:.1f} s; sent {} bytes, received {} bytes; table parts packed {}, read packed {}, sent again {}; "
                   "tables read back from their files {} ({:.1f} s, processor {:.1f} s); kept tables packed {}, "
                   "unpacked {}; peak memory {} MiB\n",
                   k.rank, k.materials_alone, k.team_materials, k.rule_tables, k.packed_written, k.packed_read,
                   k.packed_failed, k.rules_through_files, k.working_seconds, k.team_wait_seconds,
                   k.idle_seconds, k.cpu_seconds, k.bytes_sent, k.bytes_received, k.table_parts_packed,
                   k.table_parts_read, k.table_parts_sent_again, k.tables_read_back, k.read_back_seconds, k.read_back_cpu_seconds,
                   k.kept_packed, k.kept_unpacked, k.peak_memory_bytes >> 20);
    const KeptTablesReport& kept = r.kept;
    if (kept.written > 0 || kept.packed > 0 || kept.read_back > 0)
        fmt::print("kept tables within the memory budget: {} packed ({} MiB into {} MiB, {:.1f} s), unpacked {} "
                   "times ({:.1f} s); {} packed forms written beside the tables ({} MiB, {:.1f} s), {} tables let "
                   "go of memory, values read from packed forms {} times ({:.1f} s); {} read back from their files "
                   "({:.1f} s)\n",
                   kept.packed, kept.packed_from_bytes >> 20, kept.packed_to_bytes >> 20, kept.packing_seconds,
                   kept.unpacked, kept.unpacking_seconds, kept.written, kept.written_bytes >> 20,
                   kept.writing_seconds, kept.let_go, kept.read_packed, kept.read_packed_seconds, kept.read_back,
                   kept.read_back_seconds);
    const double rate = r.seconds > 0 ? static_cast<double>(r.positions_built) / r.seconds : 0;
    const std::string budget = r.memory_budget_bytes ? fmt::format(" (budget {} MiB, held at most {} MiB)",
                                                                   r.memory_budget_bytes >> 20, r.peak_held_bytes >> 20)
                                                     : "";
    const std::string processor =
        r.ranks.empty() ? fmt::format(", processor {:.1f} s", r.processor_seconds) : std::string();
    fmt::print("built {} materials ({} positions) in {:.1f} s, {:.1f} M positions/s{}; {} already built; "
               "tables {} bytes .wld, {} bytes .dtw; peak memory {} MiB{}\n",
               built, r.positions_built, r.seconds, rate / 1e6, processor, skipped, wld, dtw,
               r.peak_memory_bytes >> 20, budget);
    if (const auto& rules = r.rules) {
        const double rule_rate = rules->seconds > 0 ? static_cast<double>(rules->positions_built) / rules->seconds : 0;
        fmt::print("rule tables: built {} ({} positions) beside the plain ones, their jobs {:.1f} s in all, "
                   "{:.1f} M positions/s a job; {} already built; {} refused by the rules; .rul {} bytes\n",
                   rules->built, rules->positions_built, rules->seconds, rule_rate / 1e6, rules->skipped,
                   rules->refused.size(), rules->bytes);
    }
}

}  // namespace

std::uint64_t parse_memory(const std::string& text) {
    const auto refuse = [&] {
        return std::invalid_argument("'" + text + "' is not a size: give one such as 4G, 512M or 1.5T, "
                                     "or a plain number of GiB (4)");
    };
    std::size_t end = 0;
    double number = 0;
    try {
        number = std::stod(text, &end);
    } catch (const std::exception&) {
        throw refuse();
    }
    std::string unit = text.substr(end);
    for (const char* suffix : {"iB", "B"})
        if (unit.size() > 1 && unit.ends_with(suffix)) {
            unit.resize(unit.size() - std::string_view(suffix).size());
            break;
        }
    const std::string units = "KMGT";
    const std::size_t power =
        unit.empty() ? 2
        : unit.size() == 1 ? units.find(static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))))
                           : std::string::npos;
    if (power == std::string::npos || !(number > 0) || text.find_first_of("xXpP") != std::string::npos) throw refuse();
    const double bytes = number * std::pow(1024.0, static_cast<double>(power + 1));
    if (bytes < 1 || bytes >= 0x1p63) throw refuse();
    return static_cast<std::uint64_t>(bytes);
}

void run_build(const BuildCommandOptions& c) {
    map_large_blocks();
    BuildOptions o;
    o.variant = c.variant;
    o.dir = c.dir;
    if (c.pieces > 0) o.targets = materials_up_to(c.pieces);
    for (const std::string& name : c.materials) o.targets.push_back(Material::parse(name).canonical());
    o.threads = c.threads;
    o.memory_bytes = c.memory.empty() ? 0 : parse_memory(c.memory);
    o.refuse_little_memory = true;
    // Test hook: every material of at least this many positions solved a
    // level at a time (tests/cli/build_cli.cmake: 0, all of them).
    if (const char* from = std::getenv("DTB_TEST_LEVELS_FROM_POSITIONS"))
        o.solver.levels_from_positions = std::strtoull(from, nullptr, 10);
    o.wld_compression_level = c.wld_compression;
    o.dtw_compression_level = c.dtw_compression;
    o.output = c.output == "terminal" ? BuildOptions::Output::terminal
               : c.output == "log"    ? BuildOptions::Output::log
               : c.output == "quiet"  ? BuildOptions::Output::quiet
                                      : BuildOptions::Output::automatic;
    o.options = fmt::format("--variant {}", c.variant);
    if (c.pieces > 0) o.options += fmt::format(" --pieces {}", c.pieces);
    for (const std::string& name : c.materials) o.options += " --material " + name;
    o.team_positions = c.team_positions;
    o.rank_timeout_seconds = c.rank_timeout;
    o.rules = c.rules;
    o.literal_road = c.literal_road;
    o.profile = c.profile;
    o.solver.big_pairs_alone_from = c.profile_threads;
    if (c.rules) o.options += c.literal_road ? " --rules --literal-road" : " --rules";
    if (mpi::launched_by_mpi()) {
        if (!c.profile.empty())
            throw std::invalid_argument("--profile records a build as one process; run it without mpiexec");
        // Every rank runs this; rank 0 reports.
        if (const std::optional<BuildReport> r = mpi::build_tables(o)) print_summary(*r);
    } else {
        print_summary(build_tables(o));
    }
}

}  // namespace dtb::cli
