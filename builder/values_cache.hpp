// Solved tables a rank of a distributed build keeps in memory for the
// materials it solves alone: those it solved itself, and those it read back
// from their files, within a memory budget, the least recently used dropped
// first when room is needed (only those no material in work is reading).
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

    // m's values if they are here (now the most recently used).
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

    // Those of `materials` that are here.
    std::vector<std::shared_ptr<const SolvedValues>> find_all(const std::vector<Material>& materials) {
        std::vector<std::shared_ptr<const SolvedValues>> found;
        for (const Material& m : materials)
            if (auto values = find(m)) found.push_back(std::move(values));
        return found;
    }

    // Keeps `values` if they fit (dropping unused entries if need be).
    void keep(std::shared_ptr<const SolvedValues> values) {
        const std::lock_guard lock(mutex_);
        for (const auto& e : entries_)
            if (e->material == values->material) return;
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
