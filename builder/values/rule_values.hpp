// The rule values of solved materials as the rule solver keeps them in
// memory (docs/rules.md), and the lookup of a position's rule distance in the
// materials one move leads to.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <variant>
#include <vector>

#include "builder/values/packed_codes.hpp"
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

// The rule values of a material solved a level at a time
// (builder/solver/rule_solver.hpp), never whole in memory: its rule codes
// as a plain table's packed frames, spilled to a scratch file (the capture
// positions marked), and their counts.
struct PackedRules {
    GoverningCount count;
    PackedTable table;
};

// What a rule solve hands on: the values whole, or packed.
using SolvedRuleMaterial = std::variant<RuleValues, PackedRules>;

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

}  // namespace dtb
