// The values of solved materials as the solver keeps them in memory, and the
// lookup of a position's value in the materials one move leads to.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "builder/system/huge_pages.hpp"
#include "builder/values/men_cache.hpp"
#include "probe/index.hpp"
#include "probe/prober.hpp"
#include "probe/table_format.hpp"
#include "probe/value.hpp"

namespace dtb {

// The positions of canonical material m's table on an N x N board: both
// sides to move, or one side when m is its own mirror image.
template <int N>
std::uint64_t table_positions(const Material& m) {
    return static_cast<std::uint64_t>(sides_of(m)) * Index<N>(m).size();
}

// The positions of one canonical material, both sides (docs/format.md,
// "Positions"), or a range of them (a team member's share): each one's DTW
// code (value.hpp), capture positions included with their true value, and one
// bit per position telling which have a capture (the files store those as
// don't-care). Two bytes and one bit a position.
struct SolvedValues {
    Material material;
    std::uint64_t positions_per_side = 0;
    std::uint64_t first = 0;  // the first position held, a multiple of 64
    HugePagedVector<std::uint16_t> codes;  // positions first .. first + codes.size() - 1
    HugePagedVector<std::uint64_t> capture;
    std::uint32_t max_code = 0;  // the largest code of a position without a capture (set by the solver)

    SolvedValues() = default;
    // Every position of `canonical`.
    SolvedValues(const Material& canonical, std::uint64_t per_side)
        : SolvedValues(canonical, per_side, 0, static_cast<std::uint64_t>(sides_of(canonical)) * per_side) {}
    // Positions [first, first + count) of `canonical`.
    SolvedValues(const Material& canonical, std::uint64_t per_side, std::uint64_t first, std::uint64_t count)
        : material(canonical), positions_per_side(per_side), first(first), codes(count, 0), capture((count + 63) / 64, 0) {
        if (first % 64 != 0) throw std::logic_error("solved values must start at a multiple of 64");
    }

    // All positions of the material, whether held here or not.
    std::uint64_t positions() const noexcept {
        return static_cast<std::uint64_t>(sides_of(material)) * positions_per_side;
    }
    bool holds(std::uint64_t g) const noexcept { return g - first < codes.size(); }
    bool whole() const noexcept { return first == 0 && codes.size() == positions(); }
    std::uint16_t code(std::uint64_t g) const noexcept { return codes[g - first]; }
    std::uint16_t& code(std::uint64_t g) noexcept { return codes[g - first]; }
    bool has_capture(std::uint64_t g) const noexcept { return capture[(g - first) / 64] >> ((g - first) % 64) & 1; }
    // Safe from several threads at once.
    void mark_capture(std::uint64_t g) noexcept { mark_captures((g - first) / 64, std::uint64_t{1} << ((g - first) % 64)); }
    // Marks the positions of `bits` in word `word` of the marks; safe from several threads at once.
    void mark_captures(std::uint64_t word, std::uint64_t bits) noexcept {
        std::atomic_ref<std::uint64_t>(capture[word]).fetch_or(bits, std::memory_order_relaxed);
    }
    // The capture marks of the n <= 64 positions from g on (all held), as
    // the low n bits.
    std::uint64_t capture_bits(std::uint64_t g, int n) const noexcept {
        const std::uint64_t i = g - first, w = i / 64;
        const int o = static_cast<int>(i % 64);
        std::uint64_t bits = capture[w] >> o;
        if (o + n > 64) bits |= capture[w + 1] << (64 - o);
        return low_bits(bits, n);
    }
    // Marks the positions g + i, i < n <= 64, whose bit i is set in `bits`
    // (all held; higher bits are ignored); safe from several threads at once.
    void mark_capture_bits(std::uint64_t g, std::uint64_t bits, int n) noexcept {
        bits = low_bits(bits, n);
        if (bits == 0) return;
        const std::uint64_t i = g - first, w = i / 64;
        const int o = static_cast<int>(i % 64);
        mark_captures(w, bits << o);
        if (o > 0 && bits >> (64 - o) != 0) mark_captures(w + 1, bits >> (64 - o));
    }
    static constexpr std::uint64_t low_bits(std::uint64_t bits, int n) noexcept {
        return n == 64 ? bits : bits & ((std::uint64_t{1} << n) - 1);
    }
    // Lets go of the capture marks: lookups of a solved table read codes only.
    void drop_capture_marks() {
        capture.clear();
        capture.shrink_to_fit();
    }
    std::size_t bytes() const noexcept { return codes.size() * 2 + capture.size() * 8; }
    static std::size_t bytes_for(std::uint64_t positions) noexcept { return positions * 2 + (positions + 63) / 64 * 8; }
};

// Capture marks set a word at a time: positions marked in order (those a
// thread sets up, a pair or a chunk) share one atomic OR per word of 64
// instead of a locked OR each (with flying kings most positions capture).
// The marks reach the values when this goes or at flush().
class CaptureMarks {
public:
    explicit CaptureMarks(SolvedValues& values) noexcept : values_(&values) {}
    CaptureMarks(const CaptureMarks&) = delete;
    CaptureMarks& operator=(const CaptureMarks&) = delete;
    ~CaptureMarks() { flush(); }

    void mark(std::uint64_t g) noexcept {
        const std::uint64_t at = g - values_->first;
        if (at / 64 != word_) {
            flush();
            word_ = at / 64;
        }
        bits_ |= std::uint64_t{1} << (at % 64);
    }
    void flush() noexcept {
        if (bits_) values_->mark_captures(word_, bits_);
        bits_ = 0;
    }

private:
    SolvedValues* values_;
    std::uint64_t word_ = 0;
    std::uint64_t bits_ = 0;
};

// The value of any position of the materials a material's moves lead to:
// read from SolvedValues where they are in memory, through a Prober (the
// table files and the probe cache) where they are not.
template <class V>
class Successors {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Bitboard = typename Position::Bitboard;

    // `in_memory` holds the solved materials available; any other material
    // reached is read through `prober` (which may be null if none is needed).
    Successors(const std::vector<std::shared_ptr<const SolvedValues>>& in_memory, const Prober<V>* prober)
        : prober_(prober) {
        for (const auto& values : in_memory) {
            const Material& m = values->material;
            if (values->first != 0 || values->codes.size() != values->positions())
                throw std::logic_error("Successors needs whole tables");
            entries_.push_back({material_key(m), Index<N>(m), values->codes.data()});
            if (m.mirrored() != m)
                entries_.push_back({material_key(m.mirrored()), Index<N>(m.mirrored()),
                                    values->codes.data() + values->positions_per_side});
        }
    }

    // The value for the side to move in p (either colour), p a legal position.
    Value value(const Position& p) const {
        if (const std::optional<Value> v = held_value(p)) return *v;
        if (!prober_)
            throw std::logic_error("the solver reached material " + material_of(white_to_move(p)).name() +
                                   ", which is neither solved nor on disk");
        return prober_->value(p);
    }

    // The same if p's material is in memory (or its side to move has no
    // piece left); nothing if it would be read through the prober.
    std::optional<Value> held_value(const Position& p) const {
        if (const std::uint16_t* code = held_code(p)) return value_of_dtw_code(*code);
        return std::nullopt;
    }

    // Where p's code is if its material is in memory (or its side to move
    // has no piece left: a loss in 0); null if it would be read through the
    // prober. The solver asks for the codes of several positions before it
    // reads any, so that their cache misses overlap.
    const std::uint16_t* held_code(const Position& p) const {
        if (p.pieces(p.side_to_move) == 0) return &lost;
        const bool turned = p.side_to_move == draughts::Color::black;  // answered by the mirror, p turned round
        const Material m = material_of(p);
        const std::uint32_t key = material_key(turned ? m.mirrored() : m);
        for (const Entry& e : entries_)
            if (e.key == key) return &e.codes[turned ? e.index.rank_turned(p) : e.index.rank(p)];
        return nullptr;
    }

    // Where a men configuration's codes are: king placement 0 of it, and
    // the index of its material (null: not held).
    struct HeldMen {
        const Index<N>* index = nullptr;
        const std::uint16_t* codes = nullptr;
    };
    // The men configuration (white_men, black_men) turned round, in the
    // material that `key` names (MenCache::turned).
    HeldMen held_men(std::uint32_t key, Bitboard white_men, Bitboard black_men) const {
        for (const Entry& e : entries_)
            if (e.key == key)
                return {&e.index, e.codes + e.index.rank_men_turned(white_men, black_men) * e.index.king_placements()};
        return {};
    }

    // The code of a position whose side to move has no piece left.
    static constexpr std::uint16_t lost = dtw_code(Value::loss(0));

    // held_code() for positions with Black to move (those a move of White's
    // leads to), remembering where the last men configurations met start:
    // the captures and promotions of one block pair's positions lead to a
    // few men configurations, so most children cost the rank of their kings
    // instead of finding their table and ranking their men. One per thread.
    class TurnedCodes {
    public:
        explicit TurnedCodes(const Successors& successors) : successors_(&successors) {}

        const std::uint16_t* find(const Position& p) {
            if (p.black == 0) return &lost;
            const auto [t, kings] = cache_.turned(p, [&](std::uint32_t key, Bitboard white_men, Bitboard black_men) {
                return successors_->held_men(key, white_men, black_men);
            });
            return t->index ? t->codes + kings : nullptr;
        }

    private:
        const Successors* successors_;
        MenCache<Bitboard, HeldMen> cache_;
    };

private:
    struct Entry {
        std::uint32_t key;
        Index<N> index;
        const std::uint16_t* codes;
    };
    std::vector<Entry> entries_;
    const Prober<V>* prober_;
};

}  // namespace dtb
