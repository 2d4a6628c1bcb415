// A team (builder/team/team.hpp) whose members are threads of one process: the
// distributed solver checked without MPI, under the sanitizers too. A member
// that throws breaks the team, so that the others stop waiting and the test
// fails instead of hanging.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "builder/team/team.hpp"

namespace dtb::test {

class ThreadTeams {
public:
    // Runs f(team) on `members` threads, one member each; rethrows the first exception.
    static void run(int members, const std::function<void(Team&)>& f) {
        Hub hub(members);
        std::vector<std::thread> threads;
        std::exception_ptr failure;
        std::mutex failure_mutex;
        for (int m = 0; m < members; ++m)
            threads.emplace_back([&, m] {
                Member team(hub, m);
                try {
                    f(team);
                } catch (...) {
                    {
                        const std::lock_guard lock(failure_mutex);
                        if (!failure) failure = std::current_exception();
                    }
                    hub.fail();
                }
            });
        for (std::thread& t : threads) t.join();
        if (failure) std::rethrow_exception(failure);
    }

private:
    struct Broken : std::runtime_error {
        Broken() : std::runtime_error("another member of the team failed") {}
    };

    struct Hub {
        explicit Hub(int members)
            : members(members),
              board(members, std::vector<std::vector<std::byte>>(members)),
              numbers(members),
              mail(members * members) {}

        // Waits until every member has arrived (a reusable barrier).
        void arrive() {
            std::unique_lock lock(mutex);
            if (broken) throw Broken();
            const std::uint64_t generation = passed;
            if (++arrived == members) {
                arrived = 0;
                ++passed;
                wake.notify_all();
                return;
            }
            wake.wait(lock, [&] { return passed != generation || broken; });
            if (passed == generation) throw Broken();
        }
        void fail() {
            const std::lock_guard lock(mutex);
            broken = true;
            wake.notify_all();
        }

        int members;
        std::vector<std::vector<std::vector<std::byte>>> board;  // [from][to]
        std::vector<std::uint64_t> numbers;
        std::vector<std::deque<std::vector<std::byte>>> mail;  // [from * members + to]
        std::mutex mutex;
        std::condition_variable wake;
        int arrived = 0;
        std::uint64_t passed = 0;
        bool broken = false;
    };

    class Member final : public Team {
    public:
        Member(Hub& hub, int me) : hub_(hub), me_(me) {}
        int rank() const noexcept override { return me_; }
        int size() const noexcept override { return hub_.members; }

        void all_to_all(std::span<const std::byte> data, std::span<const std::size_t> counts,
                        Received& into) override {
            std::size_t at = 0;
            for (int j = 0; j < hub_.members; ++j) {
                hub_.board[me_][j].assign(data.begin() + static_cast<std::ptrdiff_t>(at),
                                          data.begin() + static_cast<std::ptrdiff_t>(at + counts[j]));
                at += counts[j];
            }
            hub_.arrive();
            into.offsets.assign(1, 0);
            for (int j = 0; j < hub_.members; ++j) into.offsets.push_back(into.offsets.back() + hub_.board[j][me_].size());
            into.bytes.resize(into.offsets.back());
            for (int j = 0; j < hub_.members; ++j)
                std::copy(hub_.board[j][me_].begin(), hub_.board[j][me_].end(), into.bytes.data() + into.offsets[j]);
            hub_.arrive();  // nobody writes the board again before everyone has read it
        }
        void all_gather(std::byte* data, std::span<const std::size_t> offsets,
                        std::span<const std::size_t> counts) override {
            hub_.board[me_][me_].assign(data + offsets[me_], data + offsets[me_] + counts[me_]);
            hub_.arrive();
            for (int j = 0; j < hub_.members; ++j)
                if (j != me_) std::copy(hub_.board[j][j].begin(), hub_.board[j][j].end(), data + offsets[j]);
            hub_.arrive();
        }
        std::uint64_t all_max(std::uint64_t value) override {
            return reduce(value, [](std::uint64_t a, std::uint64_t b) { return std::max(a, b); });
        }
        std::uint64_t all_sum(std::uint64_t value) override {
            return reduce(value, [](std::uint64_t a, std::uint64_t b) { return a + b; });
        }
        void send(int to, std::span<const std::byte> data) override {
            const std::lock_guard lock(hub_.mutex);
            hub_.mail[me_ * hub_.members + to].emplace_back(data.begin(), data.end());
            hub_.wake.notify_all();
        }
        std::vector<std::byte> receive(int from) override {
            std::unique_lock lock(hub_.mutex);
            auto& box = hub_.mail[from * hub_.members + me_];
            hub_.wake.wait(lock, [&] { return !box.empty() || hub_.broken; });
            if (box.empty()) throw Broken();
            std::vector<std::byte> message = std::move(box.front());
            box.pop_front();
            return message;
        }

    private:
        template <class Op>
        std::uint64_t reduce(std::uint64_t value, Op op) {
            hub_.numbers[me_] = value;
            hub_.arrive();
            std::uint64_t result = hub_.numbers[0];
            for (int j = 1; j < hub_.members; ++j) result = op(result, hub_.numbers[j]);
            hub_.arrive();
            return result;
        }

        Hub& hub_;
        int me_;
    };
};

}  // namespace dtb::test
