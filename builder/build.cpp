#include "builder/build.hpp"

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
// oneTBB task_group starts a material once the last table it waits for is written).
template <class V>
class Builder {
public:
    static constexpr int N = V::board_size;

    Builder(const BuildOptions& o, BuildPlan& plan) : o_(o), plan_(plan) {}

    BuildReport run() {
        const Clock::time_point start = Clock::now();
        budget_ = o_.memory_bytes ? o_.memory_bytes : physical_memory() / 4 * 3;
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
            for (const PlannedMaterial& p : plan_.materials())
                if (p.build && p.waits_for.empty()) group_.run([this, m = p.material] { solve(m); });
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

    // The solved values of successor s in memory, or null: read it through the probe cache.
    std::shared_ptr<const SolvedValues> acquire(const Material& s) {
        std::unique_lock lock(mutex_);
        Node& node = nodes_[s];
        if (node.values || node.plan->build || node.load_tried) return node.values;
        node.load_tried = true;
        const std::uint64_t bytes = SolvedValues::bytes_for(node.plan->positions);
        if (memory_ + bytes > budget_) return nullptr;
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
        auto values = std::make_shared<const SolvedValues>(
            load_solved_values<V>(file, Successors<V>(known, &prober), 0, file.header().block_count()));
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
        std::shared_ptr<const SolvedValues> values;
        {
            const SuccessorTables<V> tables(node.plan->successors, o_.dir,
                                            [&](const Material& s) { return acquire(s); });
            values = std::make_shared<const SolvedValues>(MaterialSolver<V>(m, tables.get(), hooks).solve());
        }  // the tables it read let go before they are released
        for (const Material& s : node.plan->successors) release(s);

        ManifestEntry entry = write_solved(o_, N, plan_.variant_dir(), *values);
        maybe_kill_after_write(m);
        entry.seconds = seconds_since(start);
        std::vector<Material> ready;
        {
            const std::lock_guard lock(mutex_);
            plan_.manifest().put(entry);
            plan_.manifest().save(plan_.variant_dir() / Manifest::file_name);
            report_.materials.push_back({entry, false});
            if (node.uses > 0 && memory_ + values->bytes() <= budget_) {
                memory_ += values->bytes();
                node.values = values;
            }
            for (const Material& d : node.dependents)
                if (--nodes_[d].pending == 0) ready.push_back(d);
        }
        progress_->finished(entry);
        for (const Material& d : ready) group_.run([this, d] { solve(d); });
    }

    const BuildOptions& o_;
    BuildPlan& plan_;
    std::uint64_t budget_ = 0;
    std::uint64_t memory_ = 0;  // solved values kept in memory
    std::map<Material, Node> nodes_;
    std::mutex mutex_;
    tbb::task_group group_;
    Progress* progress_ = nullptr;
    BuildReport report_;
};

}  // namespace

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
