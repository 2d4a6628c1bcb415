#include "builder/mpi/mpi_team.hpp"

#include <chrono>
#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace dtb::mpi {

namespace {

constexpr int block_tag = 7;  // the point-to-point messages of a team (its blocks for the writer)

int as_count(std::size_t bytes) {
    if (bytes > static_cast<std::size_t>(INT_MAX))
        throw std::logic_error("a team message of " + std::to_string(bytes) + " bytes is more than MPI counts in an int");
    return static_cast<int>(bytes);
}

}  // namespace

void check(int status, const char* what) {
    if (status == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(status, text, &length);
    throw std::runtime_error(std::string(what) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

double wait_politely(MPI_Request& request) {
    const auto start = std::chrono::steady_clock::now();
    Backoff backoff(std::chrono::microseconds(20), std::chrono::microseconds(1000));
    for (int done = 0;;) {  // a spin of 50 µs first
        check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
        if (done) break;
        if (std::chrono::steady_clock::now() - start >= std::chrono::microseconds(50)) backoff.pause();
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

MpiTeam::MpiTeam(MPI_Comm comm, TeamTraffic& traffic) : comm_(comm), traffic_(traffic) {
    check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

void MpiTeam::all_to_all(std::span<const std::byte> data, std::span<const std::size_t> counts, Received& into) {
    send_counts_.resize(size_);
    send_offsets_.resize(size_);
    receive_counts_.resize(size_);
    receive_offsets_.resize(size_);
    std::size_t at = 0;
    for (int j = 0; j < size_; ++j) {
        send_counts_[j] = as_count(counts[j]);
        send_offsets_[j] = as_count(at);
        at += counts[j];
    }
    MPI_Request request;
    check(MPI_Ialltoall(send_counts_.data(), 1, MPI_INT, receive_counts_.data(), 1, MPI_INT, comm_, &request),
          "MPI_Ialltoall");
    count_wait(wait_politely(request));
    into.offsets.assign(1, 0);
    for (int j = 0; j < size_; ++j) {
        receive_offsets_[j] = as_count(into.offsets.back());
        into.offsets.push_back(into.offsets.back() + static_cast<std::size_t>(receive_counts_[j]));
    }
    into.bytes.resize(into.offsets.back());
    check(MPI_Ialltoallv(data.data(), send_counts_.data(), send_offsets_.data(), MPI_BYTE, into.bytes.data(),
                         receive_counts_.data(), receive_offsets_.data(), MPI_BYTE, comm_, &request),
          "MPI_Ialltoallv");
    count_wait(wait_politely(request));
    traffic_.bytes_sent += at - counts[rank_];
    traffic_.bytes_received += into.offsets.back() - (into.offsets[rank_ + 1] - into.offsets[rank_]);
}

void MpiTeam::all_gather(std::byte* data, std::span<const std::size_t> offsets, std::span<const std::size_t> counts) {
    // A broadcast from each member, of its part, at most 1 GiB at a time:
    // MPI counts in ints, and the parts of a big table lie gigabytes apart,
    // beyond what the int displacements of MPI_Allgatherv reach.
    constexpr std::size_t piece = std::size_t{1} << 30;
    for (int j = 0; j < size_; ++j)
        for (std::size_t done = 0; done < counts[j]; done += piece) {
            const int n = as_count(std::min(piece, counts[j] - done));
            MPI_Request request;
            check(MPI_Ibcast(data + offsets[j] + done, n, MPI_BYTE, j, comm_, &request), "MPI_Ibcast");
            count_wait(wait_politely(request));
            if (j == rank_)
                traffic_.bytes_sent += static_cast<std::size_t>(n) * static_cast<std::size_t>(size_ - 1);
            else
                traffic_.bytes_received += static_cast<std::size_t>(n);
        }
}

std::uint64_t MpiTeam::reduce(std::uint64_t value, MPI_Op op) {
    std::uint64_t result = 0;
    MPI_Request request;
    check(MPI_Iallreduce(&value, &result, 1, MPI_UINT64_T, op, comm_, &request), "MPI_Iallreduce");
    count_wait(wait_politely(request));
    return result;
}

void MpiTeam::send(int to, std::span<const std::byte> data) {
    MPI_Request request;
    check(MPI_Isend(data.data(), as_count(data.size()), MPI_BYTE, to, block_tag, comm_, &request), "MPI_Isend");
    count_wait(wait_politely(request));
    traffic_.bytes_sent += data.size();
}

std::vector<std::byte> MpiTeam::receive(int from) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::byte> data = receive_whole<std::vector<std::byte>>(comm_, from, block_tag).second;
    count_wait(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    traffic_.bytes_received += data.size();
    return data;
}

}  // namespace dtb::mpi
