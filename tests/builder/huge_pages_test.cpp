// Arrays mapped on their own for huge pages: they start at a huge page, read
// as zeros, hold what is written to the last byte, are counted while mapped,
// and small ones come from the heap.
#include "builder/system/huge_pages.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

using namespace dtb;

TEST(HugePages, LargeArraysAreMappedAtAHugePageAndCounted) {
    if (!huge_pages_mapped) GTEST_SKIP() << "every array comes from the heap in this build";
    const std::uint64_t before = huge_paged_bytes();
    {
        const std::size_t n = 3 * huge_page_bytes / sizeof(std::uint16_t) + 12345;  // a partial huge page at the end
        HugePagedVector<std::uint16_t> codes(n);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(codes.data()) % huge_page_bytes, 0u);
        EXPECT_GE(huge_paged_bytes() - before, n * sizeof(std::uint16_t));
        const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        EXPECT_LT(huge_paged_bytes() - before, n * sizeof(std::uint16_t) + page);
        for (std::size_t i = 0; i < n; i += 997) EXPECT_EQ(codes[i], 0);
        EXPECT_EQ(codes[n - 1], 0);
        for (std::size_t i = 0; i < n; ++i) codes[i] = static_cast<std::uint16_t>(i * 7);
        HugePagedVector<std::uint16_t> copy = codes;
        codes.resize(2 * n);  // mapped anew, the values moved
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(codes[i], static_cast<std::uint16_t>(i * 7));
        EXPECT_EQ(codes[2 * n - 1], 0);
        EXPECT_TRUE(std::equal(copy.begin(), copy.end(), codes.begin()));
    }
    EXPECT_EQ(huge_paged_bytes(), before);
}

TEST(HugePages, SmallArraysComeFromTheHeap) {
    const std::uint64_t before = huge_paged_bytes();
    HugePagedVector<std::uint64_t> words(huge_page_bytes / sizeof(std::uint64_t) - 1, 5);
    EXPECT_EQ(huge_paged_bytes(), before);
    EXPECT_EQ(words.back(), 5u);
}
