// A cache of decompressed table blocks shared by every thread that probes
// (docs/probing.md says why it has this shape).
//
// Two levels. Each thread keeps its few most recent blocks (shared pointers)
// and reads them with no lock and no atomic operation. Behind that, a shared
// cache cut into shards, each with its own mutex, least-recently-used list and
// share of the memory limit, so that threads probing different blocks rarely
// wait for each other. A block missing from both is decompressed outside any
// lock, so a slow load never blocks the other blocks of its shard.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
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
        std::uint64_t hits = 0;    // found in the shared cache (a thread's own recent blocks are not counted)
        std::uint64_t misses = 0;  // decompressed
        std::size_t blocks = 0;
        std::size_t bytes = 0;
    };

    using Block = std::shared_ptr<const std::vector<std::byte>>;

    static constexpr int shard_count = 64;
    static constexpr int recent_per_thread = 8;

    // At most `memory_limit` bytes of blocks are kept in the shared cache,
    // except that every shard keeps its most recent block: the floor is
    // shard_count blocks. Each thread also holds on to its last
    // recent_per_thread blocks until it probes others or exits.
    explicit BlockCache(std::size_t memory_limit);

    // Calls use(std::span<const std::byte>) on the block `key` and returns its
    // result. A block not in the cache is made by load(std::span<std::byte>)
    // into `bytes` bytes first; if load throws, nothing is cached.
    template <class Load, class Use>
    decltype(auto) with_block(Key key, std::size_t bytes, Load&& load, Use&& use) {
        const std::uint64_t generation = generation_.load(std::memory_order_acquire);
        Recent& recent = recent_blocks();
        for (const RecentBlock& r : recent.blocks)
            if (r.generation == generation && r.key == key) return use(std::span<const std::byte>(*r.block));
        Block block = find(key);
        if (!block) {
            auto data = std::make_shared<std::vector<std::byte>>(bytes);
            load(std::span<std::byte>(*data));
            block = insert(key, std::move(data));
        }
        RecentBlock& slot = recent.blocks[recent.next++ % recent_per_thread];
        slot = {generation, key, std::move(block)};
        return use(std::span<const std::byte>(*slot.block));
    }

    Stats stats() const;
    // The shard a block belongs to.
    static std::size_t shard_of(const Key& k) noexcept { return KeyHash{}(k) >> 58; }
    // Drops every block, the threads' recent ones included (they are no
    // longer used): the next probes decompress again.
    void clear();

private:
    struct Entry {
        Key key;
        Block block;
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
    // A thread's recent blocks, valid for the cache whose generation they carry.
    struct RecentBlock {
        std::uint64_t generation = 0;
        Key key;
        Block block;
    };
    struct Recent {
        std::array<RecentBlock, recent_per_thread> blocks;
        unsigned next = 0;
    };

    static Recent& recent_blocks() noexcept;
    // A number no other cache, and no earlier state of this one, has had.
    static std::uint64_t new_generation() noexcept;
    Block find(const Key& key);
    // The block cached now, or the one another thread cached first.
    Block insert(const Key& key, Block block);

    std::size_t shard_limit_;
    std::atomic<std::uint64_t> generation_;
    std::array<Shard, shard_count> shards_;
};

}  // namespace dtb
