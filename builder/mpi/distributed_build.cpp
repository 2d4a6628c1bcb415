#include "builder/mpi/distributed_build.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>
#include <mpi.h>
#include <nlohmann/json.hpp>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <sched.h>

#include "builder/driver/build_plan.hpp"
#include "builder/driver/material_job.hpp"
#include "builder/mpi/heartbeats.hpp"
#include "builder/mpi/mpi_team.hpp"
#include "builder/mpi/table_exchange.hpp"
#include "builder/driver/progress.hpp"
#include "builder/driver/rule_job.hpp"
#include "builder/driver/scheduler.hpp"
#include "builder/values/table_loader.hpp"
#include "builder/values/values_cache.hpp"
#include "draughts/variant.hpp"

namespace dtb::mpi {

namespace {

// The coordinator's messages (rank 0's coordinating thread and every rank's worker).
constexpr int assign_tag = 1;  // coordinator to worker: solve a material, alone or in a team
constexpr int done_tag = 2;    // worker to coordinator: my part is done (with the manifest entry if I wrote the tables)
constexpr int finish_tag = 3;  // coordinator to worker: nothing is left

// Prints `what` as this rank's failure.
void report_failure(const std::string& what) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fmt::print(stderr, "dtb: error (rank {} of {}): {}\n", rank, size, what);
    std::fflush(stderr);
}

// Ends the whole job.
[[noreturn]] void abort_job() {
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();
}

// Prints `what` as this rank's failure and ends the whole job.
[[noreturn]] void fail(const std::string& what) {
    report_failure(what);
    abort_job();
}

// MPI for the length of a build: initialised with threads (rank 0 has a
// coordinating thread besides its worker), private copies of MPI_COMM_WORLD
// (the coordinator's messages, the teams made from it, tables passed between
// ranks), and the ranks that share this node.
struct Session {
    Session() {
        int provided = 0;
        check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
        if (provided < MPI_THREAD_MULTIPLE) {
            MPI_Finalize();
            throw std::runtime_error("the MPI library does not support MPI_THREAD_MULTIPLE, which dtb build needs "
                                     "(rank 0 coordinates from a thread of its own): use Open MPI 3 or later");
        }
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Comm_dup(MPI_COMM_WORLD, &coordination);
        MPI_Comm_dup(MPI_COMM_WORLD, &teams);
        MPI_Comm_dup(MPI_COMM_WORLD, &tables);
        MPI_Comm_dup(MPI_COMM_WORLD, &heartbeats);
        // Each rank's host, for the messages that name one.
        std::vector<char> names(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME, '\0');
        int length = 0;
        MPI_Get_processor_name(names.data() + static_cast<std::size_t>(rank) * MPI_MAX_PROCESSOR_NAME, &length);
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                      MPI_COMM_WORLD);
        for (int r = 0; r < size; ++r)
            hosts.emplace_back(names.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &ranks_on_node);
        MPI_Comm_free(&node);
    }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
    ~Session() {
        MPI_Comm_free(&heartbeats);
        MPI_Comm_free(&tables);
        MPI_Comm_free(&teams);
        MPI_Comm_free(&coordination);
        MPI_Finalize();
    }

    int rank = 0;
    int size = 1;
    int ranks_on_node = 1;
    MPI_Comm coordination = MPI_COMM_NULL;
    MPI_Comm teams = MPI_COMM_NULL;
    MPI_Comm tables = MPI_COMM_NULL;
    MPI_Comm heartbeats = MPI_COMM_NULL;
    std::vector<std::string> hosts;  // by rank
};

void send_text(MPI_Comm comm, int to, int tag, const std::string& text) {
    check(MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, tag, comm), "MPI_Send");
}

// Test hooks: DTB_TEST_KILL_RANK=R:JOB kills rank R with SIGKILL when it
// starts JOB, a material (a team's member is then in the middle of its
// team's exchanges) or MATERIAL.rul, the way a node that fails would;
// DTB_TEST_FAIL_RANK makes it fail there with an error instead.
void maybe_kill_rank(int rank, const std::string& job) {
    const std::string here = fmt::format("{}:{}", rank, job);
    if (const char* kill = std::getenv("DTB_TEST_KILL_RANK"); kill && here == kill) std::raise(SIGKILL);
    if (const char* failure = std::getenv("DTB_TEST_FAIL_RANK"); failure && here == failure)
        throw std::runtime_error("a test made rank " + std::to_string(rank) + " fail (DTB_TEST_FAIL_RANK)");
}

// Which ranks keep the tables a material reads, as the coordinator knows it:
// whole (solved alone), or in ranges (solved in a team, in member order).
struct Holders {
    std::map<Material, int> whole;
    std::map<Material, std::vector<int>> shares;
};

// What a rank counts of its own work, gathered by rank 0 at the end.
struct RankCounts {
    std::uint64_t materials_alone = 0, team_materials = 0, rule_tables = 0, bytes_sent = 0, bytes_received = 0;
    std::uint64_t peak_memory = 0, rules_unpacked = 0, rules_through_files = 0;
    std::uint64_t table_parts_packed = 0, table_parts_sent_again = 0;
    std::uint64_t tables_read_back = 0, kept_packed = 0, kept_unpacked = 0;
    double read_back_seconds = 0, read_back_cpu_seconds = 0;
    double working_seconds = 0, team_wait_seconds = 0, idle_seconds = 0, cpu_seconds = 0;
};

template <class V>
class DistributedBuild {
public:
    static constexpr int N = V::board_size;

    DistributedBuild(const BuildOptions& o, Session& session)
        : o_(o),
          session_(session),
          variant_dir_(o.dir / o.variant),
          // With --rules, a quarter of the budget keeps rule values.
          cache_(o.rules ? memory_budget(o, session) / 4 * 3 : memory_budget(o, session)),
          rules_(o.rules ? memory_budget(o, session) / 4 : 0),
          // Packed parts kept for askers: about a tenth of the tables'
          // bytes, so a sixteenth of the budget keeps parts of most of them.
          exchange_(session.tables, cache_, memory_budget(o, session) / 16) {}

    std::optional<BuildReport> run() {
        const Clock::time_point start = Clock::now();
        const int threads = o_.threads > 0 ? o_.threads : default_threads(session_);
        // The main thread only passes messages (work()): `threads` workers of
        // oneTBB do the solving in an arena of their own, the main thread
        // counted as one more. (oneTBB would otherwise size itself from the
        // processor affinity a launcher sets, one core per rank by default.)
        const tbb::global_control parallelism(tbb::global_control::max_allowed_parallelism,
                                              static_cast<std::size_t>(threads) + 1);
        arena_.initialize(threads + 1, 1);
        std::vector<int> slots(session_.size);
        MPI_Gather(&threads, 1, MPI_INT, slots.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
        // Rank 0 and each other rank watch each other (heartbeats.hpp) until
        // every rank's counts are in. Rank 0 leaves the launcher twice the
        // timeout, a minute at least, to end the job when a rank is lost; a
        // rank that loses rank 0 ends at once.
        std::vector<int> peers;
        if (session_.rank != 0) peers.push_back(0);
        else
            for (int r = 1; r < session_.size; ++r) peers.push_back(r);
        const auto timeout = std::chrono::duration_cast<Heartbeats::Clock::duration>(
            std::chrono::duration<double>(o_.rank_timeout_seconds));
        Heartbeats heartbeats(session_.heartbeats, peers, session_.hosts, timeout,
                              session_.rank == 0 ? std::max<Heartbeats::Clock::duration>(2 * timeout, std::chrono::minutes(1))
                                                 : Heartbeats::Clock::duration::zero(),
                              report_failure, session_.rank == 0 ? abort_job : [] { std::_Exit(1); });

        std::thread coordinator;
        if (session_.rank == 0) {
            try {
                plan_ = std::make_unique<BuildPlan>(o_, N, o_.rules ? rule_terms<V>(o_) : RuleTerms{});
            } catch (const std::exception& e) {
                fail(e.what());
            }
            for (const std::string& note : plan_->notes()) fmt::print("{}\n", note);
            std::uint64_t to_build = 0;
            std::size_t building = 0;
            for (const BuildJob& job : plan_->jobs())
                if (job.kind == BuildJob::Kind::plain) {
                    ++building;
                    to_build += job.positions;
                }
            report_.positions_built = to_build;
            // Under a launcher standard output is rarely a terminal one watches
            // (Open MPI gives rank 0 a pseudo-terminal): a line per material.
            progress_ = std::make_unique<Progress>(
                o_.output == BuildOptions::Output::automatic ? BuildOptions::Output::log : o_.output, building,
                to_build);
            progress_->note(fmt::format("building on {} ranks of {} threads", session_.size, threads));
            for (const PlannedMaterial& p : plan_->materials())
                if (!p.build) {
                    progress_->note(
                        fmt::format("{:<10} already built (in the manifest, files intact)", p.material.name()));
                    report_.materials.push_back({*plan_->manifest().find(p.material), true});
                }
            report_.rules =
                planned_rule_report(o_, *plan_, [&](const std::string& line) { progress_->note(line); });
            coordinator = std::thread([this, slots] { coordinate(slots); });
        }
        work();
        if (coordinator.joinable()) coordinator.join();
        progress_.reset();

        counts_.bytes_sent = traffic_.bytes_sent + exchange_.bytes_sent();
        counts_.bytes_received = traffic_.bytes_received + exchange_.bytes_received();
        counts_.table_parts_packed = exchange_.parts_packed();
        counts_.table_parts_sent_again = exchange_.parts_sent_again();
        counts_.team_wait_seconds = traffic_.wait_seconds;
        counts_.tables_read_back = static_cast<std::uint64_t>(read_back_.tables);
        counts_.read_back_seconds = read_back_.seconds;
        counts_.read_back_cpu_seconds = read_back_.processor;
        counts_.kept_packed = cache_.packed();
        counts_.rules_unpacked = rules_unpacked_;
        counts_.rules_through_files = rules_through_files_;
        counts_.kept_unpacked = cache_.unpacked();
        counts_.peak_memory = peak_resident_bytes();
        counts_.cpu_seconds = cpu_seconds();
        std::vector<RankCounts> all(session_.size);
        MPI_Gather(&counts_, sizeof(RankCounts), MPI_BYTE, all.data(), sizeof(RankCounts), MPI_BYTE, 0, MPI_COMM_WORLD);
        heartbeats.stop();
        if (session_.rank != 0) return std::nullopt;
        for (int r = 0; r < session_.size; ++r) {
            const RankCounts& c = all[r];
            report_.ranks.push_back({r, c.materials_alone, c.team_materials, c.rule_tables, c.rules_unpacked,
                                     c.rules_through_files, c.working_seconds, c.team_wait_seconds,
                                     c.idle_seconds, c.cpu_seconds, c.bytes_sent, c.bytes_received,
                                     c.table_parts_packed, c.table_parts_sent_again,
                                     c.tables_read_back, c.read_back_seconds, c.read_back_cpu_seconds, c.kept_packed,
                                     c.kept_unpacked, c.peak_memory});
        }
        report_.seconds = seconds_since(start);
        report_.peak_memory_bytes = counts_.peak_memory;
        return std::move(report_);
    }

private:
    // The cores this rank may use: those the launcher bound it to, or, if it
    // bound it to none, the node's shared by the ranks on it.
    static int default_threads(const Session& s) {
        cpu_set_t set;
        CPU_ZERO(&set);
        const int cores = static_cast<int>(std::thread::hardware_concurrency());
        const int allowed = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : cores;
        return std::max(1, allowed < cores ? allowed : cores / s.ranks_on_node);
    }

    // Memory for tables kept by a rank: --memory per rank, or three quarters
    // of the node's shared by the ranks on it.
    static std::uint64_t memory_budget(const BuildOptions& o, const Session& s) {
        return o.memory_bytes ? o.memory_bytes : physical_memory() / 4 * 3 / static_cast<unsigned>(s.ranks_on_node);
    }

    // Rank 0's coordinating thread: hands out the materials, keeps the manifest.
    void coordinate(const std::vector<int>& slots) {
        try {
            // A unit a job of the plan: its plain tables or its .rul (one rank).
            const std::vector<BuildJob>& jobs = plan_->jobs();
            std::vector<Scheduler::Unit> units;
            // Rule values still to be read by rule jobs: a rule job whose
            // values some are to read leaves them packed in the scratch
            // folder (packed_rules_file()), removed once the last has read them.
            std::map<Material, int> rule_reads;
            for (const BuildJob& job : jobs) {
                units.push_back({job.positions, job.waits_for, job.reads, job.kind == BuildJob::Kind::rule});
                if (job.kind == BuildJob::Kind::rule)
                    for (int r : job.reads) ++rule_reads[jobs[r].material];
            }
            std::set<Material> packed;  // the rule values packed in the scratch folder
            clear_scratch();  // what a killed build left
            // DTB_TEST_LARGEST_TEAMS: every material on its largest team, to measure what teams cost.
            const bool largest_teams = std::getenv("DTB_TEST_LARGEST_TEAMS") != nullptr;
            Scheduler scheduler(std::move(units), slots, o_.team_positions, largest_teams);
            // The scheduler's clock: what finished materials took tells it
            // how long running ones will, to fill the ranks a team waits for.
            const Clock::time_point began = Clock::now();
            std::vector<Clock::time_point> started(jobs.size());
            std::vector<std::vector<int>> team_of(jobs.size());
            std::map<Material, int> solved_alone_by;            // which rank keeps which table it solved
            std::map<Material, std::vector<int>> solved_by_team;  // and which ranks keep their ranges of which
            int team_id = 0;
            std::size_t outstanding = 0;  // ranks given a part that have not said it is done
            // The scheduler is asked again when a rank has reported, else once
            // a second (its estimates move with the time alone): on many
            // ranks a call weighs every ready material against every rank.
            bool reported = true;
            double asked_at = 0;
            while (!scheduler.all_finished() || outstanding > 0) {
                std::vector<Scheduler::Assignment> assignments;
                if (const double now = seconds_since(began); reported || now - asked_at >= 1) {
                    reported = false;
                    asked_at = now;
                    assignments = scheduler.assign(now);
                }
                for (const Scheduler::Assignment& a : assignments) {
                    const BuildJob& job = jobs[a.unit];
                    outstanding += a.team.size();
                    team_of[a.unit] = a.team;
                    started[a.unit] = Clock::now();
                    progress_->started(job.name());
                    nlohmann::json holders = nlohmann::json::object(), shares = nlohmann::json::object();
                    std::vector<std::string> packed_successors;
                    for (const Material& s : plan_->at(job.material).successors) {
                        if (packed.count(s)) packed_successors.push_back(s.name());
                        if (const auto it = solved_alone_by.find(s); it != solved_alone_by.end())
                            holders[s.name()] = it->second;
                        if (const auto it = solved_by_team.find(s); it != solved_by_team.end())
                            shares[s.name()] = it->second;
                    }
                    const std::string text = nlohmann::json{{"unit", a.unit},
                                                            {"material", job.material.name()},
                                                            {"rules", job.kind == BuildJob::Kind::rule},
                                                            {"pack", rule_reads[job.material] > 0},
                                                            {"packed", packed_successors},
                                                            {"team", a.team},
                                                            {"team_id", ++team_id % 32000 + 1},
                                                            {"holders", holders},
                                                            {"shares", shares}}
                                                 .dump();
                    for (int r : a.team) send_text(session_.coordination, r, assign_tag, text);
                }
                if (scheduler.stuck()) throw std::logic_error("the distributed build cannot go on: nothing runs or can start");
                const auto message = try_receive(session_.coordination, MPI_ANY_SOURCE, done_tag);
                if (!message) {
                    std::this_thread::sleep_for(std::chrono::microseconds(500));
                    continue;
                }
                reported = true;
                const nlohmann::json done = nlohmann::json::parse(message->second);
                const int unit = done.at("unit").get<int>();
                scheduler.released(unit, message->first);
                --outstanding;
                if (done.at("entry").is_null()) continue;
                ManifestEntry entry = entry_from_json(done.at("entry").get<std::string>());
                if (jobs[unit].kind == BuildJob::Kind::rule) {
                    progress_->finished(jobs[unit].name(), record_rule_table(*plan_, entry.material, jobs[unit].positions,
                                                                             *entry.rules, *report_.rules));
                    if (rule_reads[entry.material] > 0) packed.insert(entry.material);
                    for (int r : jobs[unit].reads)
                        if (--rule_reads[jobs[r].material] == 0 && packed.erase(jobs[r].material)) {
                            std::error_code ignored;  // a scratch file: if it cannot go, it costs only disk space
                            std::filesystem::remove(packed_rules_file(variant_dir_, jobs[r].material), ignored);
                        }
                    scheduler.finished(unit, seconds_since(began));
                    continue;
                }
                entry.seconds = seconds_since(started[unit]);
                if (scheduler.team_size(unit) == 1)
                    solved_alone_by[entry.material] = message->first;
                else
                    solved_by_team[entry.material] = team_of[unit];
                plan_->manifest().put(entry);
                plan_->manifest().save(plan_->variant_dir() / Manifest::file_name);
                report_.materials.push_back({entry, false});
                progress_->positions(entry.positions);
                progress_->finished(entry, scheduler.team_size(unit));
                scheduler.finished(unit, seconds_since(began));
            }
            for (int r = 0; r < session_.size; ++r) send_text(session_.coordination, r, finish_tag, "");
            clear_scratch();
        } catch (const std::exception& e) {
            fail(e.what());
        }
    }

    // Every rank: takes materials from the coordinator until it says nothing
    // is left. The main thread only passes messages; the materials, alone
    // (several at once) or in a team (alone on the rank), are solved in
    // oneTBB tasks, which hand their done messages back to it.
    void work() {
        std::atomic<int> live{0};  // tasks not yet returned
        std::mutex finished_mutex;
        std::vector<std::string> finished;  // done messages
        int running = 0;
        Clock::time_point since = Clock::now();
        auto account = [&](bool was_working) {
            (was_working ? counts_.working_seconds : counts_.idle_seconds) += seconds_since(since);
            since = Clock::now();
        };
        auto report_done = [&](int unit, const std::optional<ManifestEntry>& entry) {
            const std::string text =
                nlohmann::json{{"unit", unit}, {"entry", entry ? nlohmann::json(to_json(*entry)) : nlohmann::json(nullptr)}}
                    .dump();
            const std::lock_guard lock(finished_mutex);
            finished.push_back(text);
        };
        for (;;) {
            bool acted = false;
            std::vector<std::string> done;
            {
                const std::lock_guard lock(finished_mutex);
                done.swap(finished);
            }
            for (const std::string& text : done) {
                send_text(session_.coordination, 0, done_tag, text);
                if (--running == 0) account(true);
                acted = true;
            }
            acted |= exchange_.serve();
            if (try_receive(session_.coordination, 0, finish_tag)) break;
            if (const auto message = try_receive(session_.coordination, 0, assign_tag)) {
                acted = true;
                const nlohmann::json a = nlohmann::json::parse(message->second);
                const int unit = a.at("unit").get<int>();
                const Material m = Material::parse(a.at("material").get<std::string>());
                const bool rules = a.at("rules").get<bool>();
                const bool pack = a.at("pack").get<bool>();
                std::vector<Material> packed;
                for (const auto& name : a.at("packed")) packed.push_back(Material::parse(name.get<std::string>()));
                const std::vector<int> team = a.at("team").get<std::vector<int>>();
                const int team_id = a.at("team_id").get<int>();
                Holders holders;
                for (const auto& item : a.at("holders").items()) {
                    const int holder = item.value().template get<int>();
                    if (holder != session_.rank) holders.whole[Material::parse(item.key())] = holder;
                }
                for (const auto& item : a.at("shares").items())
                    holders.shares[Material::parse(item.key())] = item.value().template get<std::vector<int>>();
                if (running++ == 0) account(false);
                ++(rules ? counts_.rule_tables : team.size() == 1 ? counts_.materials_alone : counts_.team_materials);
                ++live;
                arena_.enqueue([&, unit, m, rules, pack, packed, team, team_id, holders] {
                    try {
                        report_done(unit, rules               ? std::optional(solve_rules(m, packed, pack))
                                          : team.size() == 1 ? std::optional(solve_alone(m, holders))
                                                             : solve_with(m, team, team_id, holders));
                    } catch (const std::exception& e) {
                        fail(m.name() + ": " + e.what());
                    }
                    return_free_memory();
                    --live;
                });
            }
            if (!acted) std::this_thread::sleep_for(std::chrono::microseconds(running > 0 ? 1000 : 200));
        }
        while (live > 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
        exchange_.finish();
        account(false);
    }

    // Range `into` of its table from the ranks that keep it: the rank that
    // solved it alone, or the ranks that solved it in a team (their ranges,
    // this rank's own included): false if one of them no longer has its part.
    bool fill(SolvedValues& into, const Holders& holders) {
        const Material& s = into.material;
        const std::uint64_t first = into.first, end = into.first + into.codes.size();
        if (const auto it = holders.whole.find(s); it != holders.whole.end())
            return exchange_.fetch(it->second, first, end - first, into);
        const auto it = holders.shares.find(s);
        if (it == holders.shares.end()) return false;
        const std::vector<int>& team = it->second;
        const Ranges ranges = Ranges::split(into.positions(), static_cast<int>(team.size()), o_.block_shift);
        for (std::size_t j = 0; j < team.size(); ++j) {
            const std::uint64_t a = std::max(first, ranges.first(static_cast<int>(j)));
            const std::uint64_t b = std::min(end, ranges.first(static_cast<int>(j) + 1));
            if (a >= b) continue;
            if (team[j] != session_.rank) {
                if (!exchange_.fetch(team[j], a, b - a, into)) return false;
                continue;
            }
            const std::shared_ptr<const SolvedValues> mine = cache_.find(s);  // this rank's own range
            if (!mine || !mine->holds(a) || !mine->holds(b - 1)) return false;
            std::copy_n(mine->codes.data() + (a - mine->first), b - a, into.codes.data() + (a - first));
            std::copy_n(mine->capture.data() + (a - mine->first) / 64, (b - a + 63) / 64,
                        into.capture.data() + (a - first) / 64);
        }
        return true;
    }

    // Table s whole from the ranks that keep it (kept here), or null.
    std::shared_ptr<const SolvedValues> fetch(const Material& s, const Holders& holders) {
        if (!holders.whole.count(s) && !holders.shares.count(s)) return nullptr;
        auto values = std::make_shared<SolvedValues>(s, Index<N>(s).size());
        if (!fill(*values, holders)) return nullptr;
        cache_.keep(values);
        return values;
    }

    // Table s whole in this rank's memory: kept, asked of the ranks that
    // solved it, or read from its file; null if the rank has no room for it.
    std::shared_ptr<const SolvedValues> whole_table(const Material& s, const Holders& holders) {
        std::shared_ptr<const SolvedValues> values = cache_.find_whole(s);
        if (values || !cache_.room_for(SolvedValues::bytes_for(table_positions<N>(s)))) return values;
        if ((values = fetch(s, holders))) return values;
        // Its capture positions answered from the tables it leads to that are here, or from their files.
        const TableFile file = open_dtw_table<V>(variant_dir_, s);
        const Prober<V> prober(o_.dir);
        ReadBacks read;
        read.count([&] {
            values = std::make_shared<const SolvedValues>(load_solved_values<V>(
                file, Successors<V>(cache_.find_all(successors(s)), &prober), 0, file.header().block_count()));
        });
        count_read_back(read);
        cache_.keep(values);
        return values;
    }

    // Empties the build's scratch folder (rank 0, before the first job and after the last).
    void clear_scratch() const {
        std::error_code ignored;  // scratch files: a folder that cannot be removed costs only disk space
        std::filesystem::remove_all(scratch_directory(variant_dir_), ignored);
    }

    // Materials may be solved side by side on this rank.
    void count_read_back(const ReadBacks& read) {
        const std::lock_guard lock(read_back_mutex_);
        read_back_ += read;
    }

    // A material solved by this rank alone, with the tables it leads to in
    // memory where the budget allows and read from their files otherwise.
    ManifestEntry solve_alone(const Material& m, const Holders& holders) {
        maybe_kill_rank(session_.rank, m.name());
        const SuccessorTables<V> tables(successors(m), o_.dir,
                                        [&](const Material& s) { return whole_table(s, holders); });
        auto values = std::make_shared<const SolvedValues>(solve_material<V>(m, tables.get()));
        const ManifestEntry entry = write_solved(o_, N, variant_dir_, *values);
        maybe_kill_after_write(m);
        cache_.keep(std::move(values));  // for the materials that read it, if they come here
        return entry;
    }

    // Material m's .rul, solved by this rank alone. The rule values its
    // moves lead to are read from memory where this rank kept them, else
    // from their packed files where they are `packed` (rule values solved by
    // other ranks in this build), else through their .rul files (a table
    // built before, or a packed file that fails). With `pack`, its values
    // are left packed for the rule jobs of other ranks. Its entry carries
    // only the material and the .rul's record.
    ManifestEntry solve_rules(const Material& m, const std::vector<Material>& packed, bool pack) {
        maybe_kill_rank(session_.rank, m.name() + ".rul");
        PlannedMaterial p;  // what the job needs of the plan, which rank 0 holds
        p.material = m;
        p.successors = successors(m);
        p.positions = table_positions<N>(m);
        std::vector<std::shared_ptr<const RuleValues>> held = rules_.find_all(p.successors);
        for (const Material& s : p.successors) {
            if (std::any_of(held.begin(), held.end(), [&](const auto& v) { return v->material == s; })) continue;
            if (std::find(packed.begin(), packed.end(), s) == packed.end()) {
                ++rules_through_files_;
                continue;
            }
            try {
                held.push_back(read_packed_rules<V>(variant_dir_, s));
                ++rules_unpacked_;
                rules_.keep(held.back());
            } catch (const std::runtime_error&) {
                ++rules_through_files_;  // the .rul file answers the same
            }
        }
        SolvedRules solved = solve_rule_job<V>(o_, variant_dir_, p, held);
        if (pack) write_packed_rules(variant_dir_, *solved.values);
        rules_.keep(std::move(solved.values));
        ManifestEntry entry;
        entry.material = m;
        entry.rules = std::move(solved.entry);
        return entry;
    }

    // This rank's part of material m, solved with the ranks of `team`; the
    // first of them writes the tables and gets the manifest entry.
    std::optional<ManifestEntry> solve_with(const Material& m, const std::vector<int>& team, int team_id,
                                            const Holders& holders) {
        MPI_Group everyone, members;
        MPI_Comm_group(session_.teams, &everyone);
        MPI_Group_incl(everyone, static_cast<int>(team.size()), team.data(), &members);
        MPI_Comm comm;
        check(MPI_Comm_create_group(session_.teams, members, team_id, &comm), "MPI_Comm_create_group");
        MPI_Group_free(&members);
        MPI_Group_free(&everyone);
        MpiTeam mpi_team(comm, traffic_);
        SolveProgress hooks;
        hooks.level_started = [&](int level, int) {
            if (level == 0) maybe_kill_rank(session_.rank, m.name());
        };
        TableSources sources;
        sources.whole = [&](const Material& s) { return fetch(s, holders); };
        sources.range = [&](SolvedValues& into) { return fill(into, holders); };
        sources.read_back = [&](const ReadBacks& read) { count_read_back(read); };
        std::optional<ManifestEntry> entry = solve_in_team<V>(mpi_team, o_, variant_dir_, m, &cache_, sources, hooks);
        if (entry) maybe_kill_after_write(m);
        MPI_Comm_free(&comm);
        return entry;
    }

    const BuildOptions& o_;
    Session& session_;
    std::filesystem::path variant_dir_;
    ValuesCache cache_;
    KeptRuleValues rules_;
    std::atomic<std::uint64_t> rules_unpacked_{0}, rules_through_files_{0};  // rule jobs run side by side
    TableExchange exchange_;
    tbb::task_arena arena_;  // initialised by run()
    TeamTraffic traffic_;
    RankCounts counts_;
    std::mutex read_back_mutex_;
    ReadBacks read_back_;
    // Rank 0:
    std::unique_ptr<BuildPlan> plan_;
    std::unique_ptr<Progress> progress_;
    BuildReport report_;
};

}  // namespace

bool launched_by_mpi() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"})
        if (std::getenv(name)) return true;
    const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
    return tasks && std::atoi(tasks) > 1;
}

std::optional<BuildReport> build_tables(const BuildOptions& options) {
    if (options.targets.empty()) throw std::invalid_argument("nothing to build: give --pieces N or --material M");
    // Problems every rank finds alike are reported before MPI starts.
    draughts::with_variant(options.variant, []<class V>() {});
    Session session;
    const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
    if (session.size == 1 && tasks && std::atoi(tasks) > 1)
        fail(fmt::format("srun started {} tasks but MPI sees only this one: start them with srun --mpi=pmix "
                         "(srun --mpi=list shows what this Slurm offers), or with mpiexec inside the allocation",
                         tasks));
    BuildOptions o = options;
    // DTB_TEST_STAGE_POSITIONS: a level of whole pairs in stages of so many
    // positions a member, to see many stages on small materials.
    if (const char* stage = std::getenv("DTB_TEST_STAGE_POSITIONS"); stage && *stage) {
        o.team.stage_positions = std::strtoull(stage, nullptr, 10);
        if (o.team.stage_positions == 0) fail("DTB_TEST_STAGE_POSITIONS must be a positive number of positions");
    }
    try {
        return draughts::with_variant(
            o.variant, [&]<class V>() { return DistributedBuild<V>(o, session).run(); });
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

}  // namespace dtb::mpi
