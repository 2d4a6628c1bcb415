// Solved tables a rank of a distributed build keeps in memory: those it
// solved alone, was sent or read back from their files, whole, and its range
// of those it solved in a team; within a memory budget, the least recently
// used dropped first when room is needed (only those no material in work is
// reading). One entry a material.
// Which materials a rank will solve next is the coordinator's choice, so the
// one-process build's count of remaining uses does not apply here.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <vector>

#include "builder/solved_values.hpp"

namespace dtb {

class ValuesCache {
public:
    explicit ValuesCache(std::uint64_t budget) : budget_(budget) {}

    // m's values if they are here, whole or a range (now the most recently used).
    std::shared_ptr<const SolvedValues> find(const Material& m) {
        const std::lock_guard lock(mutex_);
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if ((*it)->material == m) {
                entries_.splice(entries_.begin(), entries_, it);
                return entries_.front();
            }
        return nullptr;
    }

    // Whether `bytes` more would fit, once the unused entries are dropped if need be.
    bool room_for(std::uint64_t bytes) {
        const std::lock_guard lock(mutex_);
        return make_room(bytes);
    }

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

    // Keeps `values` if they fit (dropping unused entries if need be),
    // instead of a range of the same material.
    void keep(std::shared_ptr<const SolvedValues> values) {
        const std::lock_guard lock(mutex_);
        for (auto it = entries_.begin(); it != entries_.end(); ++it) {
            if ((*it)->material != values->material) continue;
            if ((*it)->whole() || !values->whole()) return;
            bytes_ -= (*it)->bytes();
            entries_.erase(it);
            break;
        }
        if (!make_room(values->bytes())) return;
        bytes_ += values->bytes();
        entries_.push_front(std::move(values));
    }

private:
    // Called with the mutex held.
    bool make_room(std::uint64_t bytes) {
        for (auto it = entries_.end(); bytes_ + bytes > budget_ && it != entries_.begin();) {
            --it;
            if (it->use_count() == 1) {
                bytes_ -= (*it)->bytes();
                it = entries_.erase(it);
            }
        }
        return bytes_ + bytes <= budget_;
    }

    std::uint64_t budget_;
    std::uint64_t bytes_ = 0;
    std::list<std::shared_ptr<const SolvedValues>> entries_;  // most recently used first
    std::mutex mutex_;
};

}  // namespace dtb
