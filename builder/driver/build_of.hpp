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
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

#include <fmt/core.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "builder/driver/build_plan.hpp"
#include "builder/driver/material_job.hpp"
#include "builder/values/packed_codes.hpp"
#include "builder/driver/progress.hpp"
#include "builder/driver/rule_job.hpp"
#include "builder/values/table_loader.hpp"
#include "builder/system/work_profile.hpp"

namespace dtb {

namespace build_detail {

// The build as one process: its jobs (BuildPlan::jobs(): each material's
// plain tables, and with --rules its .rul) in dependency order, several at
// once where they do not depend on each other (a oneTBB task_group starts a
// job once the last job it waits for is done) and their working sets fit the
// memory budget, each with every thread.
//
// The budget (--memory, default a third of the machine) covers what the
// build holds: the working sets of the jobs in work
// (MaterialSolver::working_bytes, rule_working_bytes) and the solved values
// kept for the jobs still to run. A ready job waits while the others' use
// leaves no room for it; with nothing else in work it starts anyway, after
// the kept values no job in work is reading give up their room: plain
// tables packed first (a few percent of their size, unpacked at memory speed
// when needed again), then rule values dropped (read from their .rul files
// when needed), then packed tables spilled: their frames written to a
// scratch file in the tables' folder (.spill/, emptied at the start and the
// end of a build) and read from it when needed. Only where that file cannot
// be written are they dropped (read back from their table files, their
// capture positions solved again, or through the probe cache).
template <class V>
class Builder {
public:
    static constexpr int N = V::board_size;

    Builder(const BuildOptions& o, BuildPlan& plan) : o_(o), plan_(plan), jobs_(plan.jobs().size()) {}

    BuildReport run() {
        const Clock::time_point start = Clock::now();
        budget_ = o_.memory_bytes ? o_.memory_bytes : default_memory_bytes();
        report_.memory_budget_bytes = budget_;
        clear_spill();  // what a killed build left
        for (const std::string& note : plan_.notes()) fmt::print("{}\n", note);
        for (const PlannedMaterial& p : plan_.materials()) kept_[p.material].plan = &p;
        std::uint64_t to_build = 0;
        std::size_t building = 0;
        for (std::size_t i = 0; i < jobs_.size(); ++i) {
            const BuildJob& job = plan_.jobs()[i];
            const bool plain = job.kind == BuildJob::Kind::plain;
            if (plain) {
                ++building;
                to_build += job.positions;
            }
            for (const Material& s : plan_.at(job.material).successors) ++(plain ? kept_[s].uses : kept_[s].rule_uses);
            for (int w : job.waits_for) jobs_[w].dependents.push_back(static_cast<int>(i));
            jobs_[i].pending = static_cast<int>(job.waits_for.size());
        }
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
                for (std::size_t i = 0; i < jobs_.size(); ++i)
                    if (jobs_[i].pending == 0) waiting_.push_back(static_cast<int>(i));
                start_ready();
            }
            group_.wait();
        }
        kept_.clear();  // spill files go with their tables
        clear_spill();
        report_.seconds = seconds_since(start);
        report_.processor_seconds = cpu_seconds();
        report_.positions_built = to_build;
        report_.peak_memory_bytes = peak_resident_bytes();
        return std::move(report_);
    }

private:
    // A material's values kept for the jobs still to run that read them.
    struct Kept {
        const PlannedMaterial* plan = nullptr;
        int uses = 0;  // plain jobs still to run that read its plain values
        std::shared_ptr<const SolvedValues> values;  // in memory while some use is left and there is room
        std::unique_ptr<PackedCodes> packed;         // once it gave up its room, while some use is left; maybe spilled
        bool loading = false;     // being unpacked, read from its spill file or read back for a job; others wait
        bool load_tried = false;  // there was no room to: read through the probe cache
        int rule_uses = 0;  // rule jobs still to run that read its rule values
        std::shared_ptr<const RuleValues> rule_values;  // in memory while some use is left and there is room
    };
    struct JobState {
        int pending = 0;              // jobs it waits for, not yet done
        std::vector<int> dependents;  // the jobs waiting for it
        std::uint64_t pairs_at_once = 1;  // a plain job: big pairs it solves at once (working_bytes())
        std::uint64_t working_bytes = 0;  // while it runs; 0: not yet worked out
    };

    const BuildJob& job(int i) const { return plan_.jobs()[i]; }

    // Starts the waiting jobs whose working sets fit, in the order they
    // became ready; with nothing in work, the first in any case (called with
    // the mutex held).
    void start_ready() {
        for (auto it = waiting_.begin(); it != waiting_.end();) {
            const std::uint64_t bytes = working_bytes(*it);
            // A second job at once is not worth reading tables back from
            // their files: it waits instead.
            if (running_ > 0 && !make_room(bytes, -1)) {
                ++it;
                continue;
            }
            if (running_ == 0) make_room(bytes, *it);  // as much as can be had
            ++running_;
            hold(bytes);
            group_.run([this, i = *it] {
                if (job(i).kind == BuildJob::Kind::plain)
                    solve(i);
                else
                    solve_rules(i);
            });
            it = waiting_.erase(it);
        }
    }

    // The bytes job i holds while it runs; a plain job with one big pair a
    // thread at once, or fewer where that would not fit the budget (at
    // least one). Worked out once (called with the mutex held).
    std::uint64_t working_bytes(int i) {
        JobState& state = jobs_[i];
        if (state.working_bytes == 0) {
            const Material& m = job(i).material;
            if (job(i).kind == BuildJob::Kind::rule) {
                state.working_bytes = rule_working_bytes<V>(m, job(i).positions);
            } else {
                std::uint64_t pairs = solver_threads();
                while (pairs > 1 && solver_working_bytes<V>(m, pairs, o_.solver) > budget_) pairs /= 2;
                state.pairs_at_once = pairs;
                state.working_bytes = solver_working_bytes<V>(m, pairs, o_.solver);
            }
        }
        return state.working_bytes;
    }

    // Whether `bytes` more fit the budget, once the kept values no job in
    // work reads give up room if need be, those with the fewest uses left
    // first: plain tables packed first, then, for job `dropping_for` (-1:
    // none), rule values dropped and packed tables spilled, those it reads
    // excepted (dropped ones are read from their files, or through the probe
    // cache, when needed again). Called with the mutex held.
    bool make_room(std::uint64_t bytes, int dropping_for) {
        const auto fits = [&] { return memory_ + bytes <= budget_; };
        const auto fewest_uses_first = [](const Kept* a, const Kept* b) { return a->uses < b->uses; };
        if (fits()) return true;
        std::vector<Kept*> unused;
        for (auto& [m, kept] : kept_)
            if (kept.values && kept.values.use_count() == 1 && !kept.loading) unused.push_back(&kept);
        std::sort(unused.begin(), unused.end(), fewest_uses_first);
        for (Kept* kept : unused) {
            if (fits()) return true;
            if (!kept->packed) {
                kept->packed = pack(*kept->values);
                hold(kept->packed->bytes());
            }
            memory_ -= kept->values->bytes();
            kept->values.reset();
            kept->load_tried = false;  // it may be unpacked when there is room again
        }
        if (dropping_for < 0) return fits();
        const std::vector<Material>& reads = plan_.at(job(dropping_for).material).successors;
        const bool reads_rules = job(dropping_for).kind == BuildJob::Kind::rule;
        const auto read = [&](const Material& m, bool rules) {
            return rules == reads_rules && std::find(reads.begin(), reads.end(), m) != reads.end();
        };
        std::vector<Kept*> rules;
        for (auto& [m, kept] : kept_)
            if (kept.rule_values && kept.rule_values.use_count() == 1 && !read(m, true)) rules.push_back(&kept);
        std::sort(rules.begin(), rules.end(), [](const Kept* a, const Kept* b) { return a->rule_uses < b->rule_uses; });
        for (Kept* kept : rules) {
            if (fits()) return true;
            memory_ -= kept->rule_values->bytes();
            kept->rule_values.reset();
        }
        std::vector<Kept*> packed;
        for (auto& [m, kept] : kept_)
            if (kept.packed && !kept.packed->spilled() && !kept.values && !kept.loading && !read(m, false))
                packed.push_back(&kept);
        // Spilled only if that makes room: each is read from disk at a cost.
        std::uint64_t droppable = 0;
        for (const Kept* kept : packed) droppable += kept->packed->bytes();
        if (memory_ - droppable + bytes > budget_) return false;
        std::sort(packed.begin(), packed.end(), fewest_uses_first);
        for (Kept* kept : packed) {
            if (fits()) return true;
            memory_ -= kept->packed->bytes();
            if (spill(*kept->packed))
                hold(kept->packed->bytes());  // the frames' list
            else
                kept->packed.reset();
            kept->load_tried = false;  // it may be read when there is room again
        }
        return fits();
    }
    // Writes a packed table's frames to its spill file (called with the
    // mutex held). On failure (a full disk) says so and returns false: the
    // caller drops the table, to be read back from its file if needed again.
    bool spill(PackedCodes& packed) {
        const Clock::time_point start = Clock::now();
        const std::filesystem::path file = spill_directory() / (packed.material().name() + ".codes.zst");
        try {
            if (std::getenv("DTB_TEST_SPILL_FAILS"))
                throw std::runtime_error(file.string() + ": not written (DTB_TEST_SPILL_FAILS is set)");
            std::filesystem::create_directories(file.parent_path());
            packed.spill(file);
        } catch (const std::exception& e) {
            if (!spill_failed_)  // said once: a full disk would say it for every table
                progress_->note(fmt::format("could not spill a kept table to disk ({}); kept tables that give up "
                                            "their room are dropped instead and read back from their table files",
                                            e.what()));
            spill_failed_ = true;
            return false;
        }
        report_.kept.spilling_seconds += seconds_since(start);
        ++report_.kept.spilled;
        report_.kept.spilled_bytes += packed.frame_bytes();
        return true;
    }
    std::filesystem::path spill_directory() const { return scratch_directory(plan_.variant_dir()); }
    void clear_spill() {
        std::error_code ignored;  // scratch files: a folder that cannot be removed costs only disk space
        std::filesystem::remove_all(spill_directory(), ignored);
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

    // The solved values of successor s of job `reader` in memory, or null: read
    // it through the probe cache. A packed table is unpacked, from its spill
    // file if spilled; one dropped (or whose spill file fails) is read back
    // from its table file, its capture positions solved again from the
    // tables they lead to.
    std::shared_ptr<const SolvedValues> acquire(const Material& s, int reader) {
        std::unique_lock lock(mutex_);
        Kept& node = kept_[s];
        loaded_.wait(lock, [&] { return !node.loading; });
        if (node.values || node.load_tried) return node.values;
        node.load_tried = true;
        node.loading = true;  // make_room leaves it be
        const std::uint64_t positions = node.plan->positions;
        const bool room = make_room(node.packed ? 2 * positions : SolvedValues::bytes_for(positions), reader);
        const auto done = [&](std::shared_ptr<const SolvedValues> values) {
            if (!lock.owns_lock()) lock.lock();
            node.loading = false;
            node.values = std::move(values);
            loaded_.notify_all();
            return node.values;
        };
        if (!room) return done(nullptr);
        hold(2 * positions);  // codes only, once the capture marks are dropped
        try {
            if (node.packed) {
                const PackedCodes& packed = *node.packed;
                lock.unlock();
                const Clock::time_point start = Clock::now();
                std::shared_ptr<const SolvedValues> values;
                try {
                    values = std::make_shared<const SolvedValues>(packed.unpack());
                } catch (const std::runtime_error& e) {
                    if (!packed.spilled()) throw;
                    progress_->note(fmt::format("{} (a scratch file of the build); read back from the table file "
                                                "instead",
                                                e.what()));
                }
                const double seconds = seconds_since(start);
                lock.lock();
                if (values) {
                    if (packed.spilled()) {
                        ++report_.kept.unspilled;
                        report_.kept.unspilling_seconds += seconds;
                    } else {
                        ++report_.kept.unpacked;
                        report_.kept.unpacking_seconds += seconds;
                    }
                    return done(std::move(values));
                }
                memory_ -= node.packed->bytes();  // its spill file failed: no use to try it again
                node.packed.reset();
            }
            // Its capture positions answered from the tables it leads to that are in memory, or from their files.
            std::vector<std::shared_ptr<const SolvedValues>> known;
            for (const Material& t : node.plan->successors)
                if (kept_[t].values) known.push_back(kept_[t].values);
            lock.unlock();
            const Clock::time_point start = Clock::now();
            const TableFile file = open_dtw_table<V>(plan_.variant_dir(), s);
            const Prober<V> prober(o_.dir);
            SolvedValues loaded =
                load_solved_values<V>(file, Successors<V>(known, &prober), 0, file.header().block_count());
            loaded.drop_capture_marks();
            const double seconds = seconds_since(start);
            progress_->note(fmt::format("{:<10} read back from its file, capture positions solved again: {:.1f} s",
                                        s.name(), seconds));
            lock.lock();
            ++report_.kept.read_back;
            report_.kept.read_back_seconds += seconds;
            return done(std::make_shared<const SolvedValues>(std::move(loaded)));
        } catch (...) {
            if (!lock.owns_lock()) lock.lock();
            memory_ -= 2 * positions;
            node.loading = false;
            loaded_.notify_all();
            throw;
        }
    }

    void release(const Material& s) {
        const std::lock_guard lock(mutex_);
        Kept& kept = kept_[s];
        if (--kept.uses > 0) return;
        if (kept.values) memory_ -= kept.values->bytes();
        if (kept.packed) memory_ -= kept.packed->bytes();
        kept.values.reset();
        kept.packed.reset();
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
        for (const Material& s : p.successors) release(s);

        work_profile::Scope::set_level(-1);
        ManifestEntry entry = write_solved(o_, N, plan_.variant_dir(), solved);
        maybe_kill_after_write(m);
        entry.seconds = seconds_since(start);
        solved.drop_capture_marks();  // kept only for lookups, which read the codes
        {
            const std::lock_guard lock(mutex_);
            plan_.manifest().put(entry);
            plan_.manifest().save(plan_.variant_dir() / Manifest::file_name);
            report_.materials.push_back({entry, false});
            // Kept, or let go before the next jobs take its room.
            Kept& kept = kept_[m];
            if (kept.uses > 0)
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
        {
            const std::lock_guard lock(mutex_);
            for (const Material& s : p.successors)
                if (kept_[s].rule_values) held.push_back(kept_[s].rule_values);
        }
        SolvedRules solved = solve_rule_job<V>(o_, plan_.variant_dir(), p, held);
        held.clear();
        std::string line;
        {
            const std::lock_guard lock(mutex_);
            for (const Material& s : p.successors) {
                Kept& kept = kept_[s];
                if (--kept.rule_uses > 0 || !kept.rule_values) continue;
                memory_ -= kept.rule_values->bytes();
                kept.rule_values.reset();
            }
            line = record_rule_table(plan_, m, job(i).positions, solved.entry, *report_.rules);
            // Kept as they are if they fit, once kept tables are packed, or let go.
            Kept& kept = kept_[m];
            if (kept.rule_uses > 0 && make_room(solved.values->bytes(), -1)) {
                hold(solved.values->bytes());
                kept.rule_values = std::move(solved.values);
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
        --running_;
        for (int d : jobs_[i].dependents)
            if (--jobs_[d].pending == 0) waiting_.push_back(d);
        start_ready();
    }

    // Keeps a table just solved for the jobs that read it: as it is if it
    // fits, else packed if that fits once other kept tables give up room
    // (called with the mutex held).
    void keep(Kept& kept, std::shared_ptr<const SolvedValues> values) {
        if (memory_ + values->bytes() <= budget_) {
            hold(values->bytes());
            kept.values = std::move(values);
            return;
        }
        std::unique_ptr<PackedCodes> packed = pack(*values);
        if (!make_room(packed->bytes(), -1) && !spill(*packed)) return;
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
    int running_ = 0;           // jobs in work
    std::vector<JobState> jobs_;    // as plan_.jobs()
    std::vector<int> waiting_;      // ready to start, waiting for room
    std::map<Material, Kept> kept_;  // every material of the plan
    std::mutex mutex_;
    bool spill_failed_ = false;  // a spill failed: said once
    std::condition_variable loaded_;  // a kept table unpacked or read back (Kept::loading)
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
