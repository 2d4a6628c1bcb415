#include "builder/driver/rule_job.hpp"

#include <fmt/core.h>

#include "builder/driver/progress.hpp"

namespace dtb {

std::optional<RuleBuildReport> planned_rule_report(const BuildOptions& o, const BuildPlan& plan,
                                                   const std::function<void(const std::string&)>& note) {
    if (!o.rules) return std::nullopt;
    RuleBuildReport report;
    for (const PlannedMaterial& p : plan.materials()) {
        if (!p.rules_refused.empty()) {
            report.refused.emplace_back(p.material, p.rules_refused);
            note(fmt::format("{:<10} no rule table: {}", p.material.name(), p.rules_refused));
        } else if (!p.build_rules) {
            ++report.skipped;
            report.bytes += plan.manifest().find(p.material)->rules->bytes;
            note(fmt::format("{:<10} rule table already built (in the manifest, file intact)", p.material.name()));
        }
    }
    return report;
}

std::string record_rule_table(BuildPlan& plan, const Material& m, std::uint64_t positions, const RuleEntry& r,
                              RuleBuildReport& report) {
    ManifestEntry entry = *plan.manifest().find(m);
    entry.rules = r;
    plan.manifest().put(entry);
    plan.manifest().save(plan.variant_dir() / Manifest::file_name);
    ++report.built;
    report.positions_built += positions;
    report.bytes += r.bytes;
    report.seconds += r.seconds;
    return fmt::format("{:<10} {:>14} positions  rule wins {}, draws {}, losses {}  longest {}  {} bytes  {:.1f} s",
                       m.name() + ".rul", with_commas(positions), with_commas(r.wins), with_commas(r.draws),
                       with_commas(r.losses), r.longest_win, with_commas(r.bytes), r.seconds);
}

}  // namespace dtb
