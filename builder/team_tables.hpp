// The tables a team reads while it solves a material, spread over its
// members (docs/design.md, "Distributed build"). Slot 0 is the material being
// solved: each member is the home of one range of its positions, filled level
// by level as the team solves them. The other slots are the materials its
// captures and promotions lead to: each member loads its range of their files.
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
#include <stdexcept>
#include <string>
#include <vector>

#include "builder/solved_values.hpp"
#include "builder/table_loader.hpp"
#include "builder/team.hpp"
#include "probe/index.hpp"

namespace dtb {

template <class V>
class TeamTables {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;

    // The word of a position whose side to move has no piece left: a loss in
    // 0, known without asking anyone.
    static constexpr std::uint64_t no_piece = ~std::uint64_t{0};
    static constexpr int position_bits = 56;
    static constexpr std::uint64_t word(int slot, std::uint64_t g) noexcept {
        return static_cast<std::uint64_t>(slot) << position_bits | g;
    }

    // `solving` is split over the team with ranges aligned to 2^block_shift
    // positions (the blocks of its table); each of `successors` (those
    // shared out, not held whole by every member) has its range of blocks
    // filled by `from_others` (may be empty) or else read from its .dtw file
    // in `variant_dir`, capture positions answered by `loading`
    // (load_solved_values()).
    TeamTables(Team& team, const Material& solving, int block_shift, const std::vector<Material>& successors,
               const std::filesystem::path& variant_dir, const Successors<V>& loading,
               const std::function<bool(SolvedValues&)>& from_others = {}) {
        if (successors.size() + 1 > 255) throw std::runtime_error("a material with more than 254 successors");
        const int members = team.size(), me = team.rank();
        const std::uint64_t per_side = Index<N>(solving).size();
        const std::uint64_t total = table_positions<N>(solving);
        add_slot(solving, Ranges::split(total, members, block_shift), SolvedValues());
        Slot& own = slots_.back();
        own.mine = SolvedValues(solving, per_side, own.ranges.first(me), own.ranges.count(me));
        for (const Material& s : successors) {
            const TableFile file = open_dtw_table<V>(variant_dir, s);
            const TableHeader& h = file.header();
            Ranges ranges = Ranges::split(h.positions(), members, h.block_shift);
            const std::uint64_t first_block = ranges.first(me) >> h.block_shift;
            const std::uint64_t last_block = (ranges.first(me + 1) + h.block_positions() - 1) >> h.block_shift;
            SolvedValues mine(s, h.positions_per_side, ranges.first(me), ranges.count(me));
            if (!from_others || mine.codes.empty() || !from_others(mine))
                load_solved_values<V>(mine, file, loading, first_block, last_block);
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

    // The member whose range holds `word` (not no_piece).
    int owner(std::uint64_t w) const noexcept {
        return slots_[w >> position_bits].ranges.owner(w & position_mask);
    }
    // The code of `word`, held here.
    std::uint16_t code(std::uint64_t w) const noexcept {
        return slots_[w >> position_bits].mine.code(w & position_mask);
    }

    // Whether some material the solved one leads to is shared out.
    bool shares_successors() const noexcept { return slots_.size() > 1; }

    // This member's range of the material being solved, and everyone's.
    SolvedValues& home() noexcept { return slots_[0].mine; }
    const Ranges& homes() const noexcept { return slots_[0].ranges; }

    // Bytes of values held here.
    std::uint64_t bytes() const noexcept {
        std::uint64_t sum = 0;
        for (const Slot& s : slots_) sum += s.mine.bytes();
        return sum;
    }

private:
    static constexpr std::uint64_t position_mask = (std::uint64_t{1} << position_bits) - 1;

    struct Slot {
        Ranges ranges;
        SolvedValues mine;
    };
    // One orientation of a slot's material: its positions start at `offset`.
    struct Entry {
        std::uint32_t key;
        int slot;
        Index<N> index;
        std::uint64_t offset;
    };

    void add_slot(const Material& m, Ranges ranges, SolvedValues mine) {
        const int slot = static_cast<int>(slots_.size());
        const Index<N> own(m);
        if (static_cast<std::uint64_t>(sides_of(m)) * own.size() > position_mask)
            throw std::runtime_error(m.name() + " has too many positions for a team's position words");
        slots_.push_back({std::move(ranges), std::move(mine)});
        entries_.push_back({material_key(m), slot, own, 0});
        if (m.mirrored() != m) entries_.push_back({material_key(m.mirrored()), slot, Index<N>(m.mirrored()), own.size()});
    }

    std::vector<Slot> slots_;
    std::vector<Entry> entries_;
};

// Table `file` whole on every member of `team`, read by the team together:
// each member reads its range of blocks (capture positions answered by
// `loading`) into the whole, and sends it to all the others.
template <class V>
SolvedValues load_whole_in_team(Team& team, const TableFile& file, const Successors<V>& loading) {
    const TableHeader& h = file.header();
    const int members = team.size(), me = team.rank();
    const Ranges ranges = Ranges::split(h.positions(), members, h.block_shift);
    SolvedValues whole(h.material, h.positions_per_side);
    load_solved_values<V>(whole, file, loading, ranges.first(me) >> h.block_shift,
                          (ranges.first(me + 1) + h.block_positions() - 1) >> h.block_shift);
    // The codes, then the capture marks (ranges start at multiples of the
    // block size, so each member's marks are whole words).
    std::vector<std::size_t> offsets(members), counts(members);
    for (int j = 0; j < members; ++j) {
        offsets[j] = 2 * ranges.first(j);
        counts[j] = 2 * ranges.count(j);
    }
    team.all_gather(reinterpret_cast<std::byte*>(whole.codes.data()), offsets, counts);
    for (int j = 0; j < members; ++j) {
        offsets[j] = 8 * (ranges.first(j) / 64);
        counts[j] = 8 * ((ranges.first(j) + ranges.count(j) + 63) / 64) - offsets[j];
    }
    team.all_gather(reinterpret_cast<std::byte*>(whole.capture.data()), offsets, counts);
    return whole;
}

// Table s whole on every member: member `source` has it (`values`) and
// sends it to the others, which allocate it (`per_side` positions a side).
inline std::shared_ptr<const SolvedValues> send_whole_in_team(Team& team, int source,
                                                              std::shared_ptr<const SolvedValues> values,
                                                              const Material& s, std::uint64_t per_side) {
    const int members = team.size();
    std::shared_ptr<SolvedValues> whole;
    if (team.rank() != source) whole = std::make_shared<SolvedValues>(s, per_side);
    SolvedValues& into = whole ? *whole : const_cast<SolvedValues&>(*values);  // the source's is only read
    std::vector<std::size_t> offsets(members, 0), counts(members, 0);
    counts[source] = 2 * into.codes.size();
    team.all_gather(reinterpret_cast<std::byte*>(into.codes.data()), offsets, counts);
    counts[source] = 8 * into.capture.size();
    team.all_gather(reinterpret_cast<std::byte*>(into.capture.data()), offsets, counts);
    if (whole) return whole;
    return values;
}

}  // namespace dtb
