// `dtb build`: solves the materials asked for and all they lead to and writes
// their tables and the manifest (docs/design.md, "Solver", "Table files and the build's directory", "Command line"). A build that was
// stopped, killed included, resumes when started again.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "builder/driver/build.hpp"
#include "cli/commands.hpp"
#include "builder/mpi/distributed_build.hpp"
#include "builder/output/table_writer.hpp"
#include "draughts/variant.hpp"

namespace dtb::cli {

namespace {

struct BuildCommandOptions {
    std::string variant;
    std::string dir;
    int pieces = 0;
    std::vector<std::string> materials;
    int threads = 0;
    double memory_gib = 0;
    std::string output = "auto";
    int wld_compression = 12;
    int dtw_compression = 3;
    std::uint64_t team_positions = BuildOptions{}.team_positions;
    double rank_timeout = BuildOptions{}.rank_timeout_seconds;
    bool rules = false;
    bool literal_road = false;
    std::string profile;
    std::uint64_t profile_threads = 0;
};

void print_summary(const BuildReport& r) {
    std::size_t built = 0, skipped = 0;
    std::uint64_t wld = 0, dtw = 0;
    for (const MaterialReport& m : r.materials) {
        (m.skipped ? skipped : built) += 1;
        wld += m.entry.wld_bytes;
        dtw += m.entry.dtw_bytes;
    }
    for (const RankReport& k : r.ranks)
        fmt::print("rank {:<3} {} alone, {} in teams; working {:.1f} s (waiting for its teams {:.1f} s), idle {:.1f} s, "
                   "processor {:.1f} s; sent {} bytes, received {} bytes; table parts packed {}, sent again {}; "
                   "tables read back from their files {} ({:.1f} s, processor {:.1f} s); kept tables packed {}, "
                   "unpacked {}; peak memory {} MiB\n",
                   k.rank, k.materials_alone, k.team_materials, k.working_seconds, k.team_wait_seconds,
                   k.idle_seconds, k.cpu_seconds, k.bytes_sent, k.bytes_received, k.table_parts_packed,
                   k.table_parts_sent_again, k.tables_read_back, k.read_back_seconds, k.read_back_cpu_seconds,
                   k.kept_packed, k.kept_unpacked, k.peak_memory_bytes >> 20);
    const KeptTablesReport& kept = r.kept;
    if (kept.packed > 0 || kept.read_back > 0)
        fmt::print("kept tables within the memory budget: {} packed ({} MiB into {} MiB, {:.1f} s), unpacked {} "
                   "times ({:.1f} s); {} spilled to disk ({} MiB, {:.1f} s), read from there {} times ({:.1f} s); "
                   "{} read back from their files ({:.1f} s)\n",
                   kept.packed, kept.packed_from_bytes >> 20, kept.packed_to_bytes >> 20, kept.packing_seconds,
                   kept.unpacked, kept.unpacking_seconds, kept.spilled, kept.spilled_bytes >> 20,
                   kept.spilling_seconds, kept.unspilled, kept.unspilling_seconds, kept.read_back,
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
        const std::string rule_processor =
            r.ranks.empty() ? fmt::format(", processor {:.1f} s", rules->processor_seconds) : std::string();
        fmt::print("rule tables: built {} ({} positions) in {:.1f} s, {:.1f} M positions/s{}; {} already built; "
                   "{} refused by the rules; .rul {} bytes\n",
                   rules->built, rules->positions_built, rules->seconds, rule_rate / 1e6, rule_processor,
                   rules->skipped, rules->refused.size(), rules->bytes);
    }
}

void run_build(const BuildCommandOptions& c) {
    BuildOptions o;
    o.variant = c.variant;
    o.dir = c.dir;
    if (c.pieces > 0) o.targets = materials_up_to(c.pieces);
    for (const std::string& name : c.materials) o.targets.push_back(Material::parse(name).canonical());
    o.threads = c.threads;
    o.memory_bytes = static_cast<std::uint64_t>(c.memory_gib * static_cast<double>(std::uint64_t{1} << 30));
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

}  // namespace

void add_build_command(CLI::App& app) {
    auto options = std::make_shared<BuildCommandOptions>();
    auto* cmd = app.add_subcommand(
        "build", "Solve materials and write their .wld and .dtw tables, with --rules also .rul (resumes a build that "
        "was stopped)");
    add_variant_option(*cmd, options->variant);
    add_dir_option(*cmd, options->dir);
    auto* pieces = cmd->add_option("--pieces", options->pieces, "every material of up to N pieces")
                       ->check(CLI::Range(2, 24));
    auto* material = cmd->add_option("--material", options->materials,
                                     "a material such as KKKvK, with all it leads to (repeat for more)");
    pieces->excludes(material);
    material->excludes(pieces);
    cmd->add_option("--threads", options->threads, "threads (default: every core)")->check(CLI::Range(1, 4096));
    cmd->add_option("--memory", options->memory_gib,
                    "GiB the build may hold: the materials being solved and the solved tables kept for "
                    "the materials that read them; the rest are read from disk (default: a third of the "
                    "machine's; under MPI, per rank, for the kept tables, default three quarters shared by "
                    "the node's ranks)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--output", options->output,
                    "auto (a progress display on a terminal, else a line per material), terminal, log or quiet")
        ->check(CLI::IsMember({"auto", "terminal", "log", "quiet"}));
    cmd->add_option("--wld-compression", options->wld_compression, "zstd level of the .wld blocks (default 12)")
        ->check(CLI::Range(1, 22));
    cmd->add_option("--dtw-compression", options->dtw_compression, "zstd level of the .dtw blocks (default 3)")
        ->check(CLI::Range(1, 22));
    cmd->add_option("--team-positions", options->team_positions,
                    "under MPI: one rank of a material's team per this many positions (default 2^24); "
                    "smaller materials are solved by one rank each")
        ->check(CLI::Range(std::uint64_t{1}, ~std::uint64_t{0}));
    cmd->add_option("--rank-timeout", options->rank_timeout,
                    "under MPI: seconds a rank may go unheard before it is taken as lost (its node or network "
                    "down) and the job ends, naming it (default 20)")
        ->check(CLI::Range(2.0, 86400.0));
    auto* rules = cmd->add_flag("--rules", options->rules,
                                "also the .rul tables: values under the variant's move-count draw rules "
                                "(docs/rules.md), after the plain tables");
    auto* profile = cmd->add_option("--profile", options->profile,
                                    "one process: write where the threads' time went to this JSON file, for "
                                    "bench/studies/thread_model (docs/scaling.md, \"Threads on one node\"); costs about 1%")
                        ->type_name("FILE");
    cmd->add_option("--profile-threads", options->profile_threads,
                    "with --profile: cut each level's work as a build on N threads would (big block pairs one a "
                    "thread in whole rounds of N), so that bench/studies/thread_model predicts N threads from this run")
        ->check(CLI::Range(1, 4096))
        ->needs(profile);
    cmd->add_flag("--literal-road", options->literal_road,
                  "Russian, with --rules: 7.2.7's main road read literally (the lone king on it, whatever else "
                  "stands there) instead of lidraughts' reading (alone on it)")
        ->needs(rules);
    cmd->callback([options, pieces, material] {
        if (pieces->count() == 0 && material->count() == 0)
            throw CLI::RequiredError("--pieces N or --material M");
        if (options->literal_road &&
            draughts::with_variant(options->variant, []<class V>() { return V::draw_rules::main_road.empty(); }, true))
            throw CLI::ValidationError("--literal-road", "only Russian has a main-road rule (7.2.7); leave it out");
        run_build(*options);
    });
}

}  // namespace dtb::cli
