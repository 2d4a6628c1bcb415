#include "probe/block_cache.hpp"

namespace dtb {

static_assert(BlockCache::shard_count == 64, "shard_of takes the top 6 bits of the hash");

BlockCache::BlockCache(std::size_t memory_limit)
    : memory_limit_(memory_limit), shard_limit_(memory_limit / shard_count) {}

const std::vector<std::byte>& BlockCache::insert(Shard& s, const Key& key, std::vector<std::byte> data) {
    if (auto it = s.map.find(key); it != s.map.end()) {
        s.lru.splice(s.lru.begin(), s.lru, it->second);
        return it->second->data;
    }
    s.bytes += data.size();
    s.lru.push_front({key, std::move(data)});
    s.map.emplace(key, s.lru.begin());
    while (s.bytes > shard_limit_ && s.lru.size() > 1) {
        const Entry& old = s.lru.back();
        s.bytes -= old.data.size();
        s.map.erase(old.key);
        s.lru.pop_back();
    }
    return s.lru.front().data;
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
    for (Shard& s : shards_) {
        std::lock_guard lock(s.mutex);
        s.map.clear();
        s.lru.clear();
        s.bytes = 0;
    }
}

}  // namespace dtb
