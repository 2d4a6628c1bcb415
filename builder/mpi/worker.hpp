// Every rank's part of a distributed build (docs/design.md, "Distributed
// build"): the worker. It takes jobs from the coordinator
// (builder/driver/coordinator.hpp, through the messages of messages.hpp)
// until it says nothing is left, and
// solves them in oneTBB tasks of an arena of its own: whole materials and
// rule tables, several at once, or its share of a material in a team
// (MpiTeam), alone on the rank. It keeps what it solved or read within its
// memory budget (KeptTables, as one process does) while some job left reads it
// (the coordinator says when none does), answers other ranks that ask
// for its tables (TableExchange), and writes the tables it solves; the
// coordinator writes the manifest.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <fmt/core.h>
#include <mpi.h>
#include <tbb/task_arena.h>

#include "builder/driver/executor.hpp"
#include "builder/driver/material_job.hpp"
#include "builder/driver/packed_forms.hpp"
#include "builder/driver/rule_job.hpp"
#include "builder/driver/table_store.hpp"
#include "builder/mpi/messages.hpp"
#include "builder/mpi/mpi_team.hpp"
#include "builder/mpi/session.hpp"
#include "builder/mpi/table_exchange.hpp"

namespace dtb::mpi {

// Test hooks: DTB_TEST_KILL_RANK=R:JOB kills rank R with SIGKILL when it
// starts JOB, a material (a team's member is then in the middle of its
// team's exchanges) or MATERIAL.rul, the way a node that fails would;
// DTB_TEST_FAIL_RANK makes it fail there with an error instead.
inline void maybe_kill_rank(int rank, const std::string& job) {
    const std::string here = fmt::format("{}:{}", rank, job);
    if (const char* kill = std::getenv("DTB_TEST_KILL_RANK"); kill && here == kill) std::raise(SIGKILL);
    if (const char* failure = std::getenv("DTB_TEST_FAIL_RANK"); failure && here == failure)
        throw std::runtime_error("a test made rank " + std::to_string(rank) + " fail (DTB_TEST_FAIL_RANK)");
}

template <class V>
class Worker {
public:
    static constexpr int N = V::board_size;

    // `threads` solve the jobs; the thread that calls work() only passes messages.
    Worker(const BuildOptions& o, Session& session, int threads)
        : o_(o),
          session_(session),
          variant_dir_(o.dir / o.variant),
          executor_(o, memory_budget(o, session), false),
          // Packed parts kept for askers: about a tenth of the tables'
          // bytes, so a sixteenth of the budget keeps parts of most of them.
          exchange_(session.tables, kept_, memory_budget(o, session) / 16,
                    [this](const Material& s, std::uint64_t first, std::uint64_t count) {
                        return read_packed_frames(variant_dir_, s, table_checksum_of<V>(variant_dir_, s, TableKind::dtw),
                                                  first, count);
                    }) {
        // The calling thread counted as one more (oneTBB would otherwise size
        // the arena from the processor affinity a launcher sets, one core
        // per rank by default).
        arena_.initialize(threads + 1, 1);
    }

    // After work(): what this rank did (gathered by rank 0 as bytes).
    RankReport counts() {
        static_assert(std::is_trivially_copyable_v<RankReport>);
        counts_.rank = session_.rank;
        counts_.bytes_sent = traffic_.bytes_sent + exchange_.bytes_sent();
        counts_.bytes_received = traffic_.bytes_received + exchange_.bytes_received();
        counts_.table_parts_packed = exchange_.parts_packed();
        counts_.table_parts_read = exchange_.parts_read();
        counts_.table_parts_sent_again = exchange_.parts_sent_again();
        counts_.team_wait_seconds = traffic_.wait_seconds;
        const TableStoreCounts read = store_.counts();
        counts_.tables_read_back = static_cast<std::uint64_t>(read.read_back.tables);
        counts_.read_back_seconds = read.read_back.seconds;
        counts_.read_back_cpu_seconds = read.read_back.processor;
        const KeptTables::Counts kept = kept_.counts();
        counts_.kept_packed = static_cast<std::uint64_t>(kept.packed);
        counts_.kept_unpacked = static_cast<std::uint64_t>(kept.unpacked);
        counts_.packed_written = static_cast<std::uint64_t>(read.written);
        counts_.packed_read = static_cast<std::uint64_t>(read.read_packed);
        counts_.packed_failed = static_cast<std::uint64_t>(read.failed);
        counts_.rules_through_files = static_cast<std::uint64_t>(read.rules_through_files);
        counts_.peak_memory_bytes = peak_resident_bytes();
        counts_.cpu_seconds = cpu_seconds();
        return counts_;
    }

    // A rank's memory: --memory, or three quarters of the node's shared by
    // the ranks on it. It holds the working sets of the jobs in work and the
    // values kept, plain and rule.
    static std::uint64_t memory_budget(const BuildOptions& o, const Session& s) {
        return o.memory_bytes ? o.memory_bytes : physical_memory() / 4 * 3 / static_cast<unsigned>(s.ranks_on_node);
    }

    // Takes jobs from the coordinator until it says nothing is left. The
    // calling thread only passes messages (assignments, done messages,
    // tables asked of this rank); the jobs, alone (several at once) or in a
    // team (alone on the rank), run in oneTBB tasks, which hand their done
    // messages back to it.
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
        auto report_done = [&](const Done& done) {
            const std::lock_guard lock(finished_mutex);
            finished.push_back(to_text(done));
        };
        // Polls after 200 µs growing to 5 ms while nothing comes: woken every
        // millisecond, a rank of one thread lost part of its solve to the
        // switches (docs/scaling.md, "Ranks against one process").
        Backoff idle(std::chrono::microseconds(200), std::chrono::microseconds(5000));
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
                Assignment a = assignment_from_text(message->second);
                std::erase_if(a.holders.whole, [&](const auto& h) { return h.second == session_.rank; });
                for (const Material& s : a.unread) {
                    kept_.let_go(s, TableKind::dtw);
                    exchange_.let_go(s);
                }
                for (const Material& s : a.unread_rules) kept_.let_go(s, TableKind::rul);
                if (running++ == 0) account(false);
                ++(a.rules ? counts_.rule_tables : a.team.size() == 1 ? counts_.materials_alone : counts_.team_materials);
                ++live;
                arena_.enqueue([&, a = std::move(a)] {
                    try {
                        report_done({a.unit, a.rules              ? std::optional(solve_rules(a.material, a.pack))
                                             : a.team.size() == 1 ? std::optional(solve_alone(a.material, a.holders, a.pack))
                                                                  : solve_with(a.material, a.team, a.team_id, a.holders, a.pack)});
                    } catch (const std::exception& e) {
                        fail(a.material.name() + ": " + e.what());
                    }
                    return_free_memory();
                    --live;
                });
            }
            if (acted)
                idle.reset();
            else
                idle.pause();
        }
        while (live > 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
        exchange_.finish();
        account(false);
    }

private:
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
            const std::shared_ptr<const SolvedValues> mine = kept_.find(s);  // this rank's own range
            if (!mine || !mine->holds(a) || !mine->holds(b - 1)) return false;
            std::copy_n(mine->codes.data() + (a - mine->first), b - a, into.codes.data() + (a - first));
            std::copy_n(mine->capture.data() + (a - mine->first) / 64, (b - a + 63) / 64,
                        into.capture.data() + (a - first) / 64);
        }
        return true;
    }

    // Table s whole from the ranks that keep it, or null.
    std::shared_ptr<const SolvedValues> fetch(const Material& s, const Holders& holders) {
        if (!holders.whole.count(s) && !holders.shares.count(s)) return nullptr;
        auto values = std::make_shared<SolvedValues>(s, Index<N>(s).size());
        if (!fill(*values, holders)) return nullptr;
        return values;
    }

    // A material solved by this rank alone, with the tables it leads to in
    // memory where the budget allows (kept, asked of the ranks that keep
    // them, read from their packed forms or their files) and read through
    // the probe cache otherwise. With `pack`, its packed form is written
    // for the jobs that read it, and its values kept for those that come here.
    ManifestEntry solve_alone(const Material& m, const Holders& holders, bool pack) {
        maybe_kill_rank(session_.rank, m.name());
        return executor_.solve_plain(m, {pack, true, {}, {}}, [&](const Material& t) { return fetch(t, holders); });
    }

    // Material m's .rul, solved by this rank alone (Executor::solve_rules()).
    // Its entry carries only the material and the .rul's record.
    ManifestEntry solve_rules(const Material& m, bool pack) {
        maybe_kill_rank(session_.rank, m.name() + ".rul");
        PlannedMaterial p;  // what the job needs of the plan, which rank 0 holds
        p.material = m;
        p.successors = successors(m);
        p.positions = table_positions<N>(m);
        ManifestEntry entry;
        entry.material = m;
        entry.rules = executor_.solve_rules(p, {pack, true, {}, {}});
        return entry;
    }

    // This rank's part of material m, solved with the ranks of `team`; the
    // first of them writes the tables and gets the manifest entry.
    std::optional<ManifestEntry> solve_with(const Material& m, const std::vector<int>& team, int team_id,
                                            const Holders& holders, bool pack) {
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
        const std::vector<Material> leads_to = successors(m);
        const KeptTables::Reads reads{leads_to, TableKind::dtw};
        const KeptTables::Held working(
            kept_,
            static_cast<std::uint64_t>(team_member_bytes * static_cast<double>(table_positions<N>(m)) /
                                       static_cast<double>(team.size())),
            &reads);
        TableSources sources;
        sources.whole = [&](const Material& s) {
            std::shared_ptr<const SolvedValues> values = fetch(s, holders);
            if (!values) values = store_.read_packed_whole(s);
            if (values) kept_.keep(values);
            return values;
        };
        sources.range = [&](const Material& s, std::uint64_t per_side, std::uint64_t first,
                            std::uint64_t count) -> std::shared_ptr<const SolvedValues> {
            // This rank's own range of s (solved by a team of this size) or s whole: read where it is.
            if (auto mine = kept_.find(s, &reads); mine && mine->holds(first) && mine->holds(first + count - 1)) return mine;
            auto into = std::make_shared<SolvedValues>(s, per_side, first, count);
            if (fill(*into, holders) || store_.read_packed(s, TableKind::dtw, [&] {
                                            read_packed_range<V>(variant_dir_, *into);
                                            return true;
                                        }).has_value())
                return into;
            return nullptr;
        };
        sources.read_back = [&](const ReadBacks& read) { store_.count_read_back(read); };
        sources.keep_home = pack;  // some job reads it
        if (pack)
            sources.written = [&](const SolvedValues& home, std::uint64_t checksum) {
                store_.write_packed(m.name(), [&] {
                    write_packed_part(variant_dir_, home, checksum, mpi_team.rank(), mpi_team.size());
                });
            };
        std::optional<ManifestEntry> entry = solve_in_team<V>(mpi_team, o_, variant_dir_, m, &kept_, sources, hooks);
        if (entry) maybe_kill_after_write(m);
        MPI_Comm_free(&comm);
        return entry;
    }

    const BuildOptions& o_;
    Session& session_;
    std::filesystem::path variant_dir_;
    Executor<V> executor_;  // runs its jobs alone; its store holds the values they read
    TableStore<V>& store_ = executor_.store();
    KeptTables& kept_ = executor_.kept();  // those kept, with its jobs' working sets
    TableExchange exchange_;
    tbb::task_arena arena_;
    TeamTraffic traffic_;
    RankReport counts_;
};

}  // namespace dtb::mpi
