// What a build does (docs/design.md, "Solver" and "Table files and the build's
// directory"): the materials asked for and all they lead to, in dependency
// order, which of them are already built (listed in the manifest, files intact)
// and which must wait for which. One process makes the plan (rank 0 of a
// distributed build) and holds the tables directory's lock while the build
// runs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "builder/driver/build_options.hpp"
#include "builder/output/manifest.hpp"
#include "probe/material.hpp"
#include "probe/table_format.hpp"

namespace dtb {

struct PlannedMaterial {
    Material material;  // canonical
    std::vector<Material> successors;  // the canonical materials one move leads to
    std::uint64_t positions = 0;       // both sides to move
    bool build = false;                // false: already built
    // The materials this run builds that must be finished before this one
    // starts: its successors, and through those already built, theirs (their
    // values are read back from the files, which needs the tables they lead to).
    std::vector<Material> waits_for;
    // With --rules, its .rul table (docs/rules.md): why the rules give it
    // none (empty: they give one), whether this run builds it (not if
    // refused, or listed in the manifest with its file intact and built
    // under these rules), and the .rul tables this run builds that must be
    // finished before it starts, found as waits_for is.
    std::string rules_refused;
    bool build_rules = false;
    std::vector<Material> rules_wait_for;
};

// A piece of a build's work: a material's .wld and .dtw (plain), or its .rul
// (rule). Every driver runs the same jobs in an order that keeps waits_for.
struct BuildJob {
    enum class Kind { plain, rule };
    Kind kind = Kind::plain;
    Material material;
    std::uint64_t positions = 0;  // both sides to move
    std::vector<int> waits_for;   // the jobs (indices in BuildPlan::jobs(), all before it) finished before it starts
    // Of those, the ones whose values it reads: a plain job reads its
    // successors' plain values (and, through them, theirs); a rule job its
    // successors' rule values, not its own plain ones (the rule solver is
    // apart from DTW), though it waits for them: the manifest lists a .rul
    // in its material's entry.
    std::vector<int> reads;
    std::string name() const { return kind == Kind::rule ? material.name() + ".rul" : material.name(); }
};

// The record a material's .rul holds under the variant's draw rules and the
// options (rule_record()); throws RulesRefused for a material they refuse.
using RuleTerms = std::function<RuleRecord(const Material&)>;
class BuildPlan {
public:
    // Creates DIR/VARIANT, takes its lock (another build in the same directory
    // is refused), removes the temporary files of a build that was killed,
    // reads the manifest and checks the files of every material it lists.
    // With options.rules, `rules` gives the .rul tables' terms. Throws
    // std::runtime_error with what to do.
    BuildPlan(const BuildOptions& options, int board_size, const RuleTerms& rules = {});
    BuildPlan(const BuildPlan&) = delete;
    BuildPlan& operator=(const BuildPlan&) = delete;
    ~BuildPlan();

    const std::filesystem::path& variant_dir() const noexcept { return variant_dir_; }
    // In build order: each after every material it leads to.
    const std::vector<PlannedMaterial>& materials() const noexcept { return materials_; }
    const PlannedMaterial& at(const Material& m) const;
    // This run's work: the plain job of each material to build, each
    // followed by its rule job (--rules) where there is one.
    const std::vector<BuildJob>& jobs() const noexcept { return jobs_; }
    Manifest& manifest() noexcept { return manifest_; }
    const Manifest& manifest() const noexcept { return manifest_; }
    // What the checks found (a table changed behind the manifest's back), for the user.
    const std::vector<std::string>& notes() const noexcept { return notes_; }

private:
    std::filesystem::path variant_dir_;
    int lock_fd_ = -1;
    Manifest manifest_;
    std::vector<PlannedMaterial> materials_;
    std::vector<BuildJob> jobs_;
    std::vector<std::string> notes_;
};

}  // namespace dtb
