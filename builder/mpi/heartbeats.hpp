// Noticing a rank that is lost. A node that dies or whose network is cut
// does not end an MPI job by itself: its peers' messages wait in TCP
// retransmission, and Open MPI's daemons notice only when their keepalives
// run out (eight minutes by default). So a distributed build keeps a pulse
// of its own: rank 0 and every other rank send each other an empty message
// once a second, from a thread of their own on a communicator of their own,
// and a peer silent for longer than the timeout (`--rank-timeout`) is taken
// as lost. Sends are never waited on, so a peer that cannot be reached
// cannot hold up the one that notices it, and the thread beats whatever the
// rank's other threads are blocked in.
//
// A loss is reported at once, and the job ended after `grace`, the beats
// going on meanwhile (a rank that stopped beating would look lost to the
// others). Rank 0 gives the launcher time to end the job first: a launcher
// asked to abort kills every rank through its daemons, and a daemon that
// cannot be reached holds it up until TCP gives up on it, a quarter of an
// hour; left alone, the launcher notices the daemon lost (Open MPI's
// keepalives, Slurm's node checks: cluster/README.md) and ends the job
// itself. Rank 0's own end after the grace is for a peer that is stuck on a
// node that still answers. A rank that loses rank 0 has nothing left to do
// and ends at once.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <mpi.h>

namespace dtb::mpi {

class Heartbeats {
public:
    using Clock = std::chrono::steady_clock;
    // Called on the beating thread: report(what) with what went wrong (a
    // peer lost, with its rank and host; or an MPI call that failed), then
    // end() to end the job, after the grace for a lost peer.
    using Report = std::function<void(const std::string& what)>;
    using End = std::function<void()>;

    static constexpr Clock::duration interval = std::chrono::seconds(1);

    // Beats with `peers` (ranks of `comm`, which the beats have to
    // themselves; hosts[r] is where rank r runs) from now until stop().
    Heartbeats(MPI_Comm comm, std::vector<int> peers, std::vector<std::string> hosts, Clock::duration timeout,
               Clock::duration grace, Report report, End end);
    Heartbeats(const Heartbeats&) = delete;
    Heartbeats& operator=(const Heartbeats&) = delete;
    ~Heartbeats() { stop(); }

    // Ends the beats (and the watching) and joins the thread.
    void stop();

private:
    void run();

    MPI_Comm comm_;
    std::vector<int> peers_;
    std::vector<std::string> hosts_;
    Clock::duration timeout_;
    Clock::duration grace_;
    Report report_;
    End end_;
    std::atomic<bool> stopping_{false};
    std::thread thread_;
};

}  // namespace dtb::mpi
