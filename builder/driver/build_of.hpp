// The one-process build of one variant: LocalWorker<V> and build_tables_of<V>
// (builder/driver/build.hpp). Included by build.cpp, which builds the five
// variants, and by test_boards.cpp, which instantiates it for the 6x6 test
// boards in a library only the tests link, so that dtb compiles neither the
// boards' driver nor their solver.
#pragma once

#include "builder/driver/build.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include <fmt/core.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "builder/driver/build_plan.hpp"
#include "builder/driver/coordinator.hpp"
#include "builder/driver/executor.hpp"
#include "builder/driver/material_job.hpp"
#include "builder/driver/packed_forms.hpp"
#include "builder/driver/progress.hpp"
#include "builder/driver/rule_job.hpp"
#include "builder/driver/scheduler.hpp"
#include "builder/system/work_profile.hpp"

namespace dtb {

namespace build_detail {

// The build as one process: the coordinator of the distributed build
// (coordinator.hpp) with one worker, this process, given the plan's jobs
// (BuildPlan::jobs(): each material's plain tables, and with --rules its
// .rul) as the scheduler decides (scheduler.hpp: once the jobs they wait
// for are done, the longest path of work first), several at once where
// their working sets fit the memory budget, each with every thread. The
// coordinator runs on a thread of its own; the jobs run in oneTBB tasks of
// an arena whose threads include the calling one (work()).
//
// The budget (--memory, default a third of the machine) covers what the
// build holds: the working sets of the jobs in work
// (MaterialSolver::working_bytes, rule_working_set) and the solved values
// kept for the jobs still to run, both in the store a rank of a distributed
// build keeps them in (TableStore, KeptTables), which counts here the jobs
// left that read each. Values that later jobs read are also written packed
// beside the tables as they are solved (packed_forms.hpp). A ready job
// waits while the others' use leaves no room for it; with nothing else in
// work it starts anyway, after the kept values no job in work is reading
// give up their room: plain tables packed in memory first (a few percent of
// their size, unpacked at memory speed when needed again), then rule values
// and packed tables let go, to be read from their packed forms when
// needed. Only a table whose packed form could not be written (a full
// disk) is read back from its table file (its capture positions solved
// again), and rule values through their .rul files; where there is no room
// at all, through the probe cache.
template <class V>
class LocalWorker final : public Workers {
public:
    LocalWorker(const BuildOptions& o, const BuildPlan& plan, Progress& progress, std::uint64_t budget)
        : plan_(plan),
          progress_(progress),
          executor_(o, budget, true, [&progress](const std::string& line) { progress.note(line); }),
          keep_alive_(group_->defer([] {})) {
        // The jobs' threads, solver_threads() in all: the calling thread
        // among them (work()). With one, oneTBB gives enqueued tasks a
        // worker of their own whatever the limit, so the calling thread
        // only waits.
        arena_.initialize(static_cast<int>(solver_threads()), solver_threads() > 1 ? 1 : 0);
        for (const BuildJob& job : plan.jobs())
            for (const Material& s : plan.at(job.material).successors)
                kept().add_use(s, kind_of(job.kind == BuildJob::Kind::rule));
    }

    // The bytes a job of material m holds while it runs: a plain job one big
    // pair a thread at once, or fewer where that would not fit the budget
    // (at least one); a rule job whole or by levels (rule_working_set()).
    std::uint64_t working_bytes(const Material& m, bool rules) {
        return executor_.working_set(m, rules).bytes;
    }

    // Whether the jobs in work and one more, of `bytes` in all, fit once the
    // kept values no job in work reads are packed if need be (it is not
    // worth letting go of values that are then read again: the job waits
    // instead). Asked by the scheduler, on the coordinator's thread.
    bool room(std::uint64_t bytes) { return kept().make_room(bytes - working_); }

    // Runs the jobs given until the coordinator says nothing is left, this
    // thread among those of the arena where there are more than one.
    void work() {
        if (solver_threads() > 1)
            arena_.execute([&] { group_->wait(); });
        else
            group_->wait();
    }

    // The first job given with nothing in work starts in any case, once all
    // that can give up room has.
    void assign(int, Assignment a) override {
        const std::uint64_t bytes = working_bytes(a.material, a.rules);
        if (running_ == 0) {
            const KeptTables::Reads read{plan_.at(a.material).successors, kind_of(a.rules)};
            kept().make_room(bytes, &read);
        }
        ++running_;
        working_ += bytes;
        kept().hold(bytes);
        arena_.enqueue(group_->defer([this, a = std::move(a), bytes] { run(a, bytes); }));
    }

    // A job's working set is let go by the store once it is solved (its
    // values are then counted as the executor writes and keeps them), and by
    // this count when its done message is taken, as the scheduler then lets
    // go of it.
    std::optional<std::pair<int, Done>> done() override {
        std::unique_lock lock(mutex_);
        if (!finished_.wait_for(lock, std::chrono::seconds(1), [&] { return !done_.empty(); })) return std::nullopt;
        Finished f = std::move(done_.front());
        done_.pop_front();
        lock.unlock();
        --running_;
        working_ -= f.bytes;
        kept().free(f.held);
        if (f.error) std::rethrow_exception(f.error);
        return std::pair{0, std::move(f.done)};
    }

    void unread(const Material& m, TableKind kind) override { kept().let_go(m, kind); }

    // Jobs given and not yet started do not start (after a failure).
    void finish() override {
        stopping_ = true;
        if (keep_alive_) arena_.enqueue(std::move(keep_alive_));
    }

    // What the store counts as held now: kept values and working sets.
    std::uint64_t held() { return kept().bytes(); }

    // What it kept, packed, read and wrote, into `report`.
    void count(BuildReport& report) {
        const KeptTables::Counts kept = this->kept().counts();
        report.kept.packed = kept.packed;
        report.kept.packed_from_bytes = kept.packed_from_bytes;
        report.kept.packed_to_bytes = kept.packed_to_bytes;
        report.kept.packing_seconds = kept.packing_seconds;
        report.kept.unpacked = kept.unpacked;
        report.kept.unpacking_seconds = kept.unpacking_seconds;
        report.kept.let_go = kept.let_go;
        report.memory_budget_bytes = this->kept().budget();
        report.peak_held_bytes = kept.peak_bytes;
        const TableStoreCounts read = executor_.store().counts();
        report.kept.written = read.written;
        report.kept.written_bytes = read.written_bytes;
        report.kept.writing_seconds = read.writing_seconds;
        report.kept.read_packed = read.read_packed;
        report.kept.read_packed_seconds = read.read_packed_seconds;
        report.kept.read_back = read.read_back.tables;
        report.kept.read_back_seconds = read.read_back.seconds;
    }

private:
    struct Finished {
        Done done;
        std::uint64_t bytes;  // its working set, as the scheduler counts it until it is done
        std::uint64_t held;   // what of it the store still counts: let go once solved (Executor::Job::solved)
        std::exception_ptr error;
    };

    static TableKind kind_of(bool rules) { return rules ? TableKind::rul : TableKind::dtw; }
    KeptTables& kept() { return executor_.kept(); }

    // Job `a` run, its tables written; once solved, the values it read that
    // no job left reads are let go (their packed forms go once the
    // coordinator has its entry in the manifest).
    void run(const Assignment& a, std::uint64_t bytes) {
        if (stopping_) return;
        Finished f{{a.unit, std::nullopt}, bytes, bytes, nullptr};
        try {
            const Material& m = a.material;
            const PlannedMaterial& p = plan_.at(m);
            const auto release = [&] {
                for (const Material& s : p.successors) kept().used(s, kind_of(a.rules));
            };
            // Once solved: the executor holds what the solved values take, this the rest no longer.
            const auto solved = [&](std::uint64_t values_bytes) {
                release();
                kept().free(std::exchange(f.held, 0) - values_bytes);
            };
            ManifestEntry entry;
            if (a.rules) {
                entry.material = m;
                entry.rules = executor_.solve_rules(
                    p, {a.pack, false, {{}, {}, [&](const std::string& line) { progress_.note(line); }, {}}, solved});
            } else {
                std::vector<std::string> waits_for;
                for (const Material& w : p.waits_for) waits_for.push_back(w.name());
                const work_profile::Scope profile(m.name(), p.positions, std::move(waits_for));
                entry = executor_.solve_plain(m, {a.pack, false,
                                                  {[&](int level, int levels) { progress_.level(m, level, levels); },
                                                   [&](std::uint64_t n) { progress_.positions(n); },
                                                   [&](const std::string& line) { progress_.note(line); },
                                                   [&](std::uint64_t n) { progress_.restored(n); }},
                                                  [&](std::uint64_t values_bytes) {
                                                      solved(values_bytes);
                                                      work_profile::Scope::set_level(-1);
                                                  }});
            }
            f.done.entry = std::move(entry);
        } catch (...) {
            f.error = std::current_exception();
        }
        return_free_memory();
        {
            const std::lock_guard lock(mutex_);
            done_.push_back(std::move(f));
        }
        finished_.notify_one();
    }

    const BuildPlan& plan_;
    Progress& progress_;
    Executor<V> executor_;  // runs the jobs; its store keeps the values they read
    int running_ = 0;                  // jobs in work (the coordinator's thread only)
    std::uint64_t working_ = 0;        // their working sets
    tbb::task_arena arena_;
    // (Held by pointer: a task_group's destructor may throw, which the
    // Workers' destructor must not.)
    std::unique_ptr<tbb::task_group> group_ = std::make_unique<tbb::task_group>();
    tbb::task_handle keep_alive_;  // run by finish(): until then the group waits
    std::mutex mutex_;
    std::deque<Finished> done_;  // jobs done, not yet taken
    std::condition_variable finished_;
    std::atomic<bool> stopping_{false};
};

// A budget below the least working set of a material `plan` builds (one
// big pair at a time, whole or a level at a time: what `dtb info` prints)
// refused with the largest (BuildOptions::refuse_little_memory).
template <class V>
void refuse_little_memory(const BuildOptions& o, const BuildPlan& plan) {
    const PlannedMaterial* most = nullptr;
    WorkingSet least;
    for (const PlannedMaterial& p : plan.materials()) {
        if (!p.build) continue;
        const WorkingSet w = plain_working_set<V>(p.material, 1, 0, o.solver);
        if (w.bytes > least.bytes) {
            least = w;
            most = &p;
        }
    }
    if (!most || o.memory_bytes >= least.bytes) return;
    const double given = std::floor(static_cast<double>(o.memory_bytes) / (1 << 20) * 10) / 10;
    const std::string name = most->material.name();
    throw OptionRefused(fmt::format(
        "--memory of {:.1f} MiB is less than the {:.1f} MiB that solving {} takes at the least ({}; dtb info "
        "--variant {} --material {} gives it): give --memory {:.3f} or more",
        given, mib_rounded_up(least.bytes), name,
        least.options.levels_from_positions == 0 ? "two levels of it at a time" : "its values whole", o.variant,
        name, std::ceil(static_cast<double>(least.bytes) / (1 << 30) * 1000) / 1000));
}

}  // namespace build_detail

template <class V>
BuildReport build_tables_of(const BuildOptions& options) {
    if (options.targets.empty()) throw std::invalid_argument("nothing to build: give --pieces N or --material M");
    const Clock::time_point start = Clock::now();
    if (!options.profile.empty()) work_profile::enable(options.profile);
    // Before the working sets, which count the threads.
    std::optional<tbb::global_control> threads;
    if (options.threads > 0)
        threads.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(options.threads));
    Coordinator coordinator(options,
                            std::make_unique<BuildPlan>(options, V::board_size,
                                                        options.rules ? rule_terms<V>(options) : RuleTerms{}),
                            options.output);
    if (options.refuse_little_memory && options.memory_bytes)
        build_detail::refuse_little_memory<V>(options, coordinator.plan());
    build_detail::LocalWorker<V> worker(options, coordinator.plan(), coordinator.progress(),
                                        options.memory_bytes ? options.memory_bytes : default_memory_bytes());
    const work_profile::HeldCount held([&worker] { return worker.held(); });
    std::exception_ptr failed;
    std::thread coordinating([&] {
        try {
            // One worker, as many jobs at once as fit the budget.
            coordinator.run(worker, {std::numeric_limits<int>::max()},
                            Scheduler::Memory{{}, [&](int, std::uint64_t bytes) { return worker.room(bytes); }},
                            [&](const BuildJob& job, std::uint64_t) {
                                return worker.working_bytes(job.material, job.kind == BuildJob::Kind::rule);
                            },
                            true);
        } catch (...) {
            failed = std::current_exception();
            worker.finish();  // the jobs in work end, and work() returns
        }
    });
    worker.work();
    coordinating.join();
    if (failed) std::rethrow_exception(failed);
    BuildReport report = coordinator.finish();
    worker.count(report);
    report.seconds = seconds_since(start);
    report.processor_seconds = cpu_seconds();
    report.peak_memory_bytes = peak_resident_bytes();
    if (!options.profile.empty())
        work_profile::write(seconds_since(start),
                            options.threads > 0 ? options.threads : tbb::this_task_arena::max_concurrency(),
                            options.options);
    return report;
}

}  // namespace dtb
