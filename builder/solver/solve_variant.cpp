// solve.hpp's functions for the variant DTB_SOLVE_VARIANT (draughts::American,
// ...): builder/CMakeLists.txt compiles this file once for each, side by side.
#include "builder/solver/solve.hpp"

#include <utility>
#include <variant>

#include "builder/solver/material_solver.hpp"
#include "builder/solver/rule_solver.hpp"
#include "draughts/variant.hpp"

namespace dtb {

template <class V>
SolvedMaterial solve_material(const Material& canonical, const Successors<V>& successors, SolveProgress progress,
                              std::uint64_t pairs_at_once, const SolverOptions& options) {
    return MaterialSolver<V>(canonical, successors, std::move(progress), pairs_at_once, options).solve();
}

template <class V>
SolvedValues solve_material_in_team(const Material& canonical, Team& team, TeamTables<V>& tables,
                                    const Successors<V>& whole, const TeamOptions& options, SolveProgress progress) {
    MaterialSolver<V> solver(canonical, team, tables, whole, options, std::move(progress));
    return std::get<SolvedValues>(solver.solve());
}

template <class V>
SolvedRuleMaterial solve_rules(const Material& canonical, const RuleSuccessors<V>& successors, bool literal_road,
                               const SolverOptions& options, SolveProgress progress) {
    return RuleSolver<V>(canonical, successors, literal_road, options, std::move(progress)).solve();
}

template <class V>
std::uint64_t solver_working_bytes(const Material& canonical, std::uint64_t pairs_at_once,
                                   const SolverOptions& options) {
    return MaterialSolver<V>::working_bytes(canonical, pairs_at_once, options);
}

using Variant = draughts::DTB_SOLVE_VARIANT;
template SolvedMaterial solve_material<Variant>(const Material&, const Successors<Variant>&, SolveProgress,
                                                std::uint64_t, const SolverOptions&);
template SolvedValues solve_material_in_team<Variant>(const Material&, Team&, TeamTables<Variant>&,
                                                      const Successors<Variant>&, const TeamOptions&, SolveProgress);
template SolvedRuleMaterial solve_rules<Variant>(const Material&, const RuleSuccessors<Variant>&, bool,
                                                 const SolverOptions&, SolveProgress);
template std::uint64_t solver_working_bytes<Variant>(const Material&, std::uint64_t, const SolverOptions&);

}  // namespace dtb
