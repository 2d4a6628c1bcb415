#include "probe/block_cache.hpp"

namespace dtb {

static_assert(BlockCache::shard_count == 64, "shard_of takes the top 6 bits of the hash");

BlockCache::BlockCache(std::size_t memory_limit)
    : shard_limit_(memory_limit / shard_count), generation_(new_generation()) {}

BlockCache::Recent& BlockCache::recent_blocks() noexcept {
    thread_local Recent recent;
    return recent;
}

std::uint64_t BlockCache::new_generation() noexcept {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
}

BlockCache::Block BlockCache::find(const Key& key) {
    Shard& s = shards_[shard_of(key)];
    std::lock_guard lock(s.mutex);
    const auto it = s.map.find(key);
    if (it == s.map.end()) {
        ++s.misses;
        return nullptr;
    }
    s.lru.splice(s.lru.begin(), s.lru, it->second);
    ++s.hits;
    return it->second->block;
}

BlockCache::Block BlockCache::insert(const Key& key, Block block) {
    Shard& s = shards_[shard_of(key)];
    std::lock_guard lock(s.mutex);
    if (const auto it = s.map.find(key); it != s.map.end()) {
        s.lru.splice(s.lru.begin(), s.lru, it->second);
        return it->second->block;
    }
    s.bytes += block->size();
    s.lru.push_front({key, std::move(block)});
    s.map.emplace(key, s.lru.begin());
    while (s.bytes > shard_limit_ && s.lru.size() > 1) {
        const Entry& old = s.lru.back();
        s.bytes -= old.block->size();
        s.map.erase(old.key);
        s.lru.pop_back();
    }
    return s.lru.front().block;
}

BlockCache::Stats BlockCache::stats() const {
    Stats total;
    for (const Shard& s : shards_) {
        std::lock_guard lock(s.mutex);
        total.hits += s.hits;
        total.misses += s.misses;
        total.blocks += s.lru.size();
        total.bytes += s.bytes;
    }
    return total;
}

void BlockCache::clear() {
    generation_.store(new_generation(), std::memory_order_release);
    for (Shard& s : shards_) {
        std::lock_guard lock(s.mutex);
        s.map.clear();
        s.lru.clear();
        s.bytes = 0;
    }
}

}  // namespace dtb
