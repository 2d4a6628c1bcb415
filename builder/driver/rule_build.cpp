#include "builder/driver/rule_build.hpp"

#include <algorithm>
#include <exception>
#include <map>
#include <mutex>
#include <memory>
#include <optional>

#include <fmt/core.h>
#include <tbb/global_control.h>
#include <tbb/task_group.h>

#include "builder/driver/build.hpp"
#include "builder/driver/material_job.hpp"
#include "builder/driver/progress.hpp"
#include "builder/solver/rule_solver.hpp"
#include "builder/system/work_profile.hpp"
#include "draughts/variant.hpp"

namespace dtb {

namespace {

// The rule tables of a build's materials in the plan's order, each started
// once the materials it leads to are done, several at once when their
// working sets fit the budget (a oneTBB task group, as the plain build does);
// each solved with the threads it gets (RuleSolver solves the block pairs of
// a level in parallel, a pair on one thread, so a material of kings only,
// one pair, runs on one core while others run beside it). The rule values a
// later material reads are kept in memory (a byte a position) while some use
// is left and they fit the budget; the others are read from their .rul
// files through the probe.
template <class V>
class RuleBuilder {
public:
    static constexpr int N = V::board_size;
    using Draw = typename V::draw_rules;

    RuleBuilder(const BuildOptions& o, BuildPlan& plan) : o_(o), plan_(plan) {}

    RuleBuildReport run() {
        const Clock::time_point start = Clock::now();
        const double processor_start = cpu_seconds();
        budget_ = o_.memory_bytes ? o_.memory_bytes : default_memory_bytes();
        for (const PlannedMaterial& p : plan_.materials()) {
            if (const std::optional<std::string> why = refusal(p)) {
                refused_[p.material] = *why;
                report_.refused.emplace_back(p.material, *why);
                note(fmt::format("{:<10} no rule table: {}", p.material.name(), *why));
            } else if (intact(p)) {
                ++report_.skipped;
                report_.bytes += plan_.manifest().find(p.material)->rules->bytes;
                note(fmt::format("{:<10} rule table already built (in the manifest, file intact)", p.material.name()));
            } else {
                Node& node = nodes_[p.material];
                node.plan = &p;
                for (const Material& s : p.successors) ++uses_[s];
            }
        }
        for (auto& [m, node] : nodes_)
            for (const Material& s : node.plan->successors)
                if (const auto it = nodes_.find(s); it != nodes_.end()) {
                    ++node.pending;
                    it->second.dependents.push_back(m);
                }
        {
            std::optional<tbb::global_control> threads;
            if (o_.threads > 0)
                threads.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(o_.threads));
            {
                const std::lock_guard lock(mutex_);
                for (const PlannedMaterial& p : plan_.materials())
                    if (const auto it = nodes_.find(p.material); it != nodes_.end() && it->second.pending == 0)
                        waiting_.push_back(p.material);
                start_ready();
            }
            group_.wait();
        }
        if (failure_) std::rethrow_exception(failure_);
        report_.seconds = seconds_since(start);
        report_.processor_seconds = cpu_seconds() - processor_start;
        return std::move(report_);
    }

private:
    // Why material p gets no rule table, if it gets none.
    std::optional<std::string> refusal(const PlannedMaterial& p) const {
        try {
            governing_count<Draw>(p.material);
        } catch (const RulesRefused& e) {
            return std::string(e.what());
        }
        for (const Material& s : p.successors)
            if (refused_.count(s)) return "its moves lead to " + s.name() + ", which the rules refuse";
        return std::nullopt;
    }

    // Whether p's .rul is in the manifest, its file holds and it was built
    // under these rules.
    bool intact(const PlannedMaterial& p) {
        const ManifestEntry* e = plan_.manifest().find(p.material);
        if (!e || !e->rules) return false;
        const std::filesystem::path path = plan_.variant_dir() / table_file_name(p.material, TableKind::rul);
        try {
            const TableFile file = TableFile::open(path, {o_.variant, p.material, TableKind::rul});
            if (file.table_checksum() != e->rules->checksum)
                throw TableError(TableErrorKind::corrupted, path, "not the table the manifest lists");
            if (file.header().rules != rule_record<Draw>(governing_count<Draw>(p.material), o_.literal_road))
                throw TableError(TableErrorKind::foreign, path, "built under other rules or another road reading");
            return true;
        } catch (const TableError& failure) {
            note(fmt::format("{}: {}; building it again", p.material.name(), failure.what()));
            return false;
        }
    }

    struct Node {
        const PlannedMaterial* plan = nullptr;
        int pending = 0;                   // materials it leads to still to build
        std::vector<Material> dependents;  // those that lead to it
    };

    // The bytes a material holds while it is solved: a byte a position, two
    // with a main road, and a bit a position of capture marks (RuleValues),
    // the pairs' scratch besides.
    std::uint64_t working_bytes(const Material& m) const {
        const std::uint64_t positions = nodes_.at(m).plan->positions;
        return (governing_count<Draw>(m).has_road() ? 2 * positions : positions) + positions / 8;
    }

    // The bytes of rule values kept for later materials.
    static std::uint64_t values_bytes(const RuleValues& v) {
        return v.codes.size() + v.after_road.size() + 8 * v.captures.size();
    }

    // Starts the waiting materials that fit the budget beside what is held,
    // in the order they became ready; with nothing in work, the first in any
    // case (called with the mutex held).
    void start_ready() {
        if (failure_) return;
        for (auto it = waiting_.begin(); it != waiting_.end();) {
            const std::uint64_t bytes = working_bytes(*it);
            if (running_ > 0 && held_bytes() + working_ + bytes > budget_) {
                ++it;
                continue;
            }
            ++running_;
            working_ += bytes;
            // What it reads, as held now (kept alive while it runs).
            std::vector<std::shared_ptr<const RuleValues>> held;
            for (const Material& s : nodes_.at(*it).plan->successors)
                if (const auto h = held_.find(s); h != held_.end()) held.push_back(h->second);
            group_.run([this, m = *it, held = std::move(held)] { solve(m, held); });
            it = waiting_.erase(it);
        }
    }

    void solve(const Material& m, const std::vector<std::shared_ptr<const RuleValues>>& held) {
        try {
            const Clock::time_point start = Clock::now();
            const PlannedMaterial& p = *nodes_.at(m).plan;
            std::vector<std::string> waits_for;
            for (const Material& s : p.successors)
                if (nodes_.count(s)) waits_for.push_back(s.name() + ".rul");
            const work_profile::Scope profile(m.name() + ".rul", p.positions, std::move(waits_for));
            // Successors not in memory are read from their files, through a
            // probe opened now (it lists the files written so far).
            std::optional<Prober<V>> prober;
            std::optional<RuleProber<V>> files;
            if (held.size() < p.successors.size()) {
                prober.emplace(o_.dir);
                files.emplace(*prober);
            }
            RuleSuccessors<V> successors(files ? &*files : nullptr);
            for (const auto& values : held) successors.add(values);
            auto values = std::make_shared<const RuleValues>(RuleSolver<V>(m, successors, o_.literal_road, o_.solver).solve());

            work_profile::Scope::set_level(-1);
            const TableSpec spec = table_spec(o_, N, m, values->positions_per_side, 0);
            const WrittenTable written = write_rule_table(plan_.variant_dir(), spec,
                                                          rule_record<Draw>(values->count, o_.literal_road),
                                                          rule_file_source(*values));
            maybe_kill_after_write(m.name() + ".rul");
            RuleEntry r;
            r.bytes = written.bytes;
            r.checksum = written.checksum;
            r.profile = std::string(Draw::profile);
            r.limit = values->count.limit;
            r.road_limit = values->count.road_limit;
            r.literal_road = o_.literal_road;
            const ValueCounts counts = count_wdl(
                values->codes.size(), [&](std::size_t i) { return value_of_rule_code(values->codes[i]); });
            r.wins = counts.wins;
            r.draws = counts.draws;
            r.losses = counts.losses;
            r.longest_win = counts.longest;
            r.seconds = seconds_since(start);
            finished(m, std::move(values), r);
        } catch (...) {
            const std::lock_guard lock(mutex_);
            if (!failure_) failure_ = std::current_exception();
            --running_;
        }
        return_free_memory();
    }

    // Records a finished material (manifest, report), keeps its values for
    // the materials that read it, and starts those now ready.
    void finished(const Material& m, std::shared_ptr<const RuleValues> values, const RuleEntry& r) {
        const std::lock_guard lock(mutex_);
        ManifestEntry entry = *plan_.manifest().find(m);
        entry.rules = r;
        plan_.manifest().put(entry);
        plan_.manifest().save(plan_.variant_dir() / Manifest::file_name);
        ++report_.built;
        report_.positions_built += values->codes.size();
        report_.bytes += r.bytes;
        note(fmt::format("{:<10} {:>14} positions  rule wins {}, draws {}, losses {}  longest {}  {} bytes  {:.1f} s",
                         m.name() + ".rul", with_commas(values->codes.size()), with_commas(r.wins),
                         with_commas(r.draws), with_commas(r.losses), r.longest_win, with_commas(r.bytes), r.seconds));
        --running_;
        working_ -= working_bytes(m);
        const Node& node = nodes_.at(m);
        if (uses_[m] > 0) held_[m] = std::move(values);
        for (const Material& s : node.plan->successors)
            if (--uses_[s] == 0) held_.erase(s);
        fit_budget();
        for (const Material& d : node.dependents)
            if (--nodes_.at(d).pending == 0) waiting_.push_back(d);
        start_ready();
    }

    std::uint64_t held_bytes() const {
        std::uint64_t total = 0;
        for (const auto& [m, v] : held_) total += values_bytes(*v);
        return total;
    }

    // Lets the held values with the fewest uses left go (read from their
    // files when needed) while they and the working sets exceed the budget
    // (called with the mutex held).
    void fit_budget() {
        std::uint64_t total = held_bytes() + working_;
        while (total > budget_ && !held_.empty()) {
            const auto fewest = std::min_element(held_.begin(), held_.end(), [&](const auto& a, const auto& b) {
                return uses_[a.first] < uses_[b.first];
            });
            total -= values_bytes(*fewest->second);
            held_.erase(fewest);
        }
    }

    // Called with the mutex held, or before any task runs.
    void note(const std::string& line) const {
        if (o_.output == BuildOptions::Output::quiet) return;
        fmt::print("{}\n", line);
        std::fflush(stdout);
    }

    const BuildOptions& o_;
    BuildPlan& plan_;
    std::uint64_t budget_ = 0;
    std::map<Material, std::string> refused_;
    std::map<Material, Node> nodes_;  // the materials to build
    std::map<Material, int> uses_;    // materials still to build that read each one
    std::map<Material, std::shared_ptr<const RuleValues>> held_;
    std::vector<Material> waiting_;  // ready, waiting for room
    int running_ = 0;
    std::uint64_t working_ = 0;  // the working sets of the materials in work
    std::exception_ptr failure_;  // the first material that failed; the others are not started
    std::mutex mutex_;
    tbb::task_group group_;
    RuleBuildReport report_;
};

}  // namespace

RuleBuildReport build_rule_tables(const BuildOptions& options, BuildPlan& plan) {
    return draughts::with_variant(
        options.variant,
        [&]<class V>() {
            if (options.literal_road && V::draw_rules::main_road.empty())
                throw std::invalid_argument("--literal-road: " + std::string(V::name) +
                                            " has no main-road rule (only Russian, 7.2.7); leave it out");
            return RuleBuilder<V>(options, plan).run();
        });
}

}  // namespace dtb
