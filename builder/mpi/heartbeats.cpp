#include "builder/mpi/heartbeats.hpp"

#include <optional>
#include <utility>

#include <fmt/core.h>

#include "builder/mpi/mpi_team.hpp"

namespace dtb::mpi {

namespace {

constexpr int beat_tag = 1;
// How often the thread wakes to take the beats that came and look at the time.
constexpr auto look = std::chrono::milliseconds(100);

}  // namespace

Heartbeats::Heartbeats(MPI_Comm comm, std::vector<int> peers, std::vector<std::string> hosts,
                       Clock::duration timeout, Clock::duration grace, Report report, End end)
    : comm_(comm),
      peers_(std::move(peers)),
      hosts_(std::move(hosts)),
      timeout_(timeout),
      grace_(grace),
      report_(std::move(report)),
      end_(std::move(end)) {
    thread_ = std::thread([this] { run(); });
}

void Heartbeats::stop() {
    stopping_ = true;
    if (thread_.joinable()) thread_.join();
}

void Heartbeats::run() try {
    std::vector<Clock::time_point> heard(hosts_.size(), Clock::now());
    Clock::time_point next = Clock::now();  // when the next beats go
    std::optional<Clock::time_point> end;   // when the job is ended, once a peer is lost
    while (!stopping_) {
        const Clock::time_point now = Clock::now();
        if (now >= next) {
            next = now + interval;
            for (int peer : peers_) {
                // Empty, and let go at once: MPI completes the send when it
                // can (never, for a peer that is lost).
                MPI_Request request;
                check(MPI_Isend(nullptr, 0, MPI_BYTE, peer, beat_tag, comm_, &request), "MPI_Isend");
                check(MPI_Request_free(&request), "MPI_Request_free");
            }
        }
        while (const auto message = try_receive(comm_, MPI_ANY_SOURCE, beat_tag))
            heard[static_cast<std::size_t>(message->first)] = now;
        if (end && now >= *end) {
            end_();
            return;
        }
        for (int peer : peers_)
            if (const Clock::duration silent = now - heard[static_cast<std::size_t>(peer)]; !end && silent > timeout_) {
                report_(fmt::format("rank {} on host {} is lost: not heard from for {:.1f} s (--rank-timeout {:g}); "
                                    "its node or its network is down. The tables finished so far are kept: start "
                                    "the same build again on the hosts that remain and it resumes",
                                    peer, hosts_[static_cast<std::size_t>(peer)],
                                    std::chrono::duration<double>(silent).count(),
                                    std::chrono::duration<double>(timeout_).count()));
                end = now + grace_;
            }
        std::this_thread::sleep_for(look);
    }
} catch (const std::exception& e) {
    report_(e.what());
    end_();
}

}  // namespace dtb::mpi
