// Solved tables passed between the ranks of a distributed build: a rank that
// needs a table, or a range of one, that another rank keeps in memory (it
// solved the table alone, or its range of it in a team) asks that rank for
// it (two bytes and a bit a position over the network) instead of reading
// it back from its file, which costs a solve of its capture positions again.
// The holder's main thread answers between its other messages, while its
// threads go on solving.
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <vector>

#include <mpi.h>

#include "builder/solved_values.hpp"
#include "builder/values_cache.hpp"

namespace dtb::mpi {

class TableExchange {
public:
    // `comm` is this exchange's own copy of MPI_COMM_WORLD; `cache` the tables this rank holds.
    TableExchange(MPI_Comm comm, ValuesCache& cache) : comm_(comm), cache_(cache) {}
    TableExchange(const TableExchange&) = delete;
    TableExchange& operator=(const TableExchange&) = delete;

    // The main thread: answers the requests that came in and tends the sends
    // under way; returns whether it did anything.
    bool serve();
    // Waits for the sends under way to end (before the rank stops).
    void finish();

    // Positions [first, first + count) of table `into.material` from rank
    // `holder`, into `into` (which holds them; first a multiple of 64):
    // false if the holder no longer has them. Any thread.
    bool fetch(int holder, std::uint64_t first, std::uint64_t count, SolvedValues& into);

    std::uint64_t bytes_sent() const noexcept { return sent_; }
    std::uint64_t bytes_received() const noexcept { return received_; }

private:
    // A table being sent: kept alive until its messages are delivered.
    struct Sending {
        std::shared_ptr<const SolvedValues> values;
        std::vector<MPI_Request> requests;
    };

    MPI_Comm comm_;
    ValuesCache& cache_;
    std::list<Sending> sending_;  // the main thread's only
    std::atomic<int> next_tag_{0};
    std::atomic<std::uint64_t> sent_{0}, received_{0};
};

}  // namespace dtb::mpi
