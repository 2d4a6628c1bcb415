#include "builder/build.hpp"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

#include <fmt/core.h>
#include <tbb/global_control.h>
#include <tbb/task_group.h>

#include "builder/build_plan.hpp"
#include "builder/material_job.hpp"
#include "builder/progress.hpp"
#include "builder/table_loader.hpp"
#include "draughts/variant.hpp"

namespace dtb {

void maybe_kill_after_write(const Material& m) {
    const char* target = std::getenv("DTB_TEST_KILL_AFTER_WRITE");
    if (target && m.name() == target) std::raise(SIGKILL);
}

namespace {

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
// the kept tables no material in work is reading are dropped (they are read
// back from their files, or through the probe cache, when needed again).
template <class V>
class Builder {
public:
    static constexpr int N = V::board_size;

    Builder(const BuildOptions& o, BuildPlan& plan) : o_(o), plan_(plan) {}

    BuildReport run() {
        const Clock::time_point start = Clock::now();
        budget_ = o_.memory_bytes ? o_.memory_bytes : default_memory_bytes();
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
        report_.seconds = seconds_since(start);
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
        std::shared_ptr<const SolvedValues> values;  // in memory while some use is left
        bool load_tried = false;
    };

    // Starts the waiting materials whose working sets fit, in the order they
    // became ready; with nothing in work, the first in any case (called with
    // the mutex held).
    void start_ready() {
        for (auto it = waiting_.begin(); it != waiting_.end();) {
            const std::uint64_t bytes = MaterialSolver<V>::working_bytes(*it);
            if (running_ > 0 && !make_room(bytes)) {
                ++it;
                continue;
            }
            if (running_ == 0) make_room(bytes);  // as much as can be had
            ++running_;
            memory_ += bytes;
            group_.run([this, m = *it] { solve(m); });
            it = waiting_.erase(it);
        }
    }

    // Whether `bytes` more fit the budget, once the kept tables no material
    // in work reads are dropped if need be, those with the fewest uses left
    // first (called with the mutex held).
    bool make_room(std::uint64_t bytes) {
        if (memory_ + bytes <= budget_) return true;
        std::vector<Node*> unused;
        for (auto& [m, node] : nodes_)
            if (node.values && node.values.use_count() == 1) unused.push_back(&node);
        std::sort(unused.begin(), unused.end(), [](const Node* a, const Node* b) { return a->uses < b->uses; });
        for (Node* node : unused) {
            if (memory_ + bytes <= budget_) break;
            memory_ -= node->values->bytes();
            node->values.reset();
            node->load_tried = false;  // it may be read back when there is room again
        }
        return memory_ + bytes <= budget_;
    }

    // The solved values of successor s in memory, or null: read it through the probe cache.
    std::shared_ptr<const SolvedValues> acquire(const Material& s) {
        std::unique_lock lock(mutex_);
        Node& node = nodes_[s];
        if (node.values || node.load_tried) return node.values;
        node.load_tried = true;
        // Read back from its file: its codes (the capture marks are dropped once its capture positions are solved).
        const std::uint64_t bytes = 2 * node.plan->positions;
        if (!make_room(SolvedValues::bytes_for(node.plan->positions))) return nullptr;
        memory_ += bytes;
        lock.unlock();
        // Its capture positions answered from the tables it leads to that are in memory, or from their files.
        std::vector<std::shared_ptr<const SolvedValues>> known;
        lock.lock();
        for (const Material& t : node.plan->successors)
            if (nodes_[t].values) known.push_back(nodes_[t].values);
        lock.unlock();
        const TableFile file = open_dtw_table<V>(plan_.variant_dir(), s);
        const Prober<V> prober(o_.dir);
        SolvedValues loaded = load_solved_values<V>(file, Successors<V>(known, &prober), 0, file.header().block_count());
        drop_capture_marks(loaded);
        auto values = std::make_shared<const SolvedValues>(std::move(loaded));
        lock.lock();
        node.values = values;
        return values;
    }

    void release(const Material& s) {
        const std::lock_guard lock(mutex_);
        Node& node = nodes_[s];
        if (--node.uses == 0 && node.values) {
            memory_ -= node.values->bytes();
            node.values.reset();
        }
    }

    void solve(const Material& m) {
        const Clock::time_point start = Clock::now();
        progress_->started(m);
        Node& node = nodes_[m];
        SolveProgress hooks{[&](int level, int levels) { progress_->level(m, level, levels); },
                            [&](std::uint64_t n) { progress_->positions(n); }};
        SolvedValues solved;
        {
            const SuccessorTables<V> tables(node.plan->successors, o_.dir,
                                            [&](const Material& s) { return acquire(s); });
            solved = MaterialSolver<V>(m, tables.get(), hooks).solve();
        }  // the tables it read let go before they are released
        for (const Material& s : node.plan->successors) release(s);

        ManifestEntry entry = write_solved(o_, N, plan_.variant_dir(), solved);
        maybe_kill_after_write(m);
        entry.seconds = seconds_since(start);
        drop_capture_marks(solved);  // kept only for lookups, which read the codes
        auto values = std::make_shared<const SolvedValues>(std::move(solved));
        {
            const std::lock_guard lock(mutex_);
            plan_.manifest().put(entry);
            plan_.manifest().save(plan_.variant_dir() / Manifest::file_name);
            report_.materials.push_back({entry, false});
            memory_ -= MaterialSolver<V>::working_bytes(m);
            --running_;
            if (node.uses > 0 && memory_ + values->bytes() <= budget_) {
                memory_ += values->bytes();
                node.values = std::move(values);
            }
            for (const Material& d : node.dependents)
                if (--nodes_[d].pending == 0) waiting_.push_back(d);
            start_ready();
        }
        progress_->finished(entry);
    }

    static void drop_capture_marks(SolvedValues& values) {
        values.capture.clear();
        values.capture.shrink_to_fit();
    }

    const BuildOptions& o_;
    BuildPlan& plan_;
    std::uint64_t budget_ = 0;
    std::uint64_t memory_ = 0;  // solved values kept in memory and working sets of the materials in work
    int running_ = 0;           // materials in work
    std::vector<Material> waiting_;  // ready to start, waiting for room
    std::map<Material, Node> nodes_;
    std::mutex mutex_;
    tbb::task_group group_;
    Progress* progress_ = nullptr;
    BuildReport report_;
};

}  // namespace

std::uint64_t default_memory_bytes() { return physical_memory() / 3; }

std::vector<Material> materials_up_to(int pieces) {
    std::vector<Material> result;
    for (int n = 2; n <= pieces; ++n) {
        const auto some = canonical_materials(n);
        result.insert(result.end(), some.begin(), some.end());
    }
    return result;
}

BuildReport build_tables(const BuildOptions& options) {
    if (options.targets.empty()) throw std::invalid_argument("nothing to build: give --pieces N or --material M");
    return draughts::with_variant(
        options.variant,
        [&]<class V>() {
            BuildPlan plan(options, V::board_size);
            return Builder<V>(options, plan).run();
        },
        true);
}

}  // namespace dtb
