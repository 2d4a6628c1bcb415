// A cache of decompressed table blocks shared by every thread that probes
// (DESIGN.md §8). It is cut into shards, each with its own mutex, least
// recently used list and share of the memory limit, so that threads probing
// different blocks rarely wait for each other. A block is read under its
// shard's lock (reading one value takes nanoseconds) and decompressed
// outside it, so a slow load never blocks the other blocks of the shard.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

namespace dtb {

class BlockCache {
public:
    struct Key {
        std::uint32_t table = 0;  // a number the owner gives each open file
        std::uint64_t block = 0;
        friend bool operator==(const Key&, const Key&) = default;
    };

    struct Stats {
        std::uint64_t hits = 0;
        std::uint64_t misses = 0;
        std::size_t blocks = 0;
        std::size_t bytes = 0;
    };

    static constexpr int shard_count = 64;

    // At most `memory_limit` bytes of blocks are kept, except that every shard
    // keeps its most recent block: the floor is shard_count blocks.
    explicit BlockCache(std::size_t memory_limit);

    std::size_t memory_limit() const noexcept { return memory_limit_; }

    // Calls use(std::span<const std::byte>) on the block `key` and returns its
    // result. A block not in the cache is made by load(std::span<std::byte>)
    // into `bytes` bytes first; if load throws, nothing is cached.
    template <class Load, class Use>
    decltype(auto) with_block(Key key, std::size_t bytes, Load&& load, Use&& use) {
        Shard& s = shards_[shard_of(key)];
        {
            std::lock_guard lock(s.mutex);
            if (auto it = s.map.find(key); it != s.map.end()) {
                s.lru.splice(s.lru.begin(), s.lru, it->second);
                ++s.hits;
                return use(std::span<const std::byte>(it->second->data));
            }
            ++s.misses;
        }
        std::vector<std::byte> data(bytes);
        load(std::span<std::byte>(data));
        std::lock_guard lock(s.mutex);
        return use(std::span<const std::byte>(insert(s, key, std::move(data))));
    }

    Stats stats() const;
    // Drops every block (the next probes decompress again).
    void clear();

private:
    struct Entry {
        Key key;
        std::vector<std::byte> data;
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const noexcept {
            return static_cast<std::size_t>((k.block ^ (std::uint64_t{k.table} << 40)) * 0x9E3779B97F4A7C15ULL);
        }
    };
    struct alignas(64) Shard {
        mutable std::mutex mutex;
        std::list<Entry> lru;  // most recent first
        std::unordered_map<Key, std::list<Entry>::iterator, KeyHash> map;
        std::size_t bytes = 0;
        std::uint64_t hits = 0;
        std::uint64_t misses = 0;
    };

    static std::size_t shard_of(const Key& k) noexcept { return KeyHash{}(k) >> 58; }
    // With the shard locked: the block's bytes, cached now unless another thread was first.
    const std::vector<std::byte>& insert(Shard& s, const Key& key, std::vector<std::byte> data);

    std::size_t memory_limit_;
    std::size_t shard_limit_;
    std::array<Shard, shard_count> shards_;
};

}  // namespace dtb
