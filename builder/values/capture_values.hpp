// The values of positions whose side to move has a capture, from the tables
// the captures lead to: what the solver settles such a position with, and
// what reading a table back (whose files hold fillers there) solves again.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "builder/values/solved_values.hpp"
#include "draughts/movegen.hpp"
#include "probe/value.hpp"

namespace dtb {

// What the captures of q are, as the solver takes them: none; the capture
// of the opponent's last piece (against a lone piece every capture takes
// it, a win in one ply, the quickest there is, so neither the captures nor
// their children need finding: the bitboard test alone decides); or the
// moves put in `found`. With flying kings the search is the test: its first
// steps are what has_capture() does, and most positions have a capture.
// Short kings' test is a few shifts, cheaper than starting a search.
enum class Captures { none, of_the_last_piece, found };
template <class V>
Captures find_captures(const draughts::Position<V::board_size>& q, draughts::CaptureBuffer<V::board_size>& found) {
    found.clear();
    if (draughts::popcount(q.pieces(draughts::opposite(q.side_to_move))) == 1)
        return draughts::has_capture<V>(q) ? Captures::of_the_last_piece : Captures::none;
    if (V::flying_kings || draughts::has_capture<V>(q)) draughts::search_captures<V>(q, found);
    return found.size > 0 ? Captures::found : Captures::none;
}
inline constexpr Value capture_of_the_last_piece = before_move(Value::loss(0));  // the opponent has no piece left

// Positions with White to move are taken a group at a time: prepare() finds
// the captures of the whole group and where the codes they lead to are,
// prefetching each, before next() reads any (in the tables of smaller
// materials most are cache misses, and those of a group overlap). Children
// are found through the men configurations last met
// (Successors::TurnedCodes). One per thread.
template <class V>
class CaptureValues {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;

    explicit CaptureValues(const Successors<V>& successors) : successors_(&successors), codes_(successors) {}

    void prepare(std::span<const Position> group) {
        children_.clear();
        captures_.clear();
        next_ = 0;
        for (const Position& q : group) {
            const Captures kind = find_captures<V>(q, found_);
            if (kind != Captures::found) {
                captures_.push_back(kind == Captures::none ? no_captures : wins_at_once);
                continue;
            }
            const auto first = static_cast<std::uint32_t>(children_.size());
            for (const draughts::Move<N>& m : found_) {
                Position child = q;
                draughts::make_move(child, m);
                if (const std::uint16_t* code = codes_.find(child)) {
                    __builtin_prefetch(code);
                    children_.push_back({code, Value::draw()});
                } else {
                    children_.push_back({nullptr, successors_->value(child)});
                }
            }
            captures_.emplace_back(first, static_cast<std::uint32_t>(children_.size()));
        }
    }

    // The value of the group's next position if it has a capture: the best
    // over its captures of the values after them.
    std::optional<Value> next() {
        const auto [first, last] = captures_[next_++];
        if (first == none) return std::nullopt;
        if (first == at_once) return capture_of_the_last_piece;
        Value best = Value::loss(0);  // as best_over_moves()
        for (std::uint32_t i = first; i < last; ++i) {
            const Child& c = children_[i];
            const Value v = before_move(c.code ? value_of_dtw_code(*c.code) : c.value);
            if (preferred(v, best)) best = v;
        }
        return best;
    }

    // The value of `child`, Black to move: where a White move that leaves
    // the material (a promotion) leads.
    Value child_value(const Position& child) {
        if (const std::uint16_t* code = codes_.find(child)) return value_of_dtw_code(*code);
        return successors_->value(child);
    }

private:
    static constexpr std::uint32_t none = ~std::uint32_t{0}, at_once = none - 1;
    static constexpr std::pair<std::uint32_t, std::uint32_t> no_captures{none, none}, wins_at_once{at_once, at_once};
    struct Child {
        const std::uint16_t* code;  // null: `value` read through the prober
        Value value;
    };

    const Successors<V>* successors_;
    typename Successors<V>::TurnedCodes codes_;
    draughts::CaptureBuffer<N> found_;
    std::vector<Child> children_;                                 // the group's, position by position
    std::vector<std::pair<std::uint32_t, std::uint32_t>> captures_;  // per position of the group: its children
    std::size_t next_ = 0;                                        // the position next() answers
};

}  // namespace dtb
