// The block cache on its own: hits, the memory limit, eviction of the least
// recently used block, loads that fail, and clear().
#include <gtest/gtest.h>

#include <stdexcept>

#include "probe/block_cache.hpp"

namespace dtb {
namespace {

// Keys that fall in one shard, so that one shard's share of the limit is tested.
std::vector<BlockCache::Key> keys_of_one_shard(int count) {
    std::vector<BlockCache::Key> keys;
    const std::size_t shard = BlockCache::shard_of({0, 0});
    for (std::uint64_t b = 0; static_cast<int>(keys.size()) < count; ++b)
        if (BlockCache::shard_of({0, b}) == shard) keys.push_back({0, b});
    return keys;
}

TEST(BlockCache, LoadsOnceThenHits) {
    BlockCache cache(1 << 20);
    int loads = 0;
    for (int i = 0; i < 3; ++i) {
        const auto first = cache.with_block(
            {1, 7}, 16, [&](std::span<std::byte> out) { ++loads, out[0] = std::byte{42}; },
            [](std::span<const std::byte> in) { return std::to_integer<int>(in[0]); });
        EXPECT_EQ(first, 42);
    }
    EXPECT_EQ(loads, 1);
}

TEST(BlockCache, KeepsOneShardWithinItsShareAndEvictsTheOldest) {
    // 64 shards of 1 KiB each; blocks of 400 bytes: a shard keeps two.
    BlockCache cache(64 << 10);
    const auto keys = keys_of_one_shard(3 + BlockCache::recent_per_thread);
    int loads = 0;
    auto touch = [&](const BlockCache::Key& k) {
        cache.with_block(
            k, 400, [&](std::span<std::byte>) { ++loads; }, [](std::span<const std::byte>) { return 0; });
    };
    touch(keys[0]);
    touch(keys[1]);
    touch(keys[2]);  // evicts keys[0], the least recently used
    EXPECT_EQ(cache.stats().blocks, 2u);
    EXPECT_EQ(cache.stats().bytes, 800u);
    // Push keys[0] out of this thread's recent blocks too, then ask for it again.
    for (int i = 3; i < 3 + BlockCache::recent_per_thread; ++i) touch(keys[i]);
    const int before = loads;
    touch(keys[0]);
    EXPECT_EQ(loads, before + 1);
}

TEST(BlockCache, FailedLoadCachesNothing) {
    BlockCache cache(1 << 20);
    auto fail = [](std::span<std::byte>) { throw std::runtime_error("damaged"); };
    EXPECT_THROW(cache.with_block({2, 3}, 8, fail, [](std::span<const std::byte>) { return 0; }), std::runtime_error);
    EXPECT_EQ(cache.stats().blocks, 0u);
    int loads = 0;
    cache.with_block(
        {2, 3}, 8, [&](std::span<std::byte>) { ++loads; }, [](std::span<const std::byte>) { return 0; });
    EXPECT_EQ(loads, 1);
}

TEST(BlockCache, ClearForgetsEveryBlockAlsoThoseOfThisThread) {
    BlockCache cache(1 << 20);
    int loads = 0;
    auto touch = [&] {
        cache.with_block(
            {0, 1}, 8, [&](std::span<std::byte>) { ++loads; }, [](std::span<const std::byte>) { return 0; });
    };
    touch();
    touch();
    cache.clear();
    touch();
    EXPECT_EQ(loads, 2);
}

}  // namespace
}  // namespace dtb
