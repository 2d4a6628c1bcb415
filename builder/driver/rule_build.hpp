// `dtb build --rules` (docs/rules.md): after the plain tables, the .rul
// tables of the same materials in the same order, each solved by the rule
// solver with every thread and written beside its .wld and .dtw, the
// manifest updated after each (its entry's "rul"), so a killed build
// resumes. Materials the rules refuse (RulesRefused), and those whose moves
// lead into one, get no table; the report names them.
#pragma once

#include "builder/driver/build_options.hpp"
#include "builder/driver/build_plan.hpp"

namespace dtb {

// Builds the rule tables of `plan`'s materials, whose plain tables are
// built. Throws std::runtime_error as build_tables() does.
RuleBuildReport build_rule_tables(const BuildOptions& options, BuildPlan& plan);

}  // namespace dtb
