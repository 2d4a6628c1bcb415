// The rule values of solved materials as the rule solver keeps them in
// memory (docs/rules.md), and the lookup of a position's rule distance in the
// materials one move leads to.
#pragma once

#include <algorithm>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "probe/index.hpp"
#include "probe/rule_count.hpp"
#include "probe/rule_prober.hpp"
#include "probe/value.hpp"

namespace dtb {

// The rule values of one canonical material, both sides to move as the
// plain tables order them: one byte a position (rule_code()).
struct RuleValues {
    Material material;
    GoverningCount count;
    std::uint64_t positions_per_side = 0;
    std::vector<std::uint8_t> codes;       // the count from zero (before the main road, where there is one)
    std::vector<std::uint8_t> after_road;  // after the lone king stood alone on the main road; empty if no road
    // A bit a position (of `codes`): its side to move has a capture, so
    // its table value is don't-care (found in the set-up, for the writer).
    std::vector<std::uint64_t> captures;

    bool has_capture(std::uint64_t at) const noexcept { return (captures[at / 64] >> (at % 64)) & 1; }
    // What they hold in memory.
    std::uint64_t bytes() const noexcept { return codes.size() + after_road.size() + 8 * captures.size(); }
};

// The rule values of the materials a material's moves lead to: those held
// in memory, and through `files` (the .rul tables written before) the others.
template <class V>
class RuleSuccessors {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;

    explicit RuleSuccessors(const RuleProber<V>* files = nullptr) : files_(files) {}

    void add(std::shared_ptr<const RuleValues> values) {
        const Material& m = values->material;
        entries_.push_back({material_key(m), Index<N>(m), values.get(), 0});
        if (m.mirrored() != m)
            entries_.push_back({material_key(m.mirrored()), Index<N>(m.mirrored()), values.get(),
                                values->positions_per_side});
        held_.push_back(std::move(values));
    }

    // The count that governs p (either side to move, a piece left to it)
    // and its rule distance with the count from zero. Throws
    // std::logic_error if its material is neither held nor on file.
    std::pair<GoverningCount, Value> find(const Position& p) const {
        const bool turned = p.side_to_move == draughts::Color::black;
        const Material m = material_of(p);
        const std::uint32_t key = material_key(turned ? m.mirrored() : m);
        for (const Entry& e : entries_)
            if (e.key == key)
                return {e.values->count,
                        value_of_rule_code(
                            e.values->codes[e.offset + (turned ? e.index.rank_turned(p) : e.index.rank(p))])};
        if (!files_) throw std::logic_error("the rule values of " + m.canonical().name() + " are not held");
        return {governing_count<typename V::draw_rules>(m), files_->distance(p)};
    }

private:
    struct Entry {
        std::uint32_t key;
        Index<N> index;
        const RuleValues* values;
        std::uint64_t offset;
    };
    const RuleProber<V>* files_;
    std::vector<Entry> entries_;
    std::vector<std::shared_ptr<const RuleValues>> held_;
};

// Rule values a rank of a distributed build keeps for the rule jobs it may
// be given later, within a budget: the least recently used let go first
// (read from their .rul files when needed again). Which jobs a rank gets is
// the coordinator's choice, so a count of remaining uses does not apply.
class KeptRuleValues {
public:
    explicit KeptRuleValues(std::uint64_t budget) : budget_(budget) {}

    // Those of `materials` kept here, now the most recently used.
    std::vector<std::shared_ptr<const RuleValues>> find_all(const std::vector<Material>& materials) {
        const std::lock_guard lock(mutex_);
        std::vector<std::shared_ptr<const RuleValues>> out;
        for (const Material& m : materials) {
            const auto it = std::find_if(kept_.begin(), kept_.end(), [&](const auto& v) { return v->material == m; });
            if (it == kept_.end()) continue;
            kept_.splice(kept_.begin(), kept_, it);
            out.push_back(kept_.front());
        }
        return out;
    }

    // Keeps `values` if they fit the budget once older ones are let go.
    void keep(std::shared_ptr<const RuleValues> values) {
        const std::lock_guard lock(mutex_);
        if (values->bytes() > budget_) return;
        while (bytes_ + values->bytes() > budget_) {
            bytes_ -= kept_.back()->bytes();
            kept_.pop_back();
        }
        bytes_ += values->bytes();
        kept_.push_front(std::move(values));
    }

    // Lets go of m's values: no job left reads them.
    void let_go(const Material& m) {
        const std::lock_guard lock(mutex_);
        const auto it = std::find_if(kept_.begin(), kept_.end(), [&](const auto& v) { return v->material == m; });
        if (it == kept_.end()) return;
        bytes_ -= (*it)->bytes();
        kept_.erase(it);
    }

private:
    std::uint64_t budget_;
    std::uint64_t bytes_ = 0;
    std::list<std::shared_ptr<const RuleValues>> kept_;  // the most recently used first
    std::mutex mutex_;
};

}  // namespace dtb
