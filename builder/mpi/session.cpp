#include "builder/mpi/session.hpp"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <fmt/core.h>

#include "builder/mpi/mpi_team.hpp"

namespace dtb::mpi {

Session::Session() {
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
    if (provided < MPI_THREAD_MULTIPLE) {
        MPI_Finalize();
        throw std::runtime_error("the MPI library does not support MPI_THREAD_MULTIPLE, which dtb build needs "
                                 "(rank 0 coordinates from a thread of its own): use Open MPI 3 or later");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &coordination);
    MPI_Comm_dup(MPI_COMM_WORLD, &teams);
    MPI_Comm_dup(MPI_COMM_WORLD, &tables);
    MPI_Comm_dup(MPI_COMM_WORLD, &heartbeats);
    // Each rank's host, for the messages that name one.
    std::vector<char> names(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME, '\0');
    int length = 0;
    MPI_Get_processor_name(names.data() + static_cast<std::size_t>(rank) * MPI_MAX_PROCESSOR_NAME, &length);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r)
        hosts.emplace_back(names.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &ranks_on_node);
    MPI_Comm_free(&node);
}

Session::~Session() {
    MPI_Comm_free(&heartbeats);
    MPI_Comm_free(&tables);
    MPI_Comm_free(&teams);
    MPI_Comm_free(&coordination);
    MPI_Finalize();
}

void report_failure(const std::string& what) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fmt::print(stderr, "dtb: error (rank {} of {}): {}\n", rank, size, what);
    std::fflush(stderr);
}

[[noreturn]] void abort_job() {
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();
}

[[noreturn]] void fail(const std::string& what) {
    report_failure(what);
    abort_job();
}

void send_text(MPI_Comm comm, int to, int tag, const std::string& text) {
    check(MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, tag, comm), "MPI_Send");
}

}  // namespace dtb::mpi
