// Solved tables a rank of a distributed build keeps in memory: those it
// solved alone, was sent or read back from their files, whole, and its range
// of those it solved in a team; within a memory budget. When room is needed,
// the least recently used that no material in work is reading are packed
// first (pack_range(): codes as byte planes and capture marks, a few percent
// of their bytes, unpacked at memory speed when found again), and only then
// dropped, packed ones first; a dropped table is asked of another rank or
// read back from its file, its capture positions solved again. One entry a
// material. Which materials a rank will solve next is the coordinator's
// choice; it counts the jobs left that read each table, as the one-process
// build does, and tells the ranks which they may let go of (let_go()).
#pragma once

#include <algorithm>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <vector>

#include <tbb/task_arena.h>

#include "builder/values/packed_codes.hpp"
#include "builder/values/solved_values.hpp"

namespace dtb {

class ValuesCache {
public:
    explicit ValuesCache(std::uint64_t budget) : budget_(budget) {}

    // m's values if they are here, whole or a range (now the most recently
    // used); unpacked if they were packed and there is room for them.
    std::shared_ptr<const SolvedValues> find(const Material& m) {
        const std::lock_guard lock(mutex_);
        const auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.material == m; });
        if (it == entries_.end()) return nullptr;
        entries_.splice(entries_.begin(), entries_, it);
        Entry& e = entries_.front();
        if (e.values) return e.values;
        // Packed: its frames give up their room once unpacked.
        const std::uint64_t unpacked = SolvedValues::bytes_for(e.count);
        if (!make_room(unpacked > e.bytes() ? unpacked - e.bytes() : 0, &e)) return nullptr;
        auto values = std::make_shared<SolvedValues>(m, e.per_side, e.first, e.count);
        tbb::this_task_arena::isolate([&] {  // its threads take no task that could want the mutex
            unpack_range(e.packed->bytes, e.packed->frame_bytes, *values, e.first, e.count, "a kept table");
        });
        values->max_code = e.max_code;
        bytes_ -= e.bytes();
        e.packed.reset();
        e.values = std::move(values);
        bytes_ += e.bytes();
        ++unpacked_;
        return e.values;
    }

    // Whether `bytes` more would fit, once the unused entries are packed or dropped if need be.
    bool room_for(std::uint64_t bytes) {
        const std::lock_guard lock(mutex_);
        return make_room(bytes);
    }

    // The working set of a job running on this rank, counted against the
    // budget while it runs (Held's life): unused entries give up room for
    // it where they can; it runs in any case.
    class Held {
    public:
        Held(ValuesCache& cache, std::uint64_t bytes) : cache_(cache), bytes_(bytes) {
            const std::lock_guard lock(cache_.mutex_);
            cache_.make_room(bytes_);
            cache_.bytes_ += bytes_;
        }
        Held(const Held&) = delete;
        Held& operator=(const Held&) = delete;
        ~Held() {
            const std::lock_guard lock(cache_.mutex_);
            cache_.bytes_ -= bytes_;
        }

    private:
        ValuesCache& cache_;
        std::uint64_t bytes_;
    };

    // m's values if they are here whole.
    std::shared_ptr<const SolvedValues> find_whole(const Material& m) {
        auto values = find(m);
        return values && values->whole() ? values : nullptr;
    }

    // Those of `materials` that are here whole.
    std::vector<std::shared_ptr<const SolvedValues>> find_all(const std::vector<Material>& materials) {
        std::vector<std::shared_ptr<const SolvedValues>> found;
        for (const Material& m : materials)
            if (auto values = find_whole(m)) found.push_back(std::move(values));
        return found;
    }

    // Keeps `values` if they fit (packing or dropping unused entries if need
    // be), instead of a range of the same material.
    void keep(std::shared_ptr<const SolvedValues> values) {
        const std::lock_guard lock(mutex_);
        for (auto it = entries_.begin(); it != entries_.end(); ++it) {
            if (it->material != values->material) continue;
            if (it->whole() || !values->whole()) return;
            bytes_ -= it->bytes();
            entries_.erase(it);
            break;
        }
        if (!make_room(values->bytes())) return;
        Entry e{values->material, values->positions_per_side, values->first, values->codes.size(), values->max_code,
                std::move(values), nullptr};
        bytes_ += e.bytes();
        entries_.push_front(std::move(e));
    }

    // Lets go of m's values, whole or a range, packed or not: no job left
    // reads them (a job in work that holds them keeps them until it ends).
    void let_go(const Material& m) {
        const std::lock_guard lock(mutex_);
        const auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.material == m; });
        if (it == entries_.end()) return;
        bytes_ -= it->bytes();
        entries_.erase(it);
    }

    // Tables packed to make room, and unpacked when found again.
    std::uint64_t packed() const noexcept { return packed_; }
    std::uint64_t unpacked() const noexcept { return unpacked_; }

private:
    struct Entry {
        Material material;
        std::uint64_t per_side, first, count;
        std::uint32_t max_code;
        std::shared_ptr<const SolvedValues> values;  // or
        std::unique_ptr<PackedRange> packed;
        bool whole() const noexcept {
            return first == 0 && count == static_cast<std::uint64_t>(sides_of(material)) * per_side;
        }
        std::uint64_t bytes() const noexcept {
            return values ? values->bytes() : packed->bytes.size() + 8 * packed->frame_bytes.size();
        }
    };

    // Called with the mutex held; `spare` (may be null) is neither packed nor dropped.
    bool make_room(std::uint64_t bytes, const Entry* spare = nullptr) {
        const auto fits = [&] { return bytes_ + bytes <= budget_; };
        for (auto it = entries_.end(); !fits() && it != entries_.begin();) {
            --it;
            if (&*it == spare || !it->values || it->values.use_count() != 1) continue;
            auto packed = std::make_unique<PackedRange>(
                tbb::this_task_arena::isolate([&] { return pack_range(*it->values, it->first, it->count); }));
            bytes_ -= it->bytes();
            it->values.reset();
            it->packed = std::move(packed);
            bytes_ += it->bytes();
            ++packed_;
        }
        for (auto it = entries_.end(); !fits() && it != entries_.begin();) {
            --it;
            if (&*it == spare || it->values) continue;
            bytes_ -= it->bytes();
            it = entries_.erase(it);
        }
        return fits();
    }

    std::uint64_t budget_;
    std::uint64_t bytes_ = 0;
    std::list<Entry> entries_;  // most recently used first
    std::uint64_t packed_ = 0, unpacked_ = 0;
    std::mutex mutex_;
};

}  // namespace dtb
