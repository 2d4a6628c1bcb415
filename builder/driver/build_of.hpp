// The one-process build of one variant: Builder<V> and build_tables_of<V>
// (builder/driver/build.hpp). Included by build.cpp, which builds the five
// variants, and by test_boards.cpp, which instantiates it for the 6x6 test
// boards in a library only the tests link, so that dtb compiles neither the
// boards' driver nor their solver.
#pragma once

#include "builder/driver/build.hpp"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

#include <fmt/core.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "builder/driver/build_plan.hpp"
#include "builder/driver/executor.hpp"
#include "builder/driver/material_job.hpp"
#include "builder/driver/packed_forms.hpp"
#include "builder/driver/progress.hpp"
#include "builder/driver/rule_job.hpp"
#include "builder/driver/scheduler.hpp"
#include "builder/driver/table_store.hpp"
#include "builder/system/work_profile.hpp"

namespace dtb {

namespace build_detail {

// The build as one process: its jobs (BuildPlan::jobs(): each material's
// plain tables, and with --rules its .rul) started by the scheduler of the
// distributed build with one rank (scheduler.hpp: once the jobs they wait
// for are done, the longest path of work first), several at once where
// their working sets fit the memory budget, each with every thread (a
// oneTBB task_group runs them).
//
// The budget (--memory, default a third of the machine) covers what the
// build holds: the working sets of the jobs in work
// (MaterialSolver::working_bytes, rule_working_bytes) and the solved values
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
class Builder {
public:
    static constexpr int N = V::board_size;

    Builder(const BuildOptions& o, BuildPlan& plan)
        : o_(o),
          plan_(plan),
          budget_(o.memory_bytes ? o.memory_bytes : default_memory_bytes()),
          executor_(o, budget_, true, [this](const std::string& line) { progress_->note(line); }),
          working_bytes_(plan.jobs().size()) {}

    BuildReport run() {
        const Clock::time_point start = Clock::now();
        // Before the working sets, which count the threads.
        std::optional<tbb::global_control> threads;
        if (o_.threads > 0)
            threads.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(o_.threads));
        report_.memory_budget_bytes = budget_;
        for (const std::string& note : plan_.notes()) fmt::print("{}\n", note);
        std::uint64_t to_build = 0;
        std::size_t building = 0;
        std::vector<Scheduler::Unit> units;
        for (std::size_t i = 0; i < working_bytes_.size(); ++i) {
            const BuildJob& job = plan_.jobs()[i];
            const bool plain = job.kind == BuildJob::Kind::plain;
            if (plain) {
                ++building;
                to_build += job.positions;
            }
            for (const Material& s : plan_.at(job.material).successors)
                kept_.add_use(s, plain ? TableKind::dtw : TableKind::rul);
            units.push_back({job.positions, job.waits_for, job.reads, !plain, working_bytes(static_cast<int>(i))});
        }
        // One rank, as many jobs at once as fit the budget, once the kept
        // values no job in work reads are packed if need be.
        scheduler_.emplace(std::move(units), std::vector<int>{std::numeric_limits<int>::max()}, 1, false,
                           Scheduler::Memory{{}, [this](int, std::uint64_t bytes) {
                                                 return kept_.make_room(bytes - working_);
                                             }});
        start_ = start;
        Progress progress(o_.output, building, to_build);
        progress_ = &progress;
        for (const PlannedMaterial& p : plan_.materials())
            if (!p.build) {
                progress.note(fmt::format("{:<10} already built (in the manifest, files intact)", p.material.name()));
                report_.materials.push_back({*plan_.manifest().find(p.material), true});
            }
        report_.rules = planned_rule_report(o_, plan_, [&](const std::string& line) { progress.note(line); });
        {
            const std::lock_guard lock(mutex_);
            start_ready();
        }
        group_.wait();
        if (!scheduler_->all_finished()) throw std::logic_error("the build stopped with jobs left that cannot start");
        keep_packed(plan_.variant_dir(), {});  // every job that read them is done
        const KeptTables::Counts kept = kept_.counts();
        report_.kept.packed = kept.packed;
        report_.kept.packed_from_bytes = kept.packed_from_bytes;
        report_.kept.packed_to_bytes = kept.packed_to_bytes;
        report_.kept.packing_seconds = kept.packing_seconds;
        report_.kept.unpacked = kept.unpacked;
        report_.kept.unpacking_seconds = kept.unpacking_seconds;
        report_.kept.let_go = kept.let_go;
        report_.peak_held_bytes = kept.peak_bytes;
        const TableStoreCounts read = executor_.store().counts();
        report_.kept.written = read.written;
        report_.kept.written_bytes = read.written_bytes;
        report_.kept.writing_seconds = read.writing_seconds;
        report_.kept.read_packed = read.read_packed;
        report_.kept.read_packed_seconds = read.read_packed_seconds;
        report_.kept.read_back = read.read_back.tables;
        report_.kept.read_back_seconds = read.read_back.seconds;
        report_.seconds = seconds_since(start);
        report_.processor_seconds = cpu_seconds();
        report_.positions_built = to_build;
        report_.peak_memory_bytes = peak_resident_bytes();
        return std::move(report_);
    }

private:
    const BuildJob& job(int i) const { return plan_.jobs()[i]; }

    // What job i reads: never let go to make room for it.
    KeptTables::Reads reads(int i) const {
        return {plan_.at(job(i).material).successors,
                job(i).kind == BuildJob::Kind::rule ? TableKind::rul : TableKind::dtw};
    }

    // Starts the jobs the scheduler gives: a second job at once only if its
    // working set fits once kept tables are packed (it is not worth letting
    // go of values that are then read again: it waits instead); with
    // nothing in work, the first in any case, once all that can give up
    // room has (called with the mutex held).
    void start_ready() {
        for (const Scheduler::Assignment& a : scheduler_->assign(seconds_since(start_))) {
            const int i = a.unit;
            const std::uint64_t bytes = working_bytes_[i];
            if (running_ == 0) {
                const KeptTables::Reads read = reads(i);
                kept_.make_room(bytes, &read);
            }
            ++running_;
            working_ += bytes;
            kept_.hold(bytes);
            group_.run([this, i] {
                if (job(i).kind == BuildJob::Kind::plain)
                    solve(i);
                else
                    solve_rules(i);
            });
        }
    }

    // The bytes job i holds while it runs; a plain job with one big pair a
    // thread at once, or fewer where that would not fit the budget (at
    // least one).
    std::uint64_t working_bytes(int i) {
        const Material& m = job(i).material;
        return job(i).kind == BuildJob::Kind::rule ? rule_working_bytes<V>(m, job(i).positions)
                                                   : executor_.working_set(m).bytes;
    }

    // Plain job i: its material solved and its .wld and .dtw written, and
    // kept (packed if need be) while a job left reads it.
    void solve(int i) {
        const Clock::time_point start = Clock::now();
        const Material& m = job(i).material;
        const PlannedMaterial& p = plan_.at(m);
        progress_->started(m);
        std::vector<std::string> waits_for;
        for (const Material& w : p.waits_for) waits_for.push_back(w.name());
        const work_profile::Scope profile(m.name(), p.positions, std::move(waits_for));
        std::vector<Material> unread;
        typename Executor<V>::Job run{kept_.uses(m, TableKind::dtw) > 0, false,
                                      {[&](int level, int levels) { progress_->level(m, level, levels); },
                                       [&](std::uint64_t n) { progress_->positions(n); }},
                                      [&] {
                                          unread = release(p, TableKind::dtw);
                                          work_profile::Scope::set_level(-1);
                                      }};
        ManifestEntry entry = executor_.solve_plain(m, run);
        entry.seconds = seconds_since(start);
        {
            const std::lock_guard lock(mutex_);
            plan_.manifest().put(entry);
            plan_.manifest().save(plan_.variant_dir() / Manifest::file_name);
            for (const Material& s : unread) remove_packed(plan_.variant_dir(), s, TableKind::dtw);
            report_.materials.push_back({entry, false});
            done(i);
        }
        progress_->finished(entry);
        return_free_memory();
    }

    // Rule job i: its material's rule values solved and its .rul written,
    // and kept while a rule job left reads them.
    void solve_rules(int i) {
        const Material& m = job(i).material;
        const PlannedMaterial& p = plan_.at(m);
        const std::string name = job(i).name();
        progress_->started(name);
        std::vector<Material> unread;
        typename Executor<V>::Job run{kept_.uses(m, TableKind::rul) > 0, false, {},
                                      [&] { unread = release(p, TableKind::rul); }};
        const RuleEntry entry = executor_.solve_rules(p, run);
        std::string line;
        {
            const std::lock_guard lock(mutex_);
            line = record_rule_table(plan_, m, job(i).positions, entry, *report_.rules);
            for (const Material& s : unread) remove_packed(plan_.variant_dir(), s, TableKind::rul);
            done(i);
        }
        progress_->finished(name, line);
        return_free_memory();
    }

    // Job i is done: its working set is let go and the jobs it held up that
    // are now ready start if they fit (called with the mutex held).
    void done(int i) {
        kept_.free(working_bytes_[i]);
        working_ -= working_bytes_[i];
        --running_;
        scheduler_->released(i, 0);
        scheduler_->finished(i, seconds_since(start_));
        start_ready();
    }

    // A job that read p's successors' values of `kind` has solved them:
    // those no job left reads are let go, and returned: the caller removes
    // their packed forms once its own job is in the manifest (a build killed
    // before that solves the job again, and reads them again).
    std::vector<Material> release(const PlannedMaterial& p, TableKind kind) {
        std::vector<Material> unread;
        for (const Material& s : p.successors)
            if (kept_.used(s, kind)) unread.push_back(s);
        return unread;
    }

    const BuildOptions& o_;
    BuildPlan& plan_;
    std::uint64_t budget_;
    Executor<V> executor_;  // runs the jobs; its store holds the values they read
    KeptTables& kept_ = executor_.kept();  // those kept for the jobs left, with the working sets of the jobs in work
    std::uint64_t working_ = 0;  // working sets of the jobs in work
    int running_ = 0;           // jobs in work
    std::vector<std::uint64_t> working_bytes_;  // each job's while it runs, as plan_.jobs()
    std::optional<Scheduler> scheduler_;
    Clock::time_point start_;
    std::mutex mutex_;
    tbb::task_group group_;
    Progress* progress_ = nullptr;
    BuildReport report_;
};

}  // namespace build_detail

template <class V>
BuildReport build_tables_of(const BuildOptions& options) {
    if (options.targets.empty()) throw std::invalid_argument("nothing to build: give --pieces N or --material M");
    const Clock::time_point start = Clock::now();
    if (!options.profile.empty()) work_profile::enable(options.profile);
    BuildPlan plan(options, V::board_size, options.rules ? rule_terms<V>(options) : RuleTerms{});
    BuildReport report = build_detail::Builder<V>(options, plan).run();
    if (!options.profile.empty())
        work_profile::write(seconds_since(start),
                            options.threads > 0 ? options.threads : tbb::this_task_arena::max_concurrency(),
                            options.options);
    return report;
}

}  // namespace dtb
