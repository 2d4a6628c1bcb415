#include "builder/mpi/distributed_build.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <mpi.h>
#include <tbb/global_control.h>
#include <sched.h>

#include "builder/driver/build_plan.hpp"
#include "builder/driver/material_job.hpp"
#include "builder/driver/rule_job.hpp"
#include "builder/driver/coordinator.hpp"
#include "builder/mpi/heartbeats.hpp"
#include "builder/mpi/messages.hpp"
#include "builder/mpi/mpi_team.hpp"
#include "builder/mpi/session.hpp"
#include "builder/mpi/worker.hpp"
#include "draughts/variant.hpp"

namespace dtb::mpi {

namespace {

// The coordinator's workers on the ranks: messages on the session's
// coordination communicator (messages.hpp). A rank is told to let go of
// values no job left reads with its next assignment.
class RankWorkers final : public Workers {
public:
    explicit RankWorkers(const Session& session)
        : session_(session), unread_(session.size), unread_rules_(session.size) {}

    void assign(int rank, Assignment a) override {
        a.unread = std::exchange(unread_[rank], {});
        a.unread_rules = std::exchange(unread_rules_[rank], {});
        send_text(session_.coordination, rank, assign_tag, to_text(a));
    }

    std::optional<std::pair<int, Done>> done() override {
        const auto message = try_receive(session_.coordination, MPI_ANY_SOURCE, done_tag);
        if (!message) {
            quiet_.pause();
            return std::nullopt;
        }
        quiet_.reset();
        return std::pair{message->first, done_from_text(message->second)};
    }

    void unread(const Material& m, TableKind kind) override {
        for (auto& rank : kind == TableKind::rul ? unread_rules_ : unread_) rank.push_back(m);
    }

    void finish() override {
        for (int r = 0; r < session_.size; ++r) send_text(session_.coordination, r, finish_tag, "");
    }

private:
    const Session& session_;
    std::vector<std::vector<Material>> unread_, unread_rules_;  // per rank, since its last assignment
    // Done messages polled after 200 µs growing to 5 ms while none comes
    // (the coordinator's thread shares rank 0 with its solves).
    Backoff quiet_{std::chrono::microseconds(200), std::chrono::microseconds(5000)};
};

template <class V>
class DistributedBuild {
public:
    DistributedBuild(const BuildOptions& o, Session& session) : o_(o), session_(session) {}

    std::optional<BuildReport> run() {
        const Clock::time_point start = Clock::now();
        const int threads = o_.threads > 0 ? o_.threads : default_threads(session_);
        // `threads` workers of oneTBB solve, in the worker's arena, beside
        // the thread that passes its messages.
        const tbb::global_control parallelism(tbb::global_control::max_allowed_parallelism,
                                              static_cast<std::size_t>(threads) + 1);
        Worker<V> worker(o_, session_, threads);
        std::vector<int> slots(session_.size);
        MPI_Gather(&threads, 1, MPI_INT, slots.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
        const std::uint64_t budget = Worker<V>::memory_budget(o_, session_);
        std::vector<std::uint64_t> memory(session_.size);
        MPI_Gather(&budget, 1, MPI_UINT64_T, memory.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
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

        std::unique_ptr<Coordinator> coordinator;
        std::thread coordinating;
        if (session_.rank == 0) {
            try {
                // Under a launcher standard output is rarely a terminal one
                // watches (Open MPI gives rank 0 a pseudo-terminal): a line
                // per material.
                coordinator = std::make_unique<Coordinator>(
                    o_, std::make_unique<BuildPlan>(o_, V::board_size, o_.rules ? rule_terms<V>(o_) : RuleTerms{}),
                    o_.output == BuildOptions::Output::automatic ? BuildOptions::Output::log : o_.output);
                coordinator->progress().note(fmt::format("building on {} ranks of {} threads", session_.size, threads));
            } catch (const std::exception& e) {
                fail(e.what());
            }
            coordinating = std::thread([&] {
                try {
                    RankWorkers workers(session_);
                    coordinator->run(workers, slots, Scheduler::Memory{memory, {}},
                                     [&](const BuildJob& job, std::uint64_t least) {
                                         return job.kind == BuildJob::Kind::rule
                                                    ? rule_working_set<V>(job.material, least, o_.solver).bytes
                                                    : plain_working_set<V>(job.material, solver_threads(), least,
                                                                           o_.solver)
                                                          .bytes;
                                     },
                                     false);
                } catch (const std::exception& e) {
                    fail(e.what());
                }
            });
        }
        worker.work();
        if (coordinating.joinable()) coordinating.join();

        const RankReport counts = worker.counts();
        std::vector<RankReport> all(session_.size);
        MPI_Gather(&counts, sizeof(RankReport), MPI_BYTE, all.data(), sizeof(RankReport), MPI_BYTE, 0, MPI_COMM_WORLD);
        heartbeats.stop();
        if (session_.rank != 0) return std::nullopt;
        BuildReport report = coordinator->finish();
        report.ranks = std::move(all);
        report.seconds = seconds_since(start);
        report.peak_memory_bytes = counts.peak_memory_bytes;
        return report;
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

    const BuildOptions& o_;
    Session& session_;
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
