// The tables a team reads while it solves a material, spread over its
// members (docs/design.md, "Distributed build"). Slot 0 is the material being
// solved: each member is the home of one range of its positions, filled level
// by level as the team solves them. The other slots are the materials its
// captures and promotions lead to: each member holds its range of them, read
// in place where its rank keeps it, else fetched or loaded from the files.
// So a member holds about 1/size() of everything, and memory per rank falls
// as ranks are added. A position of any slot is named by one 64-bit word (the
// slot in the top byte, the position in the table below it); the value of a
// word is asked of the member whose range holds it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tbb/task_group.h>

#include "builder/values/men_cache.hpp"
#include "builder/values/packed_codes.hpp"
#include "builder/values/solved_values.hpp"
#include "builder/values/table_loader.hpp"
#include "builder/team/team.hpp"
#include "builder/team/ranges.hpp"
#include "probe/index.hpp"

namespace dtb {

// Positions [first, first + count) of table s (per_side a side, first a
// multiple of 64), held by what it returns (which may hold more), or null
// where it cannot give them.
using RangeSource = std::function<std::shared_ptr<const SolvedValues>(const Material& s, std::uint64_t per_side,
                                                                      std::uint64_t first, std::uint64_t count)>;

template <class V>
class TeamTables {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Bitboard = typename Position::Bitboard;

    // The word of a position whose side to move has no piece left: a loss in
    // 0, known without asking anyone.
    static constexpr std::uint64_t no_piece = ~std::uint64_t{0};
    static constexpr int position_bits = 56;
    static constexpr std::uint64_t word(int slot, std::uint64_t g) noexcept {
        return static_cast<std::uint64_t>(slot) << position_bits | g;
    }

    // `solving` is split over the team with ranges aligned to 2^block_shift
    // positions (the blocks of its table); of each of `successors` (those
    // shared out, not held whole by every member) this member holds its
    // range: as `from_others` (may be empty) gives it, or else read from its
    // .dtw file in `variant_dir`, capture positions answered by `loading`
    // (load_solved_values()).
    TeamTables(Team& team, const Material& solving, int block_shift, const std::vector<Material>& successors,
               const std::filesystem::path& variant_dir, const Successors<V>& loading,
               const RangeSource& from_others = {}) {
        if (successors.size() + 1 > 255) throw std::runtime_error("a material with more than 254 successors");
        const int members = team.size(), me = team.rank();
        const std::uint64_t per_side = Index<N>(solving).size();
        const std::uint64_t total = table_positions<N>(solving);
        Ranges homes = Ranges::split(total, members, block_shift);
        home_ = std::make_shared<SolvedValues>(solving, per_side, homes.first(me), homes.count(me));
        add_slot(solving, std::move(homes), home_);
        for (const Material& s : successors) {
            const TableFile file = open_dtw_table<V>(variant_dir, s);
            const TableHeader& h = file.header();
            Ranges ranges = Ranges::split(h.positions(), members, h.block_shift);
            const std::uint64_t first = ranges.first(me), count = ranges.count(me);
            std::shared_ptr<const SolvedValues> mine;
            if (count > 0 && from_others) mine = from_others(s, h.positions_per_side, first, count);
            if (!mine) {
                auto read = std::make_shared<SolvedValues>(s, h.positions_per_side, first, count);
                const std::uint64_t first_block = first >> h.block_shift;
                const std::uint64_t last_block = (first + count + h.block_positions() - 1) >> h.block_shift;
                if (count > 0)
                    read_back_.count([&] { load_solved_values<V>(*read, file, loading, first_block, last_block); });
                mine = std::move(read);
            }
            add_slot(s, std::move(ranges), std::move(mine));
        }
    }

    // The word of `child`, a position (either side to move) of the material
    // being solved or of a successor, or no_piece.
    std::uint64_t locate(const Position& child) const {
        if (child.pieces(child.side_to_move) == 0) return no_piece;
        const Position q = white_to_move(child);
        const std::uint32_t key = material_key(material_of(q));
        for (const Entry& e : entries_)
            if (e.key == key) return word(e.slot, e.offset + e.index.rank(q));
        throw std::logic_error("a move reached material " + material_of(q).name() + ", which the team does not hold");
    }

    // Where a child is: its code if the materials every member holds whole
    // (`held`) have it, else its word.
    struct Child {
        const std::uint16_t* code;  // null: asked, by `word`
        std::uint64_t word;
    };
    // Successors::held_code() or else locate(), for positions with Black to
    // move (those a move of White's leads to), remembering where the last
    // men configurations met start, as Successors::TurnedCodes does: most
    // children then cost the rank of their kings. One per thread.
    class TurnedChildren {
    public:
        TurnedChildren(const TeamTables& tables, const Successors<V>& held) : tables_(&tables), held_(&held) {}

        Child find(const Position& p) {
            if (p.black == 0) return {&Successors<V>::lost, 0};  // so no word is no_piece
            const auto [t, kings] = cache_.turned(p, [&](std::uint32_t key, Bitboard white_men, Bitboard black_men) {
                if (const auto h = held_->held_men(key, white_men, black_men); h.index)
                    return Target{h.index, h.codes, 0};
                const Block b = tables_->turned_block(key, white_men, black_men);
                return Target{b.index, nullptr, b.word};
            });
            if (!t->index) return {nullptr, tables_->locate(p)};  // says which material
            if (t->codes) return {t->codes + kings, 0};
            return {nullptr, t->base + kings};
        }

    private:
        struct Target {
            const Index<N>* index = nullptr;       // null: held by no one
            const std::uint16_t* codes = nullptr;  // king placement 0 of the men configuration if held here
            std::uint64_t base = 0;                // else its word
        };
        const TeamTables* tables_;
        const Successors<V>* held_;
        MenCache<Bitboard, Target> cache_;
    };

    // Where the positions with Black to move of a men configuration
    // (white_men, black_men) are, in the table shared out that holds them
    // turned round (`key`: material_key() of their material turned round):
    // the word of its king placement 0, and the index that ranks their
    // kings (Index::rank_kings_turned()); a null index if none holds them.
    struct Block {
        const Index<N>* index = nullptr;
        std::uint64_t word = 0;
    };
    Block turned_block(std::uint32_t key, Bitboard white_men, Bitboard black_men) const {
        for (const Entry& e : entries_)
            if (e.key == key)
                return {&e.index,
                        word(e.slot, e.offset + e.index.rank_men_turned(white_men, black_men) * e.index.king_placements())};
        return {};
    }

    // The member whose range holds `word` (not no_piece).
    int owner(std::uint64_t w) const noexcept {
        return slots_[w >> position_bits].ranges.owner(w & position_mask);
    }
    // Where the code of `word` is, held here.
    const std::uint16_t* where(std::uint64_t w) const noexcept {
        const SolvedValues& held = *slots_[w >> position_bits].mine;
        return held.codes.data() + ((w & position_mask) - held.first);
    }
    // Whether this member holds the code of `word`.
    bool holds(std::uint64_t w) const noexcept { return slots_[w >> position_bits].mine->holds(w & position_mask); }

    // The ranges of shared-out tables this member read back from their files.
    const ReadBacks& read_back() const noexcept { return read_back_; }

    // Whether some material the solved one's captures lead to is shared
    // out (one with fewer pieces), and one its promotions lead to (as many).
    bool shares_capture_successors() const noexcept {
        return std::any_of(slots_.begin() + 1, slots_.end(), [&](const Slot& t) { return t.pieces < slots_[0].pieces; });
    }
    bool shares_promotion_successors() const noexcept {
        return std::any_of(slots_.begin() + 1, slots_.end(), [&](const Slot& t) { return t.pieces == slots_[0].pieces; });
    }

    // This member's range of the material being solved, and everyone's.
    SolvedValues& home() noexcept { return *home_; }
    const Ranges& homes() const noexcept { return slots_[0].ranges; }

private:
    static constexpr std::uint64_t position_mask = (std::uint64_t{1} << position_bits) - 1;

    struct Slot {
        Ranges ranges;
        std::shared_ptr<const SolvedValues> mine;  // holds this member's range, maybe more (a kept table)
        int pieces;
    };
    // One orientation of a slot's material: its positions start at `offset`.
    struct Entry {
        std::uint32_t key;
        int slot;
        Index<N> index;
        std::uint64_t offset;
    };

    void add_slot(const Material& m, Ranges ranges, std::shared_ptr<const SolvedValues> mine) {
        const int slot = static_cast<int>(slots_.size());
        const Index<N> own(m);
        if (static_cast<std::uint64_t>(sides_of(m)) * own.size() > position_mask)
            throw std::runtime_error(m.name() + " has too many positions for a team's position words");
        slots_.push_back({std::move(ranges), std::move(mine), m.pieces()});
        entries_.push_back({material_key(m), slot, own, 0});
        if (m.mirrored() != m) entries_.push_back({material_key(m.mirrored()), slot, Index<N>(m.mirrored()), own.size()});
    }

    std::shared_ptr<SolvedValues> home_;  // slot 0's
    std::vector<Slot> slots_;
    std::vector<Entry> entries_;
    ReadBacks read_back_;
};

// Every member's range of `whole`, positions [first[j], first[j] + count[j])
// (first a multiple of 64), which it has filled, to every other member,
// packed (pack_range()). In rounds: in round r each member sends part r of
// its range (`part` positions, a multiple of 64), the sizes of its frames,
// then their bytes, each in an all gather. Other threads pack the next part
// and unpack the last round's while the round's bytes cross.
inline void share_packed(Team& team, SolvedValues& whole, std::span<const std::uint64_t> first,
                         std::span<const std::uint64_t> count, std::uint64_t part = std::uint64_t{1} << 26) {
    if (part == 0 || part % 64 != 0) throw std::logic_error("parts of a shared range must be multiples of 64");
    const int members = team.size(), me = team.rank();
    std::uint64_t rounds = 0;
    for (int j = 0; j < members; ++j) rounds = std::max(rounds, (count[j] + part - 1) / part);
    // Member j's part in round r: its first position and count (0 if none).
    const auto part_of = [&](int j, std::uint64_t r) {
        const std::uint64_t done = std::min(count[j], r * part);
        return std::pair{first[j] + done, std::min(part, count[j] - done)};
    };
    const auto pack = [&](std::uint64_t r) {
        const auto [at, n] = part_of(me, r);
        return n > 0 && r < rounds ? pack_range(whole, at, n) : PackedRange{};
    };
    // A round's frames as received: every member's, and where each member's start.
    struct Round {
        std::uint64_t r = 0;
        std::vector<std::uint64_t> sizes;
        std::vector<std::byte> bytes;
        std::vector<std::size_t> frame_at, byte_at;
    };
    const auto exchange = [&](std::uint64_t r, PackedRange& mine) {
        Round x{r, {}, {}, std::vector<std::size_t>(members + 1, 0), std::vector<std::size_t>(members + 1, 0)};
        std::vector<std::size_t> offsets(members), counts(members);
        for (int j = 0; j < members; ++j) x.frame_at[j + 1] = x.frame_at[j] + packed_frames(part_of(j, r).second);
        x.sizes.resize(x.frame_at[members]);
        std::copy(mine.frame_bytes.begin(), mine.frame_bytes.end(),
                  x.sizes.begin() + static_cast<std::ptrdiff_t>(x.frame_at[me]));
        for (int j = 0; j < members; ++j) {
            offsets[j] = 8 * x.frame_at[j];
            counts[j] = 8 * (x.frame_at[j + 1] - x.frame_at[j]);
        }
        team.all_gather(reinterpret_cast<std::byte*>(x.sizes.data()), offsets, counts);
        for (int j = 0; j < members; ++j) {
            x.byte_at[j + 1] = x.byte_at[j];
            for (std::size_t f = x.frame_at[j]; f < x.frame_at[j + 1]; ++f) x.byte_at[j + 1] += x.sizes[f];
            offsets[j] = x.byte_at[j];
            counts[j] = x.byte_at[j + 1] - x.byte_at[j];
        }
        if (mine.bytes.size() != counts[me]) throw std::logic_error("a member's packed part changed size");
        x.bytes.resize(x.byte_at[members]);
        std::copy(mine.bytes.begin(), mine.bytes.end(), x.bytes.begin() + static_cast<std::ptrdiff_t>(x.byte_at[me]));
        mine = {};
        team.all_gather(x.bytes.data(), offsets, counts);
        return x;
    };
    const auto unpack = [&](const Round& x) {
        for (int j = 0; j < members; ++j) {
            const auto [at, n] = part_of(j, x.r);
            if (j == me || n == 0) continue;
            unpack_range(std::span<const std::byte>(x.bytes).subspan(x.byte_at[j], x.byte_at[j + 1] - x.byte_at[j]),
                         std::span<const std::uint64_t>(x.sizes).subspan(x.frame_at[j], x.frame_at[j + 1] - x.frame_at[j]),
                         whole, at, n, "team member " + std::to_string(j));
        }
    };
    PackedRange mine = pack(0);
    std::optional<Round> last;
    for (std::uint64_t r = 0; r < rounds; ++r) {
        // Members' ranges are disjoint and start at multiples of 64, so
        // packing this member's part and unpacking the others' touch
        // different codes and capture words.
        PackedRange next;
        tbb::task_group others;
        others.run([&] {
            next = pack(r + 1);
            if (last) unpack(*last);
        });
        std::optional<Round> now;
        try {
            now = exchange(r, mine);
        } catch (...) {
            others.wait();
            throw;
        }
        others.wait();
        last = std::move(now);
        mine = std::move(next);
    }
    if (last) unpack(*last);
}

// Table `file` whole on every member of `team`, read by the team together:
// each member reads its range of blocks (capture positions answered by
// `loading`) into the whole, and shares it with all the others.
template <class V>
SolvedValues load_whole_in_team(Team& team, const TableFile& file, const Successors<V>& loading) {
    const TableHeader& h = file.header();
    const int members = team.size(), me = team.rank();
    const Ranges ranges = Ranges::split(h.positions(), members, h.block_shift);
    SolvedValues whole(h.material, h.positions_per_side);
    load_solved_values<V>(whole, file, loading, ranges.first(me) >> h.block_shift,
                          (ranges.first(me + 1) + h.block_positions() - 1) >> h.block_shift);
    // Ranges start at multiples of the block size, so of 64.
    std::vector<std::uint64_t> first(members), count(members);
    for (int j = 0; j < members; ++j) {
        first[j] = ranges.first(j);
        count[j] = ranges.count(j);
    }
    share_packed(team, whole, first, count);
    return whole;
}

// Table s whole on every member: member `source` has it (`values`) and
// shares it with the others, which allocate it (`per_side` positions a side).
inline std::shared_ptr<const SolvedValues> send_whole_in_team(Team& team, int source,
                                                              std::shared_ptr<const SolvedValues> values,
                                                              const Material& s, std::uint64_t per_side) {
    std::shared_ptr<SolvedValues> whole;
    if (team.rank() != source) whole = std::make_shared<SolvedValues>(s, per_side);
    SolvedValues& into = whole ? *whole : const_cast<SolvedValues&>(*values);  // the source's is only read
    std::vector<std::uint64_t> first(team.size(), 0), count(team.size(), 0);
    count[source] = into.positions();
    share_packed(team, into, first, count);
    if (whole) return whole;
    return values;
}

}  // namespace dtb
