// One material's .rul table solved and written (docs/rules.md): what every
// driver of a build does for each rule job (BuildJob::Kind::rule), beside
// the plain jobs of other materials. A rule job starts once its material's
// plain tables are listed in the manifest (its entry takes the .rul's
// record) and the .rul tables its moves lead to are written; it reads those
// from memory where a driver kept them, and from their files otherwise.
// Materials the rules refuse (RulesRefused), and those whose moves lead into
// one, get no job; the report names them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "builder/driver/build_options.hpp"
#include "builder/driver/build_plan.hpp"
#include "builder/driver/material_job.hpp"
#include "builder/output/manifest.hpp"
#include "builder/solver/solve.hpp"
#include "builder/system/process.hpp"
#include "builder/system/work_profile.hpp"
#include "builder/values/rule_values.hpp"
#include "probe/rule_count.hpp"
#include "probe/rule_prober.hpp"

namespace dtb {

// The terms of V's .rul tables under `o` (BuildPlan's RuleTerms). Throws
// std::invalid_argument for --literal-road where V has no main road.
template <class V>
RuleTerms rule_terms(const BuildOptions& o) {
    using Draw = typename V::draw_rules;
    if (o.literal_road && Draw::main_road.empty())
        throw std::invalid_argument("--literal-road: " + std::string(V::name) +
                                    " has no main-road rule (only Russian, 7.2.7); leave it out");
    return [literal = o.literal_road](const Material& m) {
        return rule_record<Draw>(governing_count<Draw>(m), literal);
    };
}

// What a rule job of material m holds while it runs under `budget`: its
// rule values whole (a byte a position, two with a main road, and a bit a
// position of capture marks: RuleValues; the pairs' scratch besides), or,
// where whole they do not fit (or `options` say so), a level at a time, as
// the plain solve of m holds its values (solver_working_bytes() with levels
// on and one big pair at once), where that is less. A material with a main
// road is held whole (RuleSolver). Never more than m's plain job at its
// least: `dtb info`'s working set covers a build with --rules too.
template <class V>
WorkingSet rule_working_set(const Material& m, std::uint64_t budget, const SolverOptions& options) {
    const std::uint64_t positions = table_positions<V::board_size>(m);
    const bool road = governing_count<typename V::draw_rules>(m).has_road();
    const WorkingSet whole{1, (road ? 2 * positions : positions) + positions / 8, options};
    if (road) return whole;
    WorkingSet levels{1, 0, options};
    levels.options.levels_from_positions = 0;
    levels.bytes = solver_working_bytes<V>(m, 1, levels.options);
    if (positions >= options.levels_from_positions) return {1, levels.bytes, options};
    return whole.bytes <= budget || levels.bytes >= whole.bytes ? whole : levels;
}

struct SolvedRules {
    std::shared_ptr<const RuleValues> values;  // whole; null when solved by levels (its table packed)
    RuleEntry entry;                           // the manifest's record of its .rul
};

// Solves p's rule values with the successors' in `held` read from memory
// and the others from their .rul files (through a probe of o.dir opened now,
// which lists the files written so far; its cache counted in `kept`, if
// given: JobProber), `options` (rule_working_set()'s, with a level folder
// of p's) and `progress` as RuleSolver takes them, and writes its .rul into
// `variant_dir`.
template <class V>
SolvedRules solve_rule_job(const BuildOptions& o, const std::filesystem::path& variant_dir, const PlannedMaterial& p,
                           const std::vector<std::shared_ptr<const RuleValues>>& held, const SolverOptions& options,
                           SolveProgress progress, KeptTables* kept = nullptr) {
    using Draw = typename V::draw_rules;
    const Clock::time_point start = Clock::now();
    std::vector<std::string> waits_for;
    if (p.build) waits_for.push_back(p.material.name());
    for (const Material& s : p.rules_wait_for) waits_for.push_back(s.name() + ".rul");
    const work_profile::Scope profile(p.material.name() + ".rul", p.positions, std::move(waits_for));
    std::optional<JobProber<V>> prober;
    std::optional<RuleProber<V>> files;
    if (held.size() < p.successors.size()) {
        prober.emplace(o.dir, kept);
        files.emplace(prober->get());
    }
    RuleSuccessors<V> successors(files ? &*files : nullptr);
    for (const auto& values : held) successors.add(values);
    SolvedRuleMaterial solved = solve_rules<V>(p.material, successors, o.literal_road, options, std::move(progress));

    work_profile::Scope::set_level(-1);
    // Whole or packed: counted, and written from a source of its codes.
    SolvedRules result;
    GoverningCount count;
    ValueCounts counts;
    std::uint64_t per_side = 0;
    ValueSource source;
    if (auto* whole = std::get_if<RuleValues>(&solved)) {
        result.values = std::make_shared<const RuleValues>(std::move(*whole));
        const RuleValues& values = *result.values;
        count = values.count;
        counts = count_wdl(values.codes.size(), [&](std::size_t i) { return value_of_rule_code(values.codes[i]); });
        per_side = values.positions_per_side;
        source = rule_file_source(values);
    } else {
        const PackedRules& packed = std::get<PackedRules>(solved);
        count = packed.count;
        counts = packed.table.counts;
        per_side = packed.table.positions_per_side;
        source = value_source(packed.table, o.block_shift);
    }
    const WrittenTable written = write_rule_table(variant_dir, table_spec(o, V::board_size, p.material, per_side, 0),
                                                  rule_record<Draw>(count, o.literal_road), source);
    solved = {};
    maybe_kill_after_write(p.material.name() + ".rul");
    RuleEntry& r = result.entry;
    r.bytes = written.bytes;
    r.checksum = written.checksum;
    r.profile = std::string(Draw::profile);
    r.limit = count.limit;
    r.road_limit = count.road_limit;
    r.literal_road = o.literal_road;
    r.wins = counts.wins;
    r.draws = counts.draws;
    r.losses = counts.losses;
    r.longest_win = counts.longest;
    r.seconds = seconds_since(start);
    return result;
}

// The report of a build's rule tables before any is built: those the plan
// skips (in the manifest, file intact) and those the rules refuse, each told
// to `note` in a line. Empty without --rules.
std::optional<RuleBuildReport> planned_rule_report(const BuildOptions& o, const BuildPlan& plan,
                                                   const std::function<void(const std::string&)>& note);

// A rule job finished: puts its record into its material's manifest entry
// and saves the manifest, counts it in `report` and returns its line.
std::string record_rule_table(BuildPlan& plan, const Material& m, std::uint64_t positions, const RuleEntry& r,
                              RuleBuildReport& report);

}  // namespace dtb
