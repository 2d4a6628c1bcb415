// The multiply-and-shift division against the processor's divide instruction.
#include <gtest/gtest.h>

#include <random>

#include "probe/divisor.hpp"

namespace dtb {
namespace {

TEST(Divisor, AgreesWithHardwareDivision) {
    std::mt19937_64 rng(7);
    std::vector<std::uint64_t> divisors = {1, 2, 3, 4, 5, 7, 10, 1225, 35960, 230300, (1ULL << 32) - 1, 1ULL << 32,
                                           (1ULL << 63) - 1, 1ULL << 63, (1ULL << 63) + 1, ~0ULL - 1, ~0ULL};
    for (int k = 0; k < 200; ++k) divisors.push_back(rng() >> (rng() % 64) | 1);
    for (int k = 0; k < 50; ++k) divisors.push_back(std::uint64_t{1} << (rng() % 64));
    for (const std::uint64_t d : divisors) {
        const Divisor divisor(d);
        std::vector<std::uint64_t> numbers = {0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, ~0ULL, ~0ULL - 1, ~0ULL / d * d,
                                              ~0ULL / d * d - 1};
        for (int k = 0; k < 2000; ++k) numbers.push_back(rng() >> (rng() % 64));
        for (const std::uint64_t n : numbers) ASSERT_EQ(n / divisor, n / d) << n << " / " << d;
    }
}

}  // namespace
}  // namespace dtb
