// Parts of tables a rank of a distributed build has packed to send to a
// rank that asked for them (mpi/table_exchange.hpp), kept for the next rank
// that asks for the same part: a table many materials read is asked for by
// many ranks, and each would otherwise cost the holder a packing of it
// (about 2.5 ns a position on one thread, against some 190 ns to solve
// one; docs/scaling.md). Within a budget of bytes, the least recently used
// part dropped first. A solved table never changes, so a kept part is
// right as long as the build runs, even once the table itself has left the
// rank's memory. Used by one thread (the rank's main thread).
#pragma once

#include <algorithm>
#include <cstdint>
#include <list>
#include <memory>
#include <utility>

#include "builder/values/packed_codes.hpp"
#include "probe/material.hpp"

namespace dtb {

// The parts a range [first, first + count) of a table is asked for in, each
// of at most `part` positions: cut at the multiples of `part`, wherever the
// range starts, so that ranges that overlap (asked by the members of teams
// of other sizes, each for its own range) ask for the same parts, which
// the holder then packs once. first and part multiples of 64.
struct RangeParts {
    std::uint64_t first, count, part;

    std::uint64_t size() const noexcept {
        return count == 0 ? 0 : (first + count - 1) / part - first / part + 1;
    }
    // Part i: its first position and its count.
    std::pair<std::uint64_t, std::uint64_t> operator[](std::uint64_t i) const noexcept {
        const std::uint64_t at = std::max(first, (first / part + i) * part);
        return {at, std::min(first + count, (at / part + 1) * part) - at};
    }
};

class PackedParts {
public:
    struct Key {
        Material material;
        std::uint64_t first = 0, count = 0;
        bool operator==(const Key&) const = default;
    };

    explicit PackedParts(std::uint64_t budget) : budget_(budget) {}

    // The part if it is kept (now the most recently used), else null.
    std::shared_ptr<const PackedRange> find(const Key& key) {
        for (auto it = parts_.begin(); it != parts_.end(); ++it)
            if (it->first == key) {
                parts_.splice(parts_.begin(), parts_, it);
                return parts_.front().second;
            }
        return nullptr;
    }

    // Keeps `part` under `key`, dropping the least recently used parts to
    // make room; a part larger than the whole budget is not kept.
    void keep(const Key& key, std::shared_ptr<const PackedRange> part) {
        const std::uint64_t size = bytes_of(*part);
        if (size > budget_ || find(key)) return;
        while (bytes_ + size > budget_) {
            bytes_ -= bytes_of(*parts_.back().second);
            parts_.pop_back();
        }
        bytes_ += size;
        parts_.emplace_front(key, std::move(part));
    }

    // Drops the parts of material m: no rank will ask for them again.
    void let_go(const Material& m) {
        for (auto it = parts_.begin(); it != parts_.end();) {
            if (it->first.material != m) {
                ++it;
                continue;
            }
            bytes_ -= bytes_of(*it->second);
            it = parts_.erase(it);
        }
    }

    std::uint64_t bytes() const noexcept { return bytes_; }

private:
    static std::uint64_t bytes_of(const PackedRange& p) noexcept {
        return p.bytes.size() + p.frame_bytes.size() * sizeof(std::uint64_t);
    }

    std::uint64_t budget_;
    std::uint64_t bytes_ = 0;
    std::list<std::pair<Key, std::shared_ptr<const PackedRange>>> parts_;  // most recently used first
};

}  // namespace dtb
