// The values of a material that one process solves, held a level at a time
// (docs/design.md, "Solver", "Levels in memory"). A level reads only its own
// values and those of the level above it (a man's move raises the potential
// by one), so only those two are held as codes. A level the solve has left
// behind is cut into bands of the table's order (a run of men
// configurations of one side, about 2^22 positions), each band's part in
// the table's order, packed (PackedRange) and spilled to a scratch file in
// the build's folder (SpilledFrames): a band of the table is then put
// together from one part a level, each read back in order. Once the last
// level is solved, the table is put together a window of bands at a time
// and packed as a whole table's frames, spilled too (PackedTable), which
// the writer and the packed form on disk read.
//
// A level keeps its codes in its men configurations' order
// (PotentialLevels::for_each_men_configuration): configuration r of the
// level, in M's orientation, has its king placements at r K of side 0 and,
// turned round, at (n + r) K of side 1 (n configurations, K king placements
// each; a symmetric material has side 0 only). A pair's layout is pointed
// there (place()) instead of at the table's positions.
//
// A material below SolverOptions::levels_from_positions is held whole from
// the start instead, its levels solved in place as before.
//
// The rule solver (rule_solver.hpp) holds its rule codes (one byte) here in
// the same two bytes a position: the high byte plane packs to almost
// nothing, and a rule solve by levels holds what the plain solve of the
// material holds, so one working set (most_bytes()) covers both.
#pragma once

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include "builder/output/packed_file.hpp"
#include "builder/solver/pair_space.hpp"
#include "builder/values/packed_codes.hpp"
#include "builder/values/solved_values.hpp"
#include "builder/values/value_counts.hpp"
#include "probe/potential.hpp"
#include "probe/rule_count.hpp"
#include "probe/table_format.hpp"
#include "probe/value.hpp"

namespace dtb {

// What a level's codes are: DTW codes (value.hpp) of the plain solver, or
// rule codes (rule_count.hpp) of the rule solver.
enum class LevelCodes { dtw, rule };

template <class V>
class LevelValues {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Bitboard = typename Position::Bitboard;
    using Layout = typename PairSpace<V>::Layout;
    using Level = typename PotentialLevels<N>::Level;

    // `by_levels`: held a level at a time as above; else the whole
    // material's values held from the start, and the levels solved in them
    // as they lie (SolverOptions::levels_from_positions).
    // `band_positions`: SolverOptions::level_band_positions; `folder`: where
    // the packed levels and the packed table go (SolverOptions::level_folder,
    // needed by levels); `kind`: what the codes are (finish() counts them,
    // and a checkpoint of one kind is not taken for the other's).
    LevelValues(const PairSpace<V>& space, const PotentialLevels<N>& levels, bool by_levels,
                std::uint64_t band_positions, const std::filesystem::path& folder, LevelCodes kind = LevelCodes::dtw)
        : space_(space), levels_(levels), by_levels_(by_levels), kind_(kind), sides_(sides_of(space.material())),
          king_placements_(space.king_placements()),
          configurations_(space.side(0).men_configurations()),
          per_band_(std::max<std::uint64_t>(1, band_positions / king_placements_)),
          side_bands_((configurations_ + per_band_ - 1) / per_band_),
          bands_(static_cast<std::size_t>(sides_ * side_bands_)), folder_(folder) {
        if (!by_levels_) return;
        if (folder_.empty()) throw std::logic_error("a material solved by levels needs a folder for them");
        std::error_code error;
        std::filesystem::create_directories(folder_, error);
        if (error)
            throw std::runtime_error("cannot create " + folder_.string() + ", a scratch folder of the build's: " +
                                     error.message());
    }

    // Where a killed solve of this material left off: the first level to
    // solve (0 if none), the levels before it and the largest code so far
    // (`max_code`) restored from the folder's checkpoint (checkpoint()). A
    // checkpoint that is damaged, or of another material or other options,
    // is not trusted: the material is solved from its first level. `note`
    // (if given) is told which, in a line for the user naming the table
    // (M, or M.rul for rule codes). By levels only.
    int resume(std::uint32_t& max_code, const std::function<void(const std::string&)>& note) {
        if (!by_levels_) return 0;
        const std::filesystem::path file = folder_ / "checkpoint.zst";
        if (std::filesystem::exists(file)) {
            try {
                resumed_at_ = restore(file, max_code);
                if (note)
                    note(table_name() + " resumed from its checkpoint at level " + std::to_string(resumed_at_ + 1) +
                         " of " + std::to_string(levels_.levels().size()));
                return resumed_at_;
            } catch (const std::exception& e) {
                if (note) note(std::string(e.what()) + "; solving " + table_name() + " from its first level");
                bands_.assign(bands_.size(), {});
                current_ = {};
                std::error_code ignored;
                std::filesystem::remove(file, ignored);
            }
        }
        spilled_ = std::make_unique<SpilledFrames>(folder_ / "levels.zst");
        return 0;
    }

    // Level l of levels().levels() is solved next, after l - 1: its codes
    // made, l - 1's kept to be read, and l - 2's cut into bands, packed and
    // spilled; by levels, a checkpoint of all that is written first
    // (`max_code`: the largest code so far).
    void start(int l, std::uint32_t max_code) {
        if (!by_levels_) {
            if (l == 0) current_ = SolvedValues(space_.material(), space_.side(0).size());
            return;
        }
        if (above_.codes.size() > 0) pack(std::move(above_), above_level_);
        if (l > 0 && l != resumed_at_) checkpoint(l, max_code);
        above_ = std::move(current_);
        above_level_ = current_level_;
        current_level_ = levels_.levels()[l];
        current_ = SolvedValues(space_.material(), space_.side(0).size(), 0, level_positions(current_level_));
    }

    // The most material m (its index `index`) holds by levels (the pairs'
    // scratch aside): the two largest neighbouring levels as codes (the level
    // solved and the one above; a material of kings only has one), and the
    // larger of what cutting the largest level into bands takes besides
    // (16 bytes a men configuration to sort them, and its parts packed,
    // counted at packed_bytes_a_position: 0.17 to 0.31 measured,
    // docs/results.md) and the window finish() puts together. The levels
    // left behind and the table are on disk.
    static std::uint64_t most_bytes(const Material& m, const Index<N>& index, const PotentialLevels<N>& levels,
                                    std::uint64_t band_positions) {
        const std::uint64_t K = index.king_placements(), sides = sides_of(m);
        const auto& all = levels.levels();
        std::uint64_t two = 0, largest = 0;
        for (std::size_t l = 0; l < all.size(); ++l) {
            two = std::max(two, sides * K *
                                    (all[l].men_configurations + (l > 0 ? all[l - 1].men_configurations : 0)));
            largest = std::max(largest, all[l].men_configurations);
        }
        const std::uint64_t cutting =
            16 * sides * largest +
            static_cast<std::uint64_t>(packed_bytes_a_position * static_cast<double>(sides * largest * K));
        const std::uint64_t window = std::min(sides * index.size(), window_of(K, band_positions));
        return SolvedValues::bytes_for(two) + std::max(cutting, SolvedValues::bytes_for(window));
    }
    static constexpr double packed_bytes_a_position = 0.375;

    bool by_levels() const noexcept { return by_levels_; }
    SolvedValues& current() noexcept { return current_; }
    const SolvedValues& above() const noexcept { return by_levels_ ? above_ : current_; }

    // Points a layout of a pair of the current level, made without its
    // children (PairSpace::layout_of(pair, false)), at the current level's
    // codes, and its man moves at the level above; by levels only (else it
    // is made with its children, in the table's places).
    void place(Layout& layout) const {
        if (!by_levels_) return;
        const std::uint64_t K = king_placements_;
        const std::uint64_t r = slot_in(current_level_, layout.men[0], 0);
        layout.storage_base[0] = static_cast<std::int64_t>(r);
        layout.storage_base[1] = static_cast<std::int64_t>(
            (sides_ == 1 ? slot_in(current_level_, layout.men[1], 0) : r + current_level_.men_configurations * K) - K);
        for (int h = 0; h < (layout.alone ? 1 : 2); ++h)
            for (int i = 0; i < layout.man_exit_count[h]; ++i) {
                auto& e = layout.man_exits[h][i];
                if (e.promotes) continue;
                Position child = layout.men[h];
                draughts::make_move(child, draughts::Move<N>{0, e.from, e.to, false});
                // The child, Black to move, turned round into the other side
                // (the same one when symmetric): M's orientation is the child
                // itself when it lands in side 1, turned round when in side 0.
                const int side = sides_ == 1 ? 0 : 1 - h;
                e.base = slot_in(above_level_, side == 1 ? child : child.flipped(), side);
            }
    }

    // The material's values once its last level is solved: whole as they
    // were held, or, held by levels, its table packed (the frames of
    // pack_range() over the whole, spilled to the folder) and counted, put
    // together a window of sixteen bands at a time (2^26 positions, 136 MiB,
    // by default), rounded to frames, from the bands read back and the two
    // levels held as codes, so that the whole is never held.
    std::variant<SolvedValues, PackedTable> finish(std::uint32_t max_code) {
        if (!by_levels_) {
            current_.max_code = max_code;
            return std::move(current_);
        }
        const std::uint64_t K = king_placements_, per_side = space_.side(0).size();
        auto frames = std::make_shared<SpilledFrames>(folder_ / "table.zst");
        PackedTable table{space_.material(), per_side, sides_ * per_side, max_code, {}, frames};
        const std::uint64_t window = window_of(K, per_band_ * K);
        for (std::uint64_t w = 0; w < table.positions; w += window) {
            SolvedValues part(table.material, per_side, w, std::min(window, table.positions - w));
            const std::uint64_t end = w + part.codes.size();
            std::vector<std::size_t> in;  // the bands in the window, their parts read back
            for (std::size_t b = 0; b < bands_.size(); ++b) {
                if (band_first(b) >= end || band_first(b + 1) <= w) continue;
                in.push_back(b);
                for (Part& p : bands_[b])
                    if (p.range.frame_bytes.empty())
                        p.range = spilled_->read(p.first_frame, packed_frames(p.positions));
            }
            tbb::parallel_for(std::size_t{0}, in.size(), [&](std::size_t i) { put_together(in[i], part); });
            for (const std::size_t b : in)
                if (band_first(b + 1) <= end) bands_[b] = {};
            table.counts += count_wdl(part.codes.size(), [&](std::size_t i) {
                return kind_ == LevelCodes::rule ? value_of_rule_code(part.codes[i]) : value_of_dtw_code(part.codes[i]);
            });
            frames->append(pack_range(part, w, part.codes.size()));
        }
        above_ = {};
        current_ = {};
        return table;
    }

private:
    // A level's part of a band: its configurations in the band, in the
    // table's order, packed, spilled to the folder (its first frame there)
    // and read back by finish().
    struct Part {
        int potential;
        std::uint64_t positions = 0;
        std::size_t first_frame = 0;
        PackedRange range;  // empty until read back
    };

    std::uint64_t level_positions(const Level& level) const noexcept {
        return static_cast<std::uint64_t>(sides_) * level.men_configurations * king_placements_;
    }

    // Where men configuration `men` (in M's orientation) of `level` has its
    // first king placement in `side` of the level's codes.
    std::uint64_t slot_in(const Level& level, const Position& men, int side) const noexcept {
        return (side * level.men_configurations + levels_.rank_in_level(men.white, men.black)) * king_placements_;
    }

    // A men configuration's place in the table: side s's configuration c is
    // s * configurations_ + c.
    std::uint64_t table_configuration(int side, Bitboard white, Bitboard black) const {
        if (side == 0) return space_.side(0).rank_men(white, black);
        const Position turned = Position{white, black, 0, draughts::Color::white}.flipped();
        return configurations_ + space_.side(1).rank_men(turned.white, turned.black);
    }
    // The positions finish() puts together at once: sixteen bands of
    // `band` positions, rounded up to whole frames.
    static std::uint64_t window_of(std::uint64_t K, std::uint64_t band) noexcept {
        constexpr std::uint64_t frame = std::uint64_t{1} << PackedRange::frame_shift;
        const std::uint64_t per_band = std::max<std::uint64_t>(1, band / K) * K;
        return (16 * per_band + frame - 1) / frame * frame;
    }

    // The first position of band b in the table (b = bands_.size(): the end).
    std::uint64_t band_first(std::size_t b) const noexcept {
        const std::uint64_t side = b >= side_bands_;
        const std::uint64_t c = std::min((b - side * side_bands_) * per_band_, configurations_);
        return (side * configurations_ + c) * king_placements_;
    }
    std::uint64_t band_of(std::uint64_t configuration) const noexcept {
        const std::uint64_t side = configuration >= configurations_;
        return side * side_bands_ + (configuration - side * configurations_) / per_band_;
    }

    // `level`'s codes cut into the bands, each band's part put in the
    // table's order (the level's configurations sorted by their place in
    // the table) and packed.
    void pack(SolvedValues codes, const Level& level) {
        const std::uint64_t K = king_placements_, n = level.men_configurations;
        std::vector<std::pair<std::uint64_t, std::uint64_t>> order(static_cast<std::size_t>(sides_ * n));
        constexpr std::uint64_t slice = std::uint64_t{1} << 12;
        tbb::parallel_for(std::uint64_t{0}, (n + slice - 1) / slice, [&](std::uint64_t s) {
            std::uint64_t r = s * slice;
            levels_.for_each_men_configuration(level.potential, r, slice, [&](Bitboard white, Bitboard black) {
                for (int side = 0; side < sides_; ++side)
                    order[side * n + r] = {table_configuration(side, white, black), (side * n + r) * K};
                ++r;
            });
        });
        tbb::parallel_sort(order.begin(), order.end());
        std::vector<std::size_t> starts;
        for (std::size_t i = 0; i < order.size(); ++i)
            if (i == 0 || band_of(order[i].first) != band_of(order[i - 1].first)) starts.push_back(i);
        starts.push_back(order.size());
        std::vector<PackedRange> packed(starts.size() - 1);
        tbb::parallel_for(std::size_t{0}, packed.size(), [&](std::size_t j) {
            const std::size_t i0 = starts[j], i1 = starts[j + 1];
            SolvedValues part(codes.material, codes.positions_per_side, 0, (i1 - i0) * K);
            for (std::size_t i = i0; i < i1; ++i) copy_run(codes, order[i].second, part, (i - i0) * K, K);
            packed[j] = pack_range(part, 0, part.codes.size());
        });
        codes = {};
        for (std::size_t j = 0; j < packed.size(); ++j)
            bands_[band_of(order[starts[j]].first)].push_back(
                {level.potential, (starts[j + 1] - starts[j]) * K, spilled_->append(packed[j]), {}});
    }

    // The checkpoint before level l, whose level above (l - 1) is current_
    // and the levels before that spilled: a frames file of the folder's
    // (packed_file.hpp), written whole or not at all, whose words give l,
    // the largest code so far, the band size, the table's positions, each
    // spilled frame's size and checksum and each band's parts (band,
    // potential, positions, first frame) and the checksum of those words,
    // and whose frames are level l - 1's codes packed. Test hook:
    // DTB_TEST_KILL_AT_LEVEL=MATERIAL:L kills the process once the
    // checkpoint before level L (counted from 0) is written (MATERIAL.rul:L
    // for the rule solve's).
    void checkpoint(int l, std::uint32_t max_code) const {
        std::vector<std::uint64_t> words{static_cast<std::uint64_t>(l), max_code, per_band_,
                                         sides_ * space_.side(0).size()};
        const std::vector<std::uint64_t> sizes = spilled_->frame_bytes();
        words.push_back(sizes.size());
        for (std::size_t f = 0; f < sizes.size(); ++f) {
            words.push_back(sizes[f]);
            words.push_back(spilled_->checksums()[f]);
        }
        std::uint64_t parts = 0;
        for (const auto& band : bands_) parts += band.size();
        words.push_back(parts);
        for (std::size_t b = 0; b < bands_.size(); ++b)
            for (const Part& p : bands_[b])
                words.insert(words.end(), {b, static_cast<std::uint64_t>(p.potential), p.positions, p.first_frame});
        words.push_back(words_checksum(words));
        write_frames_file(folder_ / "checkpoint.zst", checkpoint_label(), words,
                          pack_range(current_, 0, current_.codes.size()));
        const std::string kill = table_name() + ":" + std::to_string(l);
        if (const char* at = std::getenv("DTB_TEST_KILL_AT_LEVEL"); at && kill == at) std::raise(SIGKILL);
    }

    // What checkpoint() wrote, back: the level it was written before.
    // Throws std::runtime_error naming the file and what is wrong.
    int restore(const std::filesystem::path& file, std::uint32_t& max_code) {
        const FramesFile read = read_frames_file(file, checkpoint_label());
        const auto wrong = [&](const std::string& what) {
            return std::runtime_error(file.string() + ": " + what + " (a checkpoint of the build's)");
        };
        std::vector<std::uint64_t> words = read.words;
        if (words.empty() || words.back() != words_checksum(std::span(words).first(words.size() - 1)))
            throw wrong("its words differ from what was written");
        words.pop_back();
        std::size_t at = 0;
        const auto next = [&] {
            if (at >= words.size()) throw wrong("cut short");
            return words[at++];
        };
        const std::uint64_t l = next(), code = next();
        if (next() != per_band_ || next() != sides_ * space_.side(0).size())
            throw wrong("written with other options");
        if (l == 0 || l >= levels_.levels().size()) throw wrong("of a level the material does not have");
        std::vector<std::uint64_t> sizes(next()), sums(sizes.size());
        for (std::size_t f = 0; f < sizes.size(); ++f) {
            sizes[f] = next();
            sums[f] = next();
        }
        std::vector<std::vector<Part>> bands(bands_.size());
        for (std::uint64_t parts = next(); parts > 0; --parts) {
            const std::uint64_t b = next(), potential = next(), positions = next(), first = next();
            if (b >= bands.size() || first > sizes.size() || packed_frames(positions) > sizes.size() - first)
                throw wrong("listing parts that are not there");
            bands[b].push_back({static_cast<int>(potential), positions, static_cast<std::size_t>(first), {}});
        }
        if (at != words.size()) throw wrong("longer than its parts");
        const Level& above = levels_.levels()[l - 1];
        SolvedValues codes(space_.material(), space_.side(0).size(), 0, level_positions(above));
        unpack_range(read.frames.bytes, read.frames.frame_bytes, codes, 0, codes.codes.size(), file.string());
        spilled_ = std::make_unique<SpilledFrames>(folder_ / "levels.zst", sizes, sums);
        bands_ = std::move(bands);
        current_ = std::move(codes);
        current_level_ = above;
        max_code = static_cast<std::uint32_t>(code);
        return static_cast<int>(l);
    }

    // The table the codes are of, as the build names it to the user.
    std::string table_name() const { return space_.material().name() + (kind_ == LevelCodes::rule ? ".rul" : ""); }
    std::string checkpoint_label() const {
        return space_.material().name() + (kind_ == LevelCodes::rule ? " rule" : "") + " levels checkpoint";
    }
    // The checksum of a checkpoint's words (the frames file checks only its frames).
    static std::uint64_t words_checksum(std::span<const std::uint64_t> words) noexcept {
        return checksum(std::as_bytes(words));
    }

    // Band b of the table put together into `values`, where they hold it:
    // its configurations in order, each from the next positions of its
    // level's part, or from its place in one of the two levels still held as
    // they are.
    void put_together(std::size_t b, SolvedValues& values) const {
        const std::vector<Part>& parts = bands_[b];
        std::vector<SolvedValues> unpacked;
        std::vector<int> part_of(static_cast<std::size_t>(levels_.levels().front().potential + 1), -1);
        for (const Part& part : parts) {
            part_of[static_cast<std::size_t>(part.potential)] = static_cast<int>(unpacked.size());
            unpacked.emplace_back(values.material, values.positions_per_side, 0, part.positions);
            unpack_range(part.range.bytes, part.range.frame_bytes, unpacked.back(), 0, part.positions,
                         "level " + std::to_string(part.potential));
        }
        std::vector<std::uint64_t> next(parts.size(), 0);
        const int side = b >= side_bands_;
        const Index<N>& index = space_.side(side);
        const std::uint64_t K = king_placements_, first = (b - side * side_bands_) * per_band_;
        const std::uint64_t last = std::min(first + per_band_, configurations_);
        const std::uint64_t low = values.first, high = values.first + values.codes.size();
        for (std::uint64_t c = first; c < last; ++c) {
            const Position men = index.unrank_men(c);
            const int p = potential<N>(men.white, men.black);
            // The configuration's run in the table, and the part of it `values` holds.
            const std::uint64_t at = side * values.positions_per_side + c * K;
            const std::uint64_t from = std::max(at, low), to = std::min(at + K, high);
            if (const int j = part_of[static_cast<std::size_t>(p)]; j >= 0) {
                if (from < to) copy_run(unpacked[j], next[j] + (from - at), values, from, to - from);
                next[j] += K;
            } else if (from < to) {  // a level held as it is: side 1's men turned back into M's orientation
                const bool above = p == above_level_.potential && above_.codes.size() > 0;
                copy_run(above ? above_ : current_,
                         slot_in(above ? above_level_ : current_level_, side == 0 ? men : men.flipped(), side) +
                             (from - at),
                         values, from, to - from);
            }
        }
    }

    // `count` codes and capture marks from `from` at f to `to` at t.
    static void copy_run(const SolvedValues& from, std::uint64_t f, SolvedValues& to, std::uint64_t t,
                         std::uint64_t count) {
        std::copy_n(from.codes.begin() + static_cast<std::ptrdiff_t>(f - from.first), count,
                    to.codes.begin() + static_cast<std::ptrdiff_t>(t - to.first));
        for (std::uint64_t i = 0; i < count; i += 64) {
            const int k = static_cast<int>(std::min<std::uint64_t>(64, count - i));
            to.mark_capture_bits(t + i, from.capture_bits(f + i, k), k);
        }
    }

    const PairSpace<V>& space_;
    const PotentialLevels<N>& levels_;
    bool by_levels_;
    LevelCodes kind_;
    int sides_;
    std::uint64_t king_placements_;
    Level current_level_{}, above_level_{};
    std::uint64_t configurations_;  // of each side
    std::uint64_t per_band_;        // men configurations a band
    std::uint64_t side_bands_;      // bands a side
    SolvedValues current_, above_;
    std::vector<std::vector<Part>> bands_;  // each band's parts, a level each
    std::filesystem::path folder_;
    std::unique_ptr<SpilledFrames> spilled_;  // the levels left behind, packed
    int resumed_at_ = -1;                     // the level resume() restored the solve before
};

}  // namespace dtb
