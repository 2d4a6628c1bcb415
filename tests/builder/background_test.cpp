// The thread beside a team member's solving (builder/solver/background.hpp):
// one thread does every piece of work given it, in turn; a failure comes
// back to the caller that waits and leaves the thread serving; work not
// waited for is waited for as its scope ends, so it never outlives what it
// uses; work given while some runs, or waited for twice, is refused.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "builder/solver/background.hpp"

namespace dtb {
namespace {

// Whether the thread still does the work it is given.
void expect_serving(Background& background) {
    int value = 0;
    background.start([&] { value = 7; }).wait();
    EXPECT_EQ(value, 7);
}

TEST(Background, OneThreadDoesEveryPieceInTurn) {
    Background background;
    std::vector<int> done;
    std::optional<std::thread::id> thread;
    bool one_thread = true;
    for (int i = 0; i < 200; ++i) {
        Background::Work work = background.start([&, i] {
            if (thread && *thread != std::this_thread::get_id()) one_thread = false;
            thread = std::this_thread::get_id();
            done.push_back(i);
        });
        EXPECT_GE(work.wait(), 0.0);
    }
    EXPECT_TRUE(one_thread);
    ASSERT_TRUE(thread.has_value());
    EXPECT_NE(*thread, std::this_thread::get_id());
    ASSERT_EQ(done.size(), 200u);
    for (int i = 0; i < 200; ++i) EXPECT_EQ(done[i], i);
}

TEST(Background, AFailureComesBackAndTheThreadServesOn) {
    Background background;
    Background::Work failing = background.start([] { throw std::runtime_error("the exchange failed"); });
    EXPECT_THROW(
        {
            try {
                failing.wait();
            } catch (const std::runtime_error& e) {
                EXPECT_STREQ(e.what(), "the exchange failed");
                throw;
            }
        },
        std::runtime_error);
    expect_serving(background);
    EXPECT_THROW((void)failing.wait(), std::logic_error);  // waited for once already
}

TEST(Background, WorkNotWaitedForEndsWithItsScope) {
    Background background;
    std::atomic<bool> ended{false};
    try {
        std::vector<int> used(1000, 1);  // what the work reads, gone once the scope is left
        Background::Work work = background.start([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            long sum = 0;
            for (const int x : used) sum += x;
            ended = sum == 1000;
        });
        throw std::runtime_error("the caller's side failed");
    } catch (const std::runtime_error&) {
        EXPECT_TRUE(ended.load());  // waited for before `used` went
    }
    // Its failure, where the scope ends without waiting, is dropped there.
    {
        Background::Work work = background.start([] { throw std::runtime_error("dropped"); });
    }
    expect_serving(background);
}

TEST(Background, WorkGivenWhileSomeRunsIsRefused) {
    Background background;
    std::atomic<bool> release{false};
    Background::Work running = background.start([&] {
        while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    EXPECT_THROW((void)background.start([] {}), std::logic_error);
    release = true;
    running.wait();
}

}  // namespace
}  // namespace dtb
