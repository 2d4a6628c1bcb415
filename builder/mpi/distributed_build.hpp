// `dtb build` on many MPI ranks (docs/design.md, "Distributed
// build"): `mpiexec -n R dtb build ...` or `srun dtb build ...` with the
// command line of one process. Rank 0 makes the plan, keeps the manifest and
// hands out work (scheduler.hpp) from a thread of its own; every rank,
// rank 0 included, solves what it is given: whole materials, several at once,
// or its share of a big material in a team (MpiTeam). The tables are the
// ones the one-process build writes, byte for byte.
//
// A rank that fails stops the whole job (MPI_Abort) after saying why; a rank
// that dies is noticed by the launcher, which ends the job. Either way the
// manifest lists only tables written whole, and the same command resumes.
#pragma once

#include <optional>

#include "builder/driver/build_options.hpp"

namespace dtb::mpi {

// Whether an MPI launcher (mpiexec, mpirun, srun with PMI or PMIx) started
// this process: then `dtb build` runs distributed, even on one rank.
bool launched_by_mpi();

// Initialises MPI, builds on every rank of MPI_COMM_WORLD, finalises MPI.
// Rank 0 gets the report, the other ranks nothing. Throws std::runtime_error
// for problems found before the build starts on every rank alike; any later
// failure ends the job with a message and a non-zero status.
std::optional<BuildReport> build_tables(const BuildOptions& options);

}  // namespace dtb::mpi
