// MPI for the length of a distributed build (docs/design.md, "Distributed
// build"): the session every rank opens, and how a rank says it failed and
// ends the job. Only builder/mpi/ uses MPI.
#pragma once

#include <string>
#include <vector>

#include <mpi.h>

namespace dtb::mpi {

// Initialised with threads (rank 0 has a coordinating thread besides its
// worker), private copies of MPI_COMM_WORLD (the coordinator's messages,
// the teams made from it, tables passed between ranks, heartbeats), each
// rank's host and the ranks that share this node. Finalises MPI when it ends.
struct Session {
    Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
    ~Session();

    int rank = 0;
    int size = 1;
    int ranks_on_node = 1;
    MPI_Comm coordination = MPI_COMM_NULL;
    MPI_Comm teams = MPI_COMM_NULL;
    MPI_Comm tables = MPI_COMM_NULL;
    MPI_Comm heartbeats = MPI_COMM_NULL;
    std::vector<std::string> hosts;  // by rank
};

// Prints `what` as this rank's failure ("dtb: error (rank r of R): ...").
void report_failure(const std::string& what);

// Ends the whole job (MPI_Abort).
[[noreturn]] void abort_job();

// Prints `what` as this rank's failure and ends the whole job.
[[noreturn]] void fail(const std::string& what);

// Sends `text` to rank `to` of `comm` with `tag` (blocking).
void send_text(MPI_Comm comm, int to, int tag, const std::string& text);

}  // namespace dtb::mpi
