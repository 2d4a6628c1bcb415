// Work on a thread of its own beside a team member's solving (team_level.hpp).
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

namespace dtb {

// A thread of its own that does one piece of work at a time while the
// caller goes on: a team member's exchanges beside its solving
// (TeamMember: the results and fetched blocks of the stages next to the
// one being solved; a split queue's batch of updates while the next is
// worked). One thread serves a member's whole material (TeamBuffers): a
// thread started for each piece would cost its start and the release of
// its stack's pages, some 2,000 times a rank on Brazilian up to 5 with
// every material on a team of 3 (docs/scaling.md). Only that thread talks
// to the team meanwhile, so the collectives keep their order. Its waits are
// polite (MPI's tests with sleeps between), so it takes little processor
// time.
class Background {
public:
    // Work started: waited for by wait(), or else, its failure ignored,
    // when it goes out of scope (an exception on the caller's side), since
    // the work may use what that scope holds.
    class Work {
    public:
        explicit Work(Background& owner) noexcept : owner_(&owner) {}
        Work(Work&& other) noexcept : owner_(std::exchange(other.owner_, nullptr)) {}
        Work& operator=(Work&&) = delete;
        ~Work() {
            if (owner_) owner_->finish(false);
        }

        // Waits for the work to end and rethrows what it threw; the seconds waited.
        double wait() {
            if (!owner_) throw std::logic_error("background work waited for twice, or after it was moved");
            const auto start = std::chrono::steady_clock::now();
            std::exchange(owner_, nullptr)->finish(true);
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }

    private:
        Background* owner_;
    };

    Background() : thread_([this] { serve(); }) {}
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;
    ~Background() {
        {
            const std::lock_guard lock(mutex_);
            stop_ = true;
        }
        changed_.notify_all();
        thread_.join();
    }

    // Starts f() on the thread, which must have no work.
    [[nodiscard]] Work start(std::function<void()> f) {
        {
            const std::lock_guard lock(mutex_);
            if (!done_) throw std::logic_error("work given to a background thread that has some");
            work_ = std::move(f);
            done_ = false;
        }
        changed_.notify_all();
        return Work(*this);
    }

private:
    void serve() {
        std::unique_lock lock(mutex_);
        for (;;) {
            changed_.wait(lock, [&] { return stop_ || work_; });
            if (!work_) return;
            std::function<void()> f = std::move(work_);
            work_ = nullptr;
            lock.unlock();
            std::exception_ptr failure;
            try {
                f();
            } catch (...) {
                failure = std::current_exception();
            }
            f = nullptr;  // what it holds, released before the caller goes on
            lock.lock();
            failure_ = failure;
            done_ = true;
            changed_.notify_all();
        }
    }

    // Waits for the work to end; rethrows its failure if `rethrow`.
    void finish(bool rethrow) {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return done_; });
        const std::exception_ptr failure = std::exchange(failure_, nullptr);
        if (failure && rethrow) std::rethrow_exception(failure);
    }

    std::mutex mutex_;
    std::condition_variable changed_;
    std::function<void()> work_;  // given and not yet taken up by the thread, else null
    bool done_ = true;            // no work given or running: none given, or the last one ended
    bool stop_ = false;
    std::exception_ptr failure_;
    std::thread thread_;  // last, so that it starts with the rest made
};

}  // namespace dtb
