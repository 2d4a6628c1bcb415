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
#include "builder/driver/rule_build.hpp"
#include "builder/values/table_loader.hpp"
#include "builder/system/work_profile.hpp"

namespace dtb {

namespace build_detail {

// The build as one process: materials in dependency order, each solved with
// every thread, several at once where they do not depend on each other (a
// oneTBB task_group starts a material once the last table it waits for is
// written) and their working sets fit the memory budget.
//
// The budget (--memory, default a third of the machine) covers what the
// build holds: the working sets of the materials in work
// (MaterialSolver::working_bytes) and the solved tables kept for the
// materials still to build. A ready material waits while the others' use
// leaves no room for it; with nothing else in work it starts anyway, after
// the kept tables no material in work is reading give up their room: packed
// first (a few percent of their size, unpacked at memory speed when needed
// again), then spilled: the packed frames written to a scratch file in the
// tables' folder (.spill/, emptied at the start and the end of a build) and
// read from it when needed. Only where that file cannot be written are they
// dropped (read back from their table files, their capture positions solved
// again, or through the probe cache).
template <class V>
class Builder {
public:
    static constexpr int N = V::board_size;

    Builder(const BuildOptions& o, BuildPlan& plan) : o_(o), plan_(plan) {}

    BuildReport run() {
        const Clock::time_point start = Clock::now();
        budget_ = o_.memory_bytes ? o_.memory_bytes : default_memory_bytes();
        report_.memory_budget_bytes = budget_;
        clear_spill();  // what a killed build left
        for (const std::string& note : plan_.notes()) fmt::print("{}\n", note);
        std::uint64_t to_build = 0;
        std::size_t building = 0;
        for (const PlannedMaterial& p : plan_.materials()) {
            Node& node = nodes_[p.material];
            node.plan = &p;
            if (!p.build) continue;
            ++building;
            to_build += p.positions;
            for (const Material& s : p.successors) ++nodes_[s].uses;
            for (const Material& w : p.waits_for) nodes_[w].dependents.push_back(p.material);
            node.pending = static_cast<int>(p.waits_for.size());
        }
        Progress progress(o_.output, building, to_build);
        progress_ = &progress;
        for (const PlannedMaterial& p : plan_.materials())
            if (!p.build) {
                progress.note(fmt::format("{:<10} already built (in the manifest, files intact)", p.material.name()));
                report_.materials.push_back({*plan_.manifest().find(p.material), true});
            }
        {
            std::optional<tbb::global_control> threads;
            if (o_.threads > 0)
                threads.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(o_.threads));
            {
                const std::lock_guard lock(mutex_);
                for (const PlannedMaterial& p : plan_.materials())
                    if (p.build && p.waits_for.empty()) waiting_.push_back(p.material);
                start_ready();
            }
            group_.wait();
        }
        nodes_.clear();  // spill files go with their tables
        clear_spill();
        report_.seconds = seconds_since(start);
        report_.processor_seconds = cpu_seconds();
        report_.positions_built = to_build;
        report_.peak_memory_bytes = peak_resident_bytes();
        return std::move(report_);
    }

private:
    struct Node {
        const PlannedMaterial* plan = nullptr;
        int pending = 0;                   // materials still to build before this one can start
        std::vector<Material> dependents;  // those waiting for this one
        int uses = 0;                      // materials still to build that read this one
        std::shared_ptr<const SolvedValues> values;  // in memory while some use is left and there is room
        std::unique_ptr<PackedCodes> packed;         // once it gave up its room, while some use is left; maybe spilled
        bool loading = false;     // being unpacked, read from its spill file or read back for a material; others wait
        bool load_tried = false;  // there was no room to: read through the probe cache
        std::uint64_t pairs_at_once = 1;  // big pairs it solves at once (working_bytes())
        std::uint64_t working_bytes = 0;  // while it is solved; 0: not yet worked out
    };

    // Starts the waiting materials whose working sets fit, in the order they
    // became ready; with nothing in work, the first in any case (called with
    // the mutex held).
    void start_ready() {
        for (auto it = waiting_.begin(); it != waiting_.end();) {
            const std::uint64_t bytes = working_bytes(nodes_[*it]);
            // A second material at once is not worth reading tables back
            // from their files: it waits instead.
            if (running_ > 0 && !make_room(bytes, nullptr)) {
                ++it;
                continue;
            }
            if (running_ == 0) make_room(bytes, &*it);  // as much as can be had
            ++running_;
            hold(bytes);
            group_.run([this, m = *it] { solve(m); });
            it = waiting_.erase(it);
        }
    }

    // The bytes node's material holds while it is solved, with one big pair
    // a thread at once, or fewer where that would not fit the budget (at
    // least one); worked out once (called with the mutex held).
    std::uint64_t working_bytes(Node& node) {
        if (node.working_bytes == 0) {
            const Material& m = node.plan->material;
            std::uint64_t pairs = solver_threads();
            while (pairs > 1 && solver_working_bytes<V>(m, pairs, o_.solver) > budget_) pairs /= 2;
            node.pairs_at_once = pairs;
            node.working_bytes = solver_working_bytes<V>(m, pairs, o_.solver);
        }
        return node.working_bytes;
    }

    // Whether `bytes` more fit the budget, once the kept tables no material
    // in work reads give up room if need be, those with the fewest uses left
    // first: packed first, then, for material `dropping_for`, dropped if it
    // does not read them (read back from their files, or through the probe
    // cache, when needed again). Called with the mutex held.
    bool make_room(std::uint64_t bytes, const Material* dropping_for) {
        const auto fits = [&] { return memory_ + bytes <= budget_; };
        const auto fewest_uses_first = [](const Node* a, const Node* b) { return a->uses < b->uses; };
        if (fits()) return true;
        std::vector<Node*> unused;
        for (auto& [m, node] : nodes_)
            if (node.values && node.values.use_count() == 1 && !node.loading) unused.push_back(&node);
        std::sort(unused.begin(), unused.end(), fewest_uses_first);
        for (Node* node : unused) {
            if (fits()) return true;
            if (!node->packed) {
                node->packed = pack(*node->values);
                hold(node->packed->bytes());
            }
            memory_ -= node->values->bytes();
            node->values.reset();
            node->load_tried = false;  // it may be unpacked when there is room again
        }
        if (!dropping_for) return fits();
        const std::vector<Material>& needed = nodes_[*dropping_for].plan->successors;
        std::vector<Node*> packed;
        for (auto& [m, node] : nodes_)
            if (node.packed && !node.packed->spilled() && !node.values && !node.loading &&
                std::find(needed.begin(), needed.end(), m) == needed.end())
                packed.push_back(&node);
        // Spilled only if that makes room: each is read from disk at a cost.
        std::uint64_t droppable = 0;
        for (const Node* node : packed) droppable += node->packed->bytes();
        if (memory_ - droppable + bytes > budget_) return false;
        std::sort(packed.begin(), packed.end(), fewest_uses_first);
        for (Node* node : packed) {
            if (fits()) return true;
            memory_ -= node->packed->bytes();
            if (spill(*node->packed))
                hold(node->packed->bytes());  // the frames' list
            else
                node->packed.reset();
            node->load_tried = false;  // it may be read when there is room again
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
    std::filesystem::path spill_directory() const { return plan_.variant_dir() / ".spill"; }
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

    // The solved values of successor s of `reader` in memory, or null: read
    // it through the probe cache. A packed table is unpacked, from its spill
    // file if spilled; one dropped (or whose spill file fails) is read back
    // from its table file, its capture positions solved again from the
    // tables they lead to.
    std::shared_ptr<const SolvedValues> acquire(const Material& s, const Material& reader) {
        std::unique_lock lock(mutex_);
        Node& node = nodes_[s];
        loaded_.wait(lock, [&] { return !node.loading; });
        if (node.values || node.load_tried) return node.values;
        node.load_tried = true;
        node.loading = true;  // make_room leaves it be
        const std::uint64_t positions = node.plan->positions;
        const bool room = make_room(node.packed ? 2 * positions : SolvedValues::bytes_for(positions), &reader);
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
                if (nodes_[t].values) known.push_back(nodes_[t].values);
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
        Node& node = nodes_[s];
        if (--node.uses > 0) return;
        if (node.values) memory_ -= node.values->bytes();
        if (node.packed) memory_ -= node.packed->bytes();
        node.values.reset();
        node.packed.reset();
    }

    void solve(const Material& m) {
        const Clock::time_point start = Clock::now();
        progress_->started(m);
        Node& node = nodes_[m];
        std::vector<std::string> waits_for;
        for (const Material& w : node.plan->waits_for) waits_for.push_back(w.name());
        const work_profile::Scope profile(m.name(), node.plan->positions, std::move(waits_for));
        SolveProgress hooks{[&](int level, int levels) { progress_->level(m, level, levels); },
                            [&](std::uint64_t n) { progress_->positions(n); }};
        SolvedValues solved;
        {
            const SuccessorTables<V> tables(node.plan->successors, o_.dir,
                                            [&](const Material& s) { return acquire(s, m); });
            solved = solve_material<V>(m, tables.get(), hooks, node.pairs_at_once, o_.solver);
        }  // the tables it read let go before they are released
        for (const Material& s : node.plan->successors) release(s);

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
            memory_ -= node.working_bytes;
            --running_;
            // Kept, or let go before the next materials take its room.
            if (node.uses > 0)
                keep(node, std::make_shared<const SolvedValues>(std::move(solved)));
            else
                solved = SolvedValues();
            for (const Material& d : node.dependents)
                if (--nodes_[d].pending == 0) waiting_.push_back(d);
            start_ready();
        }
        progress_->finished(entry);
        return_free_memory();
    }

    // Keeps a table just solved for the materials that read it: as it is if
    // it fits, else packed if that fits once other kept tables give up room
    // (called with the mutex held).
    void keep(Node& node, std::shared_ptr<const SolvedValues> values) {
        if (memory_ + values->bytes() <= budget_) {
            hold(values->bytes());
            node.values = std::move(values);
            return;
        }
        std::unique_ptr<PackedCodes> packed = pack(*values);
        if (!make_room(packed->bytes(), nullptr) && !spill(*packed)) return;
        hold(packed->bytes());
        node.packed = std::move(packed);
    }

    // Counts `bytes` more held (called with the mutex held).
    void hold(std::uint64_t bytes) {
        memory_ += bytes;
        report_.peak_held_bytes = std::max(report_.peak_held_bytes, memory_);
    }

    const BuildOptions& o_;
    BuildPlan& plan_;
    std::uint64_t budget_ = 0;
    std::uint64_t memory_ = 0;  // solved values kept in memory and working sets of the materials in work
    int running_ = 0;           // materials in work
    std::vector<Material> waiting_;  // ready to start, waiting for room
    std::map<Material, Node> nodes_;
    std::mutex mutex_;
    bool spill_failed_ = false;  // a spill failed: said once
    std::condition_variable loaded_;  // a kept table unpacked or read back (Node::loading)
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
    BuildPlan plan(options, V::board_size);
    BuildReport report = build_detail::Builder<V>(options, plan).run();
    if (options.rules) {
        report.rules = build_rule_tables(options, plan);
        report.peak_memory_bytes = peak_resident_bytes();
    }
    if (!options.profile.empty())
        work_profile::write(seconds_since(start),
                            options.threads > 0 ? options.threads : tbb::this_task_arena::max_concurrency(),
                            options.options);
    return report;
}

}  // namespace dtb
