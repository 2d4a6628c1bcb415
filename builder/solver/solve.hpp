// The solver of a material behind a compile boundary: declared here and
// compiled once for each variant (solve_variant.cpp), so that the drivers
// that call it (the one-process build, the MPI driver) do not each compile
// the whole solver for every variant again. What they do is
// MaterialSolver<V> (material_solver.hpp) and RuleSolver<V> (rule_solver.hpp);
// tests on other boards use them directly.
#pragma once

#include <cstdint>
#include <variant>

#include "builder/solver/solve_progress.hpp"
#include "builder/solver/solver_options.hpp"
#include "builder/team/team.hpp"
#include "builder/team/team_options.hpp"
#include "builder/team/team_tables.hpp"
#include "builder/values/packed_codes.hpp"
#include "builder/values/rule_values.hpp"
#include "builder/values/solved_values.hpp"
#include "probe/material.hpp"

namespace dtb {

// What one process's solve of a material hands on: its values whole, or,
// held a level at a time (SolverOptions::levels_from_positions), its table
// packed, never whole in memory.
using SolvedMaterial = std::variant<SolvedValues, PackedTable>;

// MaterialSolver<V>(canonical, successors, progress, pairs_at_once, options).solve():
// one process.
template <class V>
SolvedMaterial solve_material(const Material& canonical, const Successors<V>& successors, SolveProgress progress = {},
                            std::uint64_t pairs_at_once = 0, const SolverOptions& options = {});

// MaterialSolver<V>(canonical, team, tables, whole, options, progress).solve():
// a member of a team.
template <class V>
SolvedValues solve_material_in_team(const Material& canonical, Team& team, TeamTables<V>& tables,
                                    const Successors<V>& whole, const TeamOptions& options,
                                    SolveProgress progress = {});

// RuleSolver<V>(canonical, successors, literal_road, options, progress).solve():
// the values under the draw rules (rule_solver.hpp), whole or packed.
template <class V>
SolvedRuleMaterial solve_rules(const Material& canonical, const RuleSuccessors<V>& successors, bool literal_road,
                               const SolverOptions& options, SolveProgress progress = {});

// MaterialSolver<V>::working_bytes(canonical, pairs_at_once, options).
template <class V>
std::uint64_t solver_working_bytes(const Material& canonical, std::uint64_t pairs_at_once,
                                   const SolverOptions& options);

}  // namespace dtb
