// `dtb build` on one machine (docs/design.md, "Solver" and "Table files and the
// build's directory"): the materials asked for and all they lead to, in
// dependency order, several at once where they do not depend on each other
// (oneTBB), each solved by MaterialSolver and written as .wld and .dtw tables,
// the manifest updated after each. Tables the manifest lists whose files still
// hold are kept; a build that was killed resumes.
#pragma once

#include <cstdint>
#include <vector>

#include "builder/driver/build_options.hpp"
#include "probe/material.hpp"

namespace dtb {

// Throws std::runtime_error (with what went wrong and how to fix it) on bad
// options, damaged inputs or a failed write; finished tables stay finished.
BuildReport build_tables(const BuildOptions& options);

// build_tables for the variant V, named or not in options.variant, where V
// may also be one of the 6x6 test boards (draughts/variant.hpp), which
// build_tables does not know: the tests build those through this, without
// --rules. Defined in build_of.hpp; instantiated for the five variants in
// build.cpp and for the test boards in test_boards.cpp (dtb_builder_test_boards,
// linked by the tests only).
template <class V>
BuildReport build_tables_of(const BuildOptions& options);

// Test hook: DTB_TEST_SPILL_FAILS set makes every spill of a kept table
// fail as a full disk would (the table is then dropped and read back from
// its file). DTB_TEST_KILL_AFTER_WRITE: builder/driver/material_job.hpp.

// The one-process build's default memory budget: a third of the machine's.
std::uint64_t default_memory_bytes();

// Every canonical material of 2..pieces pieces.
std::vector<Material> materials_up_to(int pieces);

}  // namespace dtb
