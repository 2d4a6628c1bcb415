// The one-process build of one variant: Builder<V> and build_tables_of<V>
// (builder/driver/build.hpp). Included by build.cpp, which builds the five
// variants, and by test_boards.cpp, which instantiates it for the 6x6 test
// boards in a library only the tests link, so that dtb compiles neither the
// boards' driver nor their solver.
#pragma once

#include "builder/driver/build.hpp"

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include <fmt/core.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "builder/driver/build_plan.hpp"
#include "builder/driver/material_job.hpp"
#include "builder/driver/packed_forms.hpp"
#include "builder/values/packed_codes.hpp"
#include "builder/driver/progress.hpp"
#include "builder/driver/rule_job.hpp"
#include "builder/driver/scheduler.hpp"
#include "builder/values/table_loader.hpp"
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
// kept for the jobs still to run. Values that later jobs read are also
// written packed beside the tables as they are solved (packed_forms.hpp).
// A ready job waits while the others' use leaves no room for it; with
// nothing else in work it starts anyway, after the kept values no job in
// work is reading give up their room: plain tables packed in memory first
// (a few percent of their size, unpacked at memory speed when needed
// again), then rule values and packed tables let go, to be read from their
// packed forms when needed. Only a table whose packed form could not be
// written (a full disk) is read back from its table file (its capture
// positions solved again), and rule values through their .rul files; where
// there is no room at all, through the probe cache.
template <class V>
class Builder {
public:
    static constexpr int N = V::board_size;

    Builder(const BuildOptions& o, BuildPlan& plan) : o_(o), plan_(plan), jobs_(plan.jobs().size()) {}

    BuildReport run() {
        const Clock::time_point start = Clock::now();
        budget_ = o_.memory_bytes ? o_.memory_bytes : default_memory_bytes();
        report_.memory_budget_bytes = budget_;
        for (const std::string& note : plan_.notes()) fmt::print("{}\n", note);
        for (const PlannedMaterial& p : plan_.materials()) kept_[p.material].plan = &p;
        std::uint64_t to_build = 0;
        std::size_t building = 0;
        std::vector<Scheduler::Unit> units;
        for (std::size_t i = 0; i < jobs_.size(); ++i) {
            const BuildJob& job = plan_.jobs()[i];
            const bool plain = job.kind == BuildJob::Kind::plain;
            if (plain) {
                ++building;
                to_build += job.positions;
            }
            for (const Material& s : plan_.at(job.material).successors) ++(plain ? kept_[s].plain.uses : kept_[s].rules.uses);
            units.push_back({job.positions, job.waits_for, job.reads, !plain, working_bytes(static_cast<int>(i))});
        }
        // One rank, as many jobs at once as fit the budget, once the kept
        // values no job in work reads are packed if need be (make_room).
        scheduler_.emplace(std::move(units), std::vector<int>{std::numeric_limits<int>::max()}, 1, false,
                           Scheduler::Memory{{}, [this](int, std::uint64_t bytes) {
                                                 return make_room(bytes - working_, -1);
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
            std::optional<tbb::global_control> threads;
            if (o_.threads > 0)
                threads.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(o_.threads));
            {
                const std::lock_guard lock(mutex_);
                start_ready();
            }
            group_.wait();
        }
        if (!scheduler_->all_finished()) throw std::logic_error("the build stopped with jobs left that cannot start");
        kept_.clear();
        keep_packed(plan_.variant_dir(), {});  // every job that read them is done
        report_.seconds = seconds_since(start);
        report_.processor_seconds = cpu_seconds();
        report_.positions_built = to_build;
        report_.peak_memory_bytes = peak_resident_bytes();
        return std::move(report_);
    }

private:
    // A material's values of one kind (plain or rule) kept for the jobs
    // still to run that read them.
    template <class Values>
    struct Slot {
        int uses = 0;  // jobs still to run that read them
        std::shared_ptr<const Values> values;  // in memory while some use is left and there is room
        bool loading = false;     // being read for a job; others wait
        bool load_tried = false;  // there was no room to: read through the probe cache
    };
    struct Kept {
        const PlannedMaterial* plan = nullptr;
        Slot<SolvedValues> plain;
        std::unique_ptr<PackedCodes> packed;  // the plain values, once they gave up their room
        bool on_disk = false;  // the plain values' packed form is written (by this run)
        Slot<RuleValues> rules;
    };
    struct JobState {
        std::uint64_t pairs_at_once = 1;  // a plain job: big pairs it solves at once (working_bytes())
        std::uint64_t working_bytes = 0;  // while it runs
    };

    const BuildJob& job(int i) const { return plan_.jobs()[i]; }

    // Starts the jobs the scheduler gives: a second job at once only if its
    // working set fits once kept tables are packed (it is not worth letting
    // go of values that are then read again: it waits instead); with
    // nothing in work, the first in any case, once all that can give up
    // room has (called with the mutex held).
    void start_ready() {
        for (const Scheduler::Assignment& a : scheduler_->assign(seconds_since(start_))) {
            const int i = a.unit;
            const std::uint64_t bytes = jobs_[i].working_bytes;
            if (running_ == 0) make_room(bytes, i);
            ++running_;
            working_ += bytes;
            hold(bytes);
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
        JobState& state = jobs_[i];
        const Material& m = job(i).material;
        if (job(i).kind == BuildJob::Kind::rule) {
            state.working_bytes = rule_working_bytes<V>(m, job(i).positions);
        } else {
            const WorkingSet w = plain_working_set<V>(m, solver_threads(), budget_, o_.solver);
            state.pairs_at_once = w.pairs_at_once;
            state.working_bytes = w.bytes;
        }
        return state.working_bytes;
    }

    // Whether `bytes` more fit the budget, once the kept values no job in
    // work reads give up room if need be, those with the fewest uses left
    // first: plain tables packed in memory first, then, for job
    // `dropping_for` (-1: none), rule values and packed tables let go, those
    // it reads excepted (read from their packed forms when needed again, or
    // where there is none, from their table files or through the probe
    // cache). Called with the mutex held.
    bool make_room(std::uint64_t bytes, int dropping_for) {
        const auto fits = [&] { return memory_ + bytes <= budget_; };
        const auto fewest_uses_first = [](const Kept* a, const Kept* b) { return a->plain.uses < b->plain.uses; };
        if (fits()) return true;
        std::vector<Kept*> unused;
        for (auto& [m, kept] : kept_)
            if (kept.plain.values && kept.plain.values.use_count() == 1 && !kept.plain.loading) unused.push_back(&kept);
        std::sort(unused.begin(), unused.end(), fewest_uses_first);
        for (Kept* kept : unused) {
            if (fits()) return true;
            if (!kept->packed) {
                kept->packed = pack(*kept->plain.values);
                hold(kept->packed->bytes());
            }
            memory_ -= kept->plain.values->bytes();
            kept->plain.values.reset();
            kept->plain.load_tried = false;  // it may be unpacked when there is room again
        }
        if (dropping_for < 0) return fits();
        const std::vector<Material>& reads = plan_.at(job(dropping_for).material).successors;
        const bool reads_rules = job(dropping_for).kind == BuildJob::Kind::rule;
        const auto read = [&](const Material& m, bool rules) {
            return rules == reads_rules && std::find(reads.begin(), reads.end(), m) != reads.end();
        };
        std::vector<Kept*> rules;
        for (auto& [m, kept] : kept_)
            if (kept.rules.values && kept.rules.values.use_count() == 1 && !read(m, true)) rules.push_back(&kept);
        std::sort(rules.begin(), rules.end(), [](const Kept* a, const Kept* b) { return a->rules.uses < b->rules.uses; });
        for (Kept* kept : rules) {
            if (fits()) return true;
            memory_ -= kept->rules.values->bytes();
            kept->rules.values.reset();
            kept->rules.load_tried = false;
        }
        std::vector<Kept*> packed;
        for (auto& [m, kept] : kept_)
            if (kept.packed && !kept.plain.values && !kept.plain.loading && !read(m, false)) packed.push_back(&kept);
        std::uint64_t droppable = 0;  // let go only if that makes room
        for (const Kept* kept : packed) droppable += kept->packed->bytes();
        if (memory_ - droppable + bytes > budget_) return false;
        // Those on disk first: the others are read back from their table files.
        std::sort(packed.begin(), packed.end(), [](const Kept* a, const Kept* b) {
            return a->on_disk != b->on_disk ? a->on_disk : a->plain.uses < b->plain.uses;
        });
        for (Kept* kept : packed) {
            if (fits()) return true;
            memory_ -= kept->packed->bytes();
            kept->packed.reset();
            kept->plain.load_tried = false;  // it may be read when there is room again
            ++report_.kept.let_go;
        }
        return fits();
    }

    // A kept table packed (called with the mutex held: its threads take no
    // other task meanwhile, which could wait for the mutex).
    std::unique_ptr<PackedCodes> pack(const SolvedValues& values) {
        const Clock::time_point start = Clock::now();
        auto packed = tbb::this_task_arena::isolate([&] { return std::make_unique<PackedCodes>(values); });
        report_.kept.packing_seconds += seconds_since(start);
        ++report_.kept.packed;
        report_.kept.packed_from_bytes += packed->unpacked_bytes();
        report_.kept.packed_to_bytes += packed->bytes();
        return packed;
    }

    // Writes the packed form of values a later job reads (`write` does it,
    // the job's own thread): a failure (a full disk) is said once, and the
    // values are read back from their table file when needed again.
    template <class Write>
    bool write_packed(const std::string& what, Write&& write) {
        const Clock::time_point start = Clock::now();
        try {
            const std::uint64_t bytes = write();
            const std::lock_guard lock(mutex_);
            ++report_.kept.written;
            report_.kept.written_bytes += bytes;
            report_.kept.writing_seconds += seconds_since(start);
            return true;
        } catch (const std::exception& e) {
            const std::lock_guard lock(mutex_);
            if (!packed_failed_)  // said once: a full disk would say it for every table
                progress_->note(fmt::format("could not write the packed form of {} beside the tables ({}); values "
                                            "that give up their room are read back from their table files instead",
                                            what, e.what()));
            packed_failed_ = true;
            return false;
        }
    }

    // The solved values of successor s of job `reader` in memory, or null: read
    // it through the probe cache. A packed table is unpacked; one let go is
    // read from its packed form, or where there is none (it failed, or a
    // build before this one did not leave it), read back from its table
    // file, its capture positions solved again from the tables they lead to.
    std::shared_ptr<const SolvedValues> acquire(const Material& s, int reader) {
        std::unique_lock lock(mutex_);
        Kept& node = kept_[s];
        loaded_.wait(lock, [&] { return !node.plain.loading; });
        if (node.plain.values || node.plain.load_tried) return node.plain.values;
        node.plain.load_tried = true;
        node.plain.loading = true;  // make_room leaves it be
        const std::uint64_t positions = node.plan->positions;
        const bool room = make_room(node.packed ? 2 * positions : SolvedValues::bytes_for(positions), reader);
        const auto done = [&](std::shared_ptr<const SolvedValues> values) {
            if (!lock.owns_lock()) lock.lock();
            node.plain.loading = false;
            node.plain.values = std::move(values);
            loaded_.notify_all();
            return node.plain.values;
        };
        if (!room) return done(nullptr);
        hold(2 * positions);  // codes only, once the capture marks are dropped
        try {
            if (node.packed) {
                const PackedCodes& packed = *node.packed;
                lock.unlock();
                const Clock::time_point start = Clock::now();
                auto values = std::make_shared<const SolvedValues>(packed.unpack());
                const double seconds = seconds_since(start);
                lock.lock();
                ++report_.kept.unpacked;
                report_.kept.unpacking_seconds += seconds;
                return done(std::move(values));
            }
            // Its capture positions answered from the tables it leads to that are in memory, or from their files.
            std::vector<std::shared_ptr<const SolvedValues>> known;
            for (const Material& t : node.plan->successors)
                if (kept_[t].plain.values) known.push_back(kept_[t].plain.values);
            lock.unlock();
            const Clock::time_point start = Clock::now();
            std::optional<SolvedValues> loaded = read_packed(s, TableKind::dtw, [&] {
                return read_packed_table<V>(plan_.variant_dir(), s);
            });
            const bool packed = loaded.has_value();
            if (!packed) {
                const TableFile file = open_dtw_table<V>(plan_.variant_dir(), s);
                const Prober<V> prober(o_.dir);
                loaded = load_solved_values<V>(file, Successors<V>(known, &prober), 0, file.header().block_count());
            }
            loaded->drop_capture_marks();
            const double seconds = seconds_since(start);
            if (!packed)
                progress_->note(fmt::format(
                    "{:<10} read back from its file, capture positions solved again: {:.1f} s", s.name(), seconds));
            lock.lock();
            ++(packed ? report_.kept.read_packed : report_.kept.read_back);
            (packed ? report_.kept.read_packed_seconds : report_.kept.read_back_seconds) += seconds;
            return done(std::make_shared<const SolvedValues>(std::move(*loaded)));
        } catch (...) {
            if (!lock.owns_lock()) lock.lock();
            memory_ -= 2 * positions;
            node.plain.loading = false;
            loaded_.notify_all();
            throw;
        }
    }

    // s's values of `kind` from its packed form (`read` reads it), or none
    // if it has none (it was not written, or is no longer there); one that
    // fails is said, and none returned. Called without the mutex.
    template <class Read>
    auto read_packed(const Material& s, TableKind kind, Read&& read) -> std::optional<decltype(read())> {
        return read_packed_or_none(plan_.variant_dir(), s, kind, read, [&](const std::exception& e) {
            progress_->note(fmt::format("{}; read from its table file instead", e.what()));
        });
    }

    // The rule values of successor s of rule job `reader` in memory, or
    // null: read through its .rul file. Values let go are read from their
    // packed form where there is one and room for them.
    std::shared_ptr<const RuleValues> acquire_rules(const Material& s, int reader) {
        std::unique_lock lock(mutex_);
        Slot<RuleValues>& slot = kept_[s].rules;
        loaded_.wait(lock, [&] { return !slot.loading; });
        if (slot.values || slot.load_tried) return slot.values;
        slot.load_tried = true;
        const std::uint64_t positions = kept_[s].plan->positions;
        const std::uint64_t bytes = governing_count<typename V::draw_rules>(s).has_road() ? 2 * positions : positions;
        if (!has_packed(plan_.variant_dir(), s, TableKind::rul) ||
            !make_room(bytes, reader))
            return nullptr;
        slot.loading = true;
        hold(bytes);
        lock.unlock();
        const Clock::time_point start = Clock::now();
        std::optional<std::shared_ptr<const RuleValues>> values =
            read_packed(s, TableKind::rul, [&] { return read_packed_rules<V>(plan_.variant_dir(), s); });
        const double seconds = seconds_since(start);
        lock.lock();
        slot.loading = false;
        loaded_.notify_all();
        if (!values) {
            memory_ -= bytes;
            return nullptr;
        }
        ++report_.kept.read_packed;
        report_.kept.read_packed_seconds += seconds;
        slot.values = std::move(*values);
        return slot.values;
    }

    // A job that read s has solved its values: once no job left reads s's
    // values of that kind, they are let go, and true returned: the caller
    // removes their packed form once its own job is in the manifest (a build
    // killed before that solves the job again, and reads them again). Called
    // with the mutex held.
    template <class Values>
    bool release(const Material& s, Slot<Values>& slot) {
        if (--slot.uses > 0) return false;
        if (slot.values) memory_ -= slot.values->bytes();
        slot.values.reset();
        if (std::is_same_v<Values, SolvedValues> && kept_[s].packed) {
            memory_ -= kept_[s].packed->bytes();
            kept_[s].packed.reset();
        }
        return true;
    }

    // Plain job i: its material solved and its .wld and .dtw written.
    void solve(int i) {
        const Clock::time_point start = Clock::now();
        const Material& m = job(i).material;
        const PlannedMaterial& p = plan_.at(m);
        progress_->started(m);
        std::vector<std::string> waits_for;
        for (const Material& w : p.waits_for) waits_for.push_back(w.name());
        const work_profile::Scope profile(m.name(), p.positions, std::move(waits_for));
        SolveProgress hooks{[&](int level, int levels) { progress_->level(m, level, levels); },
                            [&](std::uint64_t n) { progress_->positions(n); }};
        SolvedValues solved;
        {
            const SuccessorTables<V> tables(p.successors, o_.dir, [&](const Material& s) { return acquire(s, i); });
            solved = solve_material<V>(m, tables.get(), hooks, jobs_[i].pairs_at_once, o_.solver);
        }  // the tables it read let go before they are released
        std::vector<Material> unread;  // successors no job left reads
        {
            const std::lock_guard lock(mutex_);
            for (const Material& s : p.successors)
                if (release(s, kept_[s].plain)) unread.push_back(s);
        }

        work_profile::Scope::set_level(-1);
        ManifestEntry entry = write_solved(o_, N, plan_.variant_dir(), solved);
        maybe_kill_after_write(m);
        Kept& kept = kept_[m];  // the map's nodes stay where they are
        bool read_later = false;
        {
            const std::lock_guard lock(mutex_);
            read_later = kept.plain.uses > 0;
        }
        const bool on_disk = read_later && write_packed(m.name(), [&] {
            write_packed_table(plan_.variant_dir(), solved, entry.dtw_checksum);
            return std::filesystem::file_size(packed_file(plan_.variant_dir(), m, TableKind::dtw));
        });
        entry.seconds = seconds_since(start);
        solved.drop_capture_marks();  // kept only for lookups, which read the codes
        {
            const std::lock_guard lock(mutex_);
            plan_.manifest().put(entry);
            plan_.manifest().save(plan_.variant_dir() / Manifest::file_name);
            for (const Material& s : unread) remove_packed(plan_.variant_dir(), s, TableKind::dtw);
            report_.materials.push_back({entry, false});
            kept.on_disk = on_disk;
            // Kept, or let go before the next jobs take its room.
            if (read_later)
                keep(kept, std::make_shared<const SolvedValues>(std::move(solved)));
            else
                solved = SolvedValues();
            done(i);
        }
        progress_->finished(entry);
        return_free_memory();
    }

    // Rule job i: its material's rule values solved and its .rul written,
    // reading its successors' rule values where they are kept.
    void solve_rules(int i) {
        const Material& m = job(i).material;
        const PlannedMaterial& p = plan_.at(m);
        const std::string name = job(i).name();
        progress_->started(name);
        std::vector<std::shared_ptr<const RuleValues>> held;
        for (const Material& s : p.successors)
            if (auto values = acquire_rules(s, i)) held.push_back(std::move(values));
        SolvedRules solved = solve_rule_job<V>(o_, plan_.variant_dir(), p, held);
        held.clear();
        Kept& kept = kept_[m];
        bool read_later = false;
        std::string line;
        std::vector<Material> unread;  // successors no job left reads
        {
            const std::lock_guard lock(mutex_);
            for (const Material& s : p.successors)
                if (release(s, kept_[s].rules)) unread.push_back(s);
            read_later = kept.rules.uses > 0;
        }
        if (read_later)
            write_packed(name, [&] {
                write_packed_rules(plan_.variant_dir(), *solved.values, solved.entry.checksum);
                return std::filesystem::file_size(packed_file(plan_.variant_dir(), m, TableKind::rul));
            });
        {
            const std::lock_guard lock(mutex_);
            line = record_rule_table(plan_, m, job(i).positions, solved.entry, *report_.rules);
            for (const Material& s : unread) remove_packed(plan_.variant_dir(), s, TableKind::rul);
            // Kept as they are if they fit, once kept tables are packed, or let go.
            if (read_later && make_room(solved.values->bytes(), -1)) {
                hold(solved.values->bytes());
                kept.rules.values = std::move(solved.values);
            }
            solved.values.reset();
            done(i);
        }
        progress_->finished(name, line);
        return_free_memory();
    }

    // Job i is done: its working set is let go and the jobs it held up that
    // are now ready start if they fit (called with the mutex held).
    void done(int i) {
        memory_ -= jobs_[i].working_bytes;
        working_ -= jobs_[i].working_bytes;
        --running_;
        scheduler_->released(i, 0);
        scheduler_->finished(i, seconds_since(start_));
        start_ready();
    }

    // Keeps a table just solved for the jobs that read it: as it is if it
    // fits, else packed if that fits once other kept tables give up room
    // (called with the mutex held); if not, it is read from its packed form.
    void keep(Kept& kept, std::shared_ptr<const SolvedValues> values) {
        if (memory_ + values->bytes() <= budget_) {
            hold(values->bytes());
            kept.plain.values = std::move(values);
            return;
        }
        std::unique_ptr<PackedCodes> packed = pack(*values);
        if (!make_room(packed->bytes(), -1)) return;
        hold(packed->bytes());
        kept.packed = std::move(packed);
    }

    // Counts `bytes` more held (called with the mutex held).
    void hold(std::uint64_t bytes) {
        memory_ += bytes;
        report_.peak_held_bytes = std::max(report_.peak_held_bytes, memory_);
    }

    const BuildOptions& o_;
    BuildPlan& plan_;
    std::uint64_t budget_ = 0;
    std::uint64_t memory_ = 0;  // values kept in memory and working sets of the jobs in work
    std::uint64_t working_ = 0;  // working sets of the jobs in work
    int running_ = 0;           // jobs in work
    std::vector<JobState> jobs_;    // as plan_.jobs()
    std::optional<Scheduler> scheduler_;
    Clock::time_point start_;
    std::map<Material, Kept> kept_;  // every material of the plan
    std::mutex mutex_;
    bool packed_failed_ = false;  // a packed form could not be written: said once
    std::condition_variable loaded_;  // values unpacked or read (Slot::loading)
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
