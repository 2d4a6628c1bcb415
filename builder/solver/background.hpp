// Work on a thread of its own beside a team member's solving (team_level.hpp).
#pragma once

#include <chrono>
#include <exception>
#include <thread>
#include <utility>

namespace dtb {

// Work on a thread of its own while the caller goes on: a team member's
// exchanges beside its solving (TeamMember: the results and fetched blocks
// of the stages next to the one being solved, a split queue's batch of
// updates while the next is worked). Only that thread talks to the team
// meanwhile, so the collectives keep their order. Its waits are polite
// (MPI's tests with sleeps between), so it takes little processor time.
class Background {
public:
    template <class F>
    explicit Background(F&& f)
        : thread_([this, f = std::forward<F>(f)]() mutable {
              try {
                  f();
              } catch (...) {
                  failure_ = std::current_exception();
              }
          }) {}
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;
    ~Background() {
        if (thread_.joinable()) thread_.join();
    }

    // Waits for the work to end and rethrows what it threw; the seconds waited.
    double wait() {
        const auto start = std::chrono::steady_clock::now();
        thread_.join();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (failure_) std::rethrow_exception(failure_);
        return seconds;
    }

private:
    std::exception_ptr failure_;  // before thread_, which may set it as soon as it starts
    std::thread thread_;
};
}  // namespace dtb
