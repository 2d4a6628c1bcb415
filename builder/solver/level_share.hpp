// A team member's share of one level, or of one part of it (docs/design.md,
// "Distributed build"): its portions (pairs whole, or its range of each pair
// split over the team), where their codes go in the level's work area, the
// stages a level of whole pairs is solved in, and the chunks whose lookups
// are made together.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "builder/solver/pair_space.hpp"
#include "builder/team/team_options.hpp"
#include "builder/team/ranges.hpp"
#include "probe/potential.hpp"

namespace dtb {

template <class V>
class LevelShare {
public:
    static constexpr int N = V::board_size;
    using Pair = typename PairSpace<V>::Pair;
    using Split = typename PairSpace<V>::Split;
    using SplitPair = typename PairSpace<V>::SplitPair;
    using Layout = typename PairSpace<V>::Layout;

    // What a member solves of a level: a pair whole, or its share
    // [first, last) of a pair split over the team. Its codes go to the
    // level's work area from `work` on.
    struct Portion {
        Pair pair;
        std::uint64_t first, last;
        std::uint64_t work;
        const SplitPair* split;  // null for a whole pair
        std::uint32_t lock_base;  // a split pair's: the state index of `first` in the member's queue
        // Where the member's positions of each half of the pair are: local
        // position l at work l + storage_shift[h], state l + state_shift[h]
        // (a split pair's halves are two portions; set by place()).
        std::int64_t storage_shift[2] = {0, 0};
        std::int64_t state_shift[2] = {0, 0};
        std::uint32_t count() const noexcept { return static_cast<std::uint32_t>(last - first); }
        int half(std::uint64_t king_placements) const noexcept { return first >= king_placements; }
    };

    // A run of positions whose lookups are made and answered together, in
    // order: the whole pairs portions[p0, p1) (small pairs), or positions
    // [first, last) of portions[p0] (big or split pairs).
    struct Chunk {
        std::size_t p0, p1;
        std::uint64_t first, last;
        const std::uint16_t* entries;  // its answers (look_up())
    };

    // How much of a portion's layout a use needs: all of it, its man exits
    // without their children's configurations (the man moves' values come
    // as answers, or from fetched blocks whose places layout_for_setup()
    // sets), or where its positions are only (results sent home).
    enum class Needs { all, exits, placement };

    // A part of a level a team solves at once: the level's men
    // configurations [first, first + count), dealt as whole pairs or every
    // pair split over the team.
    struct Part {
        std::uint64_t first, count;
        bool split;
    };

    // The parts a team of `members` solves `level` in, one after the other:
    // the configurations dealt whole, then those split
    // (configurations_dealt_whole()). Pairs of fewer than
    // min_split_positions are never split; whole pairs are numbered with 32
    // bits, so bigger ones always are.
    static std::vector<Part> parts(const PairSpace<V>& space, const TeamOptions& options, int members,
                                   const typename PotentialLevels<N>::Level& level) {
        const std::uint64_t configurations = level.men_configurations;
        const std::uint64_t K = space.side(0).king_placements();
        if (2 * K < options.min_split_positions) return {{0, configurations, false}};
        if (2 * K >= std::uint64_t{1} << 31) return {{0, configurations, true}};
        const std::uint64_t whole =
            configurations_dealt_whole(configurations, static_cast<std::uint64_t>(members), options.uneven_deal);
        std::vector<Part> out;
        if (whole > 0) out.push_back({0, whole, false});
        if (whole < configurations) out.push_back({whole, configurations - whole, true});
        return out;
    }

    // Member `me` of a team of `members`: its share of `part` of the
    // level's men configurations, whole pairs, or its share of every pair
    // of a part split.
    LevelShare(const PairSpace<V>& space, const TeamOptions& options, int members, int me,
               const PotentialLevels<N>& levels, const typename PotentialLevels<N>::Level& level, const Part& part)
        : split(part.split), space_(space), big_(options.shared_pair_positions) {
        const std::uint64_t configurations = part.count;
        const std::uint64_t K = space.side(0).king_placements();
        if (split) {
            const std::vector<Pair> pairs = space.pairs_of(levels, level.potential, part.first, part.count);
            splits.resize(pairs.size());  // before the portions point into it
            std::vector<std::uint64_t> lock_next(members, 0);
            for (std::size_t i = 0; i < pairs.size(); ++i)
                for (int h = 0; h < (pairs[i].alone ? 1 : 2); ++h) {
                    Split& s = splits[i].half[h];
                    for (int j = 0; j <= members; ++j) s.bounds.push_back(h * K + share_bound(K, j, members));
                    for (int j = 0; j < members; ++j) {
                        s.lock_base.push_back(static_cast<std::uint32_t>(lock_next[j]));
                        lock_next[j] += s.bounds[j + 1] - s.bounds[j];
                    }
                    if (lock_next[me] >= std::uint64_t{1} << 32)
                        throw std::runtime_error(space.material().name() + ": more than 2^32 positions of one level on "
                                                 "one member; build it on more ranks");
                    const std::uint64_t f = s.bounds[me], l = s.bounds[me + 1];
                    if (f < l) portions.push_back({pairs[i], f, l, 0, &splits[i], s.lock_base[me]});
                }
        } else {
            // The level's configurations in slices dealt out in turn, 16 a
            // member: neighbouring configurations cost alike, so one slice
            // each would leave some members with the dear ones.
            const auto slices = static_cast<int>(std::min<std::uint64_t>(configurations, 16 * std::uint64_t(members)));
            for (int i = me; i < slices; i += members) {
                const std::uint64_t first = share_bound(configurations, i, slices);
                const std::uint64_t last = share_bound(configurations, i + 1, slices);
                for (const Pair& pair : space.pairs_of(levels, level.potential, part.first + first, last - first)) {
                    const auto size = static_cast<std::uint32_t>(space.pair_positions(pair));
                    portions.push_back({pair, 0, size, 0, nullptr, 0});
                }
            }
        }
        // Small whole pairs first (chunks of several), then the big ones and
        // the shares of split pairs (chunks of slices).
        std::stable_partition(portions.begin(), portions.end(), [&](const Portion& p) { return small(p); });
        // A level of whole pairs is solved in stages of at most
        // stage_positions positions (a bigger pair a stage of its own):
        // while one stage is solved, another thread sends the results of the
        // stage before to their homes and fetches the man moves' blocks of
        // the stage after, so that the exchanges cross while the member works
        // (docs/design.md, "A level in stages"). A split level is one stage.
        if (!split) {
            std::uint64_t n = 0;
            for (std::size_t p = 0; p < portions.size(); ++p) {
                if (n > 0 && n + portions[p].count() > options.stage_positions) {
                    stage_first.push_back(p);
                    n = 0;
                }
                n += portions[p].count();
            }
        }
        stage_first.push_back(portions.size());
        work = place();
        // Chunks within a stage: small whole pairs several to a chunk, big
        // pairs and the shares of split pairs in slices.
        constexpr std::uint32_t slice = 4096;
        for (std::size_t st = 0; st + 1 < stage_first.size(); ++st) {
            std::size_t p = stage_first[st];
            const std::size_t end = stage_first[st + 1];
            while (p < end && small(portions[p])) {
                std::size_t q = p;
                std::uint64_t n = 0;
                while (q < end && small(portions[q]) && n < slice) n += portions[q++].count();
                chunks.push_back({p, q, 0, 0, nullptr});
                p = q;
            }
            for (; p < end; ++p)
                for (std::uint64_t f = portions[p].first; f < portions[p].last; f += slice)
                    chunks.push_back({p, p + 1, f, std::min<std::uint64_t>(portions[p].last, f + slice), nullptr});
            stage_chunks.push_back(chunks.size());
        }
    }
    LevelShare(const LevelShare&) = delete;  // the portions point into `splits`
    LevelShare& operator=(const LevelShare&) = delete;

    // A whole pair solved on one thread, several to a chunk; the others
    // (PairQueue::solve_shared(), or split) with all threads.
    bool small(const Portion& p) const noexcept { return !p.split && p.count() < big_; }

    // The layout of a portion inside the level's work area (place()). A
    // split pair's locals are in block order; so are a big whole pair's,
    // whose questions are asked and positions set up in that order, as one
    // process sets a big pair up (PairQueue::solve_shared()): their places
    // in the work area are the same, in another order, and hold the table's
    // order once the pair is solved.
    Layout layout_in_work(const Portion& portion, Needs needs = Needs::all) const {
        Layout layout = needs == Needs::placement ? space_.placement_of(portion.pair)
                                                  : space_.layout_of(portion.pair, needs == Needs::all);
        for (int h = 0; h < 2; ++h) {
            layout.storage_base[h] = portion.storage_shift[h];
            layout.state_shift[h] = portion.state_shift[h];
        }
        layout.split = portion.split;
        layout.in_blocks = !small(portion);
        return layout;
    }

    // Calls f(layout, first, last) for the runs of positions of a chunk.
    template <class F>
    void for_each_run(const Chunk& c, Needs needs, F&& f) const {
        if (c.p1 > c.p0 + 1 || c.last == 0) {
            for (std::size_t p = c.p0; p < c.p1; ++p)
                f(layout_in_work(portions[p], needs), portions[p].first, portions[p].last);
        } else {
            f(layout_in_work(portions[c.p0], needs), c.first, c.last);
        }
    }

    // The positions of a chunk.
    std::uint64_t positions(const Chunk& c) const {
        if (c.p1 == c.p0 + 1 && c.last != 0) return c.last - c.first;
        std::uint64_t n = 0;
        for (std::size_t p = c.p0; p < c.p1; ++p) n += portions[p].count();
        return n;
    }

    bool split;                              // every pair of the part split over the team
    std::vector<SplitPair> splits;           // the part's pairs, when split
    std::vector<Portion> portions;           // small whole pairs first
    std::vector<std::size_t> stage_first{0};  // each stage's first portion, and the end
    std::vector<Chunk> chunks;
    std::vector<std::size_t> stage_chunks{0};  // each stage's first chunk, and the end
    std::uint64_t work;                        // the size of the level's work area

private:
    // Numbers the portions' work areas in order, each stage's from a
    // multiple of 64 (so that no word of capture marks is shared by two
    // stages, one solved while the other's results are read), and tells each
    // portion of a split pair where its sibling (the member's share of the
    // other half) is. Returns the size of the work area.
    std::uint64_t place() {
        const std::uint64_t K = space_.side(0).king_placements();
        std::uint64_t at = 0;
        for (std::size_t i = 0, stage = 0; i < portions.size(); ++i) {
            Portion& p = portions[i];
            while (stage_first[stage] < i) ++stage;
            if (stage_first[stage] == i) at = (at + 63) / 64 * 64;
            p.work = std::exchange(at, at + p.count());
            const std::int64_t storage = static_cast<std::int64_t>(p.work) - static_cast<std::int64_t>(p.first);
            if (!p.split) {
                p.storage_shift[0] = p.storage_shift[1] = storage;
                p.state_shift[0] = p.state_shift[1] = -static_cast<std::int64_t>(p.first);  // the pair's own scratch
            } else {
                const int h = p.half(K);
                p.storage_shift[h] = storage;
                p.state_shift[h] = static_cast<std::int64_t>(p.lock_base) - static_cast<std::int64_t>(p.first);
            }
        }
        for (std::size_t i = 0; i + 1 < portions.size(); ++i) {
            Portion &a = portions[i], &b = portions[i + 1];
            if (!a.split || a.split != b.split) continue;  // the two halves of one split pair
            a.storage_shift[1] = b.storage_shift[1];
            a.state_shift[1] = b.state_shift[1];
            b.storage_shift[0] = a.storage_shift[0];
            b.state_shift[0] = a.state_shift[0];
        }
        return at;
    }

    const PairSpace<V>& space_;
    std::uint64_t big_;
};

}  // namespace dtb
