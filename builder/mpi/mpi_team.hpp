// A team (builder/team/team.hpp) of MPI ranks: the ranks that solve one material
// together, on a communicator of their own. Every operation is non-blocking
// underneath and waited on politely (a short spin, then sleeps growing to a
// millisecond), so that a rank waiting for its team leaves the processor to
// the threads of others sharing the node; the time spent waiting and the
// bytes moved are counted for the build's report.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <mpi.h>

#include "builder/team/team.hpp"

namespace dtb::mpi {

// What a rank's teams did, added up over a build.
struct TeamTraffic {
    std::uint64_t bytes_sent = 0;
    std::uint64_t bytes_received = 0;
    double wait_seconds = 0;
};

// Pauses between polls that found nothing, growing while nothing comes:
// from `shortest`, doubling up to `longest`; reset() once a poll found
// something. Every pause wakes a thread again, and on a rank of one thread
// each wakeup interrupts its solve (docs/scaling.md, "Ranks against one
// process"), so a poll that keeps finding nothing waits longer.
class Backoff {
public:
    using Pause = std::chrono::microseconds;
    Backoff(Pause shortest, Pause longest) noexcept : shortest_(shortest), longest_(longest), next_(shortest) {}
    void pause() {
        std::this_thread::sleep_for(next_);
        next_ = std::min(longest_, next_ * 2);
    }
    void reset() noexcept { next_ = shortest_; }

private:
    Pause shortest_, longest_, next_;
};

// Waits for `request` to complete without holding a processor; returns the seconds waited.
double wait_politely(MPI_Request& request);

// Throws std::runtime_error naming `what` if an MPI call failed.
void check(int status, const char* what);

// A message with `tag` from rank `from` (or MPI_ANY_SOURCE) on `comm`,
// received whole if one has come: its sender and its bytes (Buffer:
// std::string or std::vector<std::byte>).
template <class Buffer = std::string>
std::optional<std::pair<int, Buffer>> try_receive(MPI_Comm comm, int from, int tag) {
    int found = 0;
    MPI_Message message;
    MPI_Status status;
    check(MPI_Improbe(from, tag, comm, &found, &message, &status), "MPI_Improbe");
    if (!found) return std::nullopt;
    int count = 0;
    check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
    Buffer data(static_cast<std::size_t>(count), typename Buffer::value_type{});
    check(MPI_Mrecv(data.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE), "MPI_Mrecv");
    return std::pair{status.MPI_SOURCE, std::move(data)};
}

// The same, waiting for the message (probing after sleeps of 100 µs
// growing to a millisecond).
template <class Buffer = std::string>
std::pair<int, Buffer> receive_whole(MPI_Comm comm, int from, int tag) {
    Backoff backoff(std::chrono::microseconds(100), std::chrono::microseconds(1000));
    for (;;) {
        if (auto message = try_receive<Buffer>(comm, from, tag)) return std::move(*message);
        backoff.pause();
    }
}

class MpiTeam final : public Team {
public:
    // `comm` holds exactly the team's ranks, in member order.
    MpiTeam(MPI_Comm comm, TeamTraffic& traffic);

    int rank() const noexcept override { return rank_; }
    int size() const noexcept override { return size_; }
    void all_to_all(std::span<const std::byte> data, std::span<const std::size_t> counts, Received& into) override;
    void all_gather(std::byte* data, std::span<const std::size_t> offsets, std::span<const std::size_t> counts) override;
    std::uint64_t all_max(std::uint64_t value) override { return reduce(value, MPI_MAX); }
    std::uint64_t all_sum(std::uint64_t value) override { return reduce(value, MPI_SUM); }
    void send(int to, std::span<const std::byte> data) override;
    std::vector<std::byte> receive(int from) override;
    void waited(double seconds) override { traffic_.wait_seconds += seconds; }

private:
    std::uint64_t reduce(std::uint64_t value, MPI_Op op);
    // Counts a wait of the thread that made the team (Team::waited()).
    void count_wait(double seconds) {
        if (std::this_thread::get_id() == owner_) traffic_.wait_seconds += seconds;
    }

    MPI_Comm comm_;
    TeamTraffic& traffic_;
    std::vector<int> send_counts_, send_offsets_, receive_counts_, receive_offsets_;
    int rank_ = 0;
    int size_ = 1;
    std::thread::id owner_ = std::this_thread::get_id();
};

}  // namespace dtb::mpi
