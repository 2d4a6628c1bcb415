// What `dtb build` is asked to do (BuildOptions) and what it did (BuildReport
// and its parts), for the drivers (one process, MPI, the rule tables), the
// command line and the progress display, apart from the driver itself.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "builder/output/manifest.hpp"
#include "builder/solver/solver_options.hpp"
#include "builder/team/team_options.hpp"
#include "probe/material.hpp"

namespace dtb {

// An option the build refuses once it knows more than a check of the
// option alone could (a --memory below what the build needs): the command
// line reports it as a wrong option.
struct OptionRefused : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

struct BuildOptions {
    std::string variant;
    std::vector<Material> targets;  // built with every material they lead to
    std::filesystem::path dir;      // tables go to dir/variant
    int threads = 0;                // 0: every core
    // Memory for the build (one process): the working sets of the materials
    // being solved and the solved tables kept for the materials that read
    // them; tables that do not fit are read through the probe cache. 0:
    // default_memory_bytes(). A distributed build: per rank, for the kept
    // tables (0: three quarters of the machine's, shared by its ranks).
    std::uint64_t memory_bytes = 0;
    // One process: a memory_bytes below the least working set of a material
    // this run builds (one big pair at a time, whole or a level at a time:
    // what `dtb info` prints) is refused (OptionRefused) before anything is
    // built, as `dtb build` does; else that material runs over it (tests).
    bool refuse_little_memory = false;
    std::string options;  // for the tables' provenance
    int block_shift = 16;
    int wld_compression_level = 12;  // zstd levels (table_writer.hpp)
    int dtw_compression_level = 9;
    enum class Output { automatic, terminal, log, quiet } output = Output::automatic;
    // A distributed build (builder/mpi/) gives a material at most one rank
    // for every this many positions (each member of a team holds at least
    // this many), up to every rank, and more only where the ranks' memory
    // requires; smaller materials are solved by one rank each, several at
    // once. 2^28: a team's messages are worth it on a rank of a whole node
    // only for shares of about this size.
    std::uint64_t team_positions = std::uint64_t{1} << 28;
    // A distributed build: a rank not heard from for this long is lost
    // (builder/mpi/heartbeats.hpp) and the job ends, naming it.
    double rank_timeout_seconds = 20;
    TeamOptions team;  // how a team shares a material's work
    // Beside the plain tables, the .rul tables under the variant's
    // move-count draw rules (builder/driver/rule_job.hpp); Russian: the main
    // road read literally (docs/rules.md).
    bool rules = false;
    bool literal_road = false;
    SolverOptions solver;  // how the solvers cut a level's work (tests change it)
    // One process: where the threads' time went, written here as JSON
    // (builder/system/work_profile.hpp); empty: not recorded.
    std::filesystem::path profile;
};

struct MaterialReport {
    ManifestEntry entry;
    bool skipped = false;  // already built: listed in the manifest, files intact
};

// What one rank of a distributed build did (builder/mpi/).
struct RankReport {
    int rank = 0;
    std::uint64_t materials_alone = 0;  // materials it solved by itself
    std::uint64_t team_materials = 0;   // materials it solved with others
    std::uint64_t rule_tables = 0;      // .rul tables it solved (alone: the rule solver has no team)
    // Packed forms of values it wrote for later jobs, read instead of
    // reading tables back, and that failed (builder/driver/packed_forms.hpp);
    // rule values its rule jobs read through .rul files (built before this
    // run, or with no packed form).
    std::uint64_t packed_written = 0, packed_read = 0, packed_failed = 0, rules_through_files = 0;
    double working_seconds = 0;         // solving and writing, waits for its team included
    double team_wait_seconds = 0;       // of those, waiting for the rest of its team
    double idle_seconds = 0;            // waiting for work
    double cpu_seconds = 0;             // processor time of the whole rank, every thread
    std::uint64_t bytes_sent = 0;       // to its teams
    std::uint64_t bytes_received = 0;
    std::uint64_t table_parts_packed = 0;      // parts of tables it packed for ranks that asked
    std::uint64_t table_parts_read = 0;        // or read from its packed forms, packed already
    std::uint64_t table_parts_sent_again = 0;  // and sent again to other askers, packed once
    std::uint64_t tables_read_back = 0;        // tables, or its ranges of them, read back from their files
    double read_back_seconds = 0;              // doing that (capture positions solved again)
    double read_back_cpu_seconds = 0;          // the rank's processor time meanwhile
    std::uint64_t kept_packed = 0;             // tables it kept, packed to make room
    std::uint64_t kept_unpacked = 0;           // and unpacked when needed again
    std::uint64_t peak_memory_bytes = 0;
};

// What the one-process build did to keep within its memory budget: solved
// tables packed when they gave up their room (builder/values/packed_codes.hpp)
// and unpacked again; the packed forms of values later jobs read written
// beside the tables (builder/driver/packed_forms.hpp), packed tables let go
// of memory, and values read from their packed forms; tables read back from
// their files.
struct KeptTablesReport {
    int packed = 0;
    std::uint64_t packed_from_bytes = 0, packed_to_bytes = 0;
    double packing_seconds = 0;
    int unpacked = 0;
    double unpacking_seconds = 0;
    int written = 0;  // packed forms, plain and rule
    std::uint64_t written_bytes = 0;
    double writing_seconds = 0;
    int let_go = 0;  // packed tables that gave up their memory
    int read_packed = 0;  // values read from their packed forms, plain and rule
    double read_packed_seconds = 0;
    int read_back = 0;
    double read_back_seconds = 0;
};

// What `dtb build --rules` did of the .rul tables (builder/driver/rule_job.hpp);
// its time is in the build's, the rule jobs running beside the plain ones.
struct RuleBuildReport {
    int built = 0, skipped = 0;         // skipped: in the manifest, file intact
    std::uint64_t positions_built = 0;  // both sides to move
    std::uint64_t bytes = 0;            // of every .rul of the set, skipped ones included
    double seconds = 0;                 // the rule jobs' own, summed (each solving and writing its .rul)
    std::vector<std::pair<Material, std::string>> refused;  // and why
};

struct BuildReport {
    std::vector<MaterialReport> materials;  // in the order they finished
    KeptTablesReport kept;
    double seconds = 0;
    double processor_seconds = 0;       // user and system, every thread (one process, the rule tables included)
    std::uint64_t positions_built = 0;  // both sides to move, skipped tables not counted
    std::uint64_t peak_memory_bytes = 0;  // the process's peak resident memory (rank 0's)
    // One process: --memory (or its default) and the most the build counted
    // as held against it (materials in work and kept tables); 0 under MPI.
    std::uint64_t memory_budget_bytes = 0, peak_held_bytes = 0;
    std::vector<RankReport> ranks;        // a distributed build's ranks; empty for one process
    std::optional<RuleBuildReport> rules;  // with --rules
};

}  // namespace dtb
