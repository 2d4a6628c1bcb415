// The projected scaling of a distributed build (docs/scaling.md). The plan is
// the real one: every material of the variant up to N pieces with its exact
// size, potential levels, men configurations per level and dependencies, run
// through dtb's own scheduler (builder/driver/scheduler.hpp) over simulated time.
// What is modelled is how long a material takes on a team of k ranks of T
// threads, from costs measured on this project's machine (the options), and
// a network that is assumed (also options):
//
//   alone:    P c / (T e)
//   a team:   P c f(k) / (k T e)                   the work, f the team's extra processor time
//           + P b(k) / (k B)                       the bytes each member exchanges
//             (a level of whole pairs with kings in S stages of 2^18 positions a member, as dtb solves it:
//              only 1/S of its bytes, and what of the rest takes longer than the work, --stages; a
//              split level's updates the same way, one batch a distance standing alone)
//             (f and b more when a table it reads is shared out: --shared-overhead, --shared-bytes,
//              measured on a material with all its tables shared out and charged in proportion to the
//              questions a position asks of those shared out here, sampled, --shared-position-part of
//              the overhead a position whatever it asks)
//           + rounds x latency(k)                  the team's collective rounds, level by level
//   and for each table it reads, X(P') the time its P' positions take to cross:
//     held whole by every member (it fits a quarter of a rank's memory):
//           + X(P')                                if a member lacks it (broadcast by one that has it)
//           + X(P')                                if no member has it: fetched from the ranks that keep it,
//        or + P' c_read / (k T e)                  read back from its file together if none does
//     shared out (too big to hold whole):
//           + X(P' / k)                            each member's range from the ranks that keep it,
//        or + P' c_read / (k T e)                  read back from the file if they no longer do
//   X(P') = P' t / B; packed, in parts of 2^26 positions, each packed on
//   T e threads, sent, unpacked on T e threads, the parts in a pipeline
//
// P positions, c thread-seconds a position, e the threads' efficiency in a
// rank, b bytes a position exchanged and f the team's processor time over
// one rank's, both measured on teams of 2 for levels shared out by whole
// pairs and for levels whose pairs are split, and taken in proportion to the
// part of the lookups that cross ranks on k, (k - 1) / k against 1/2: f(k) =
// 1 + (f(2) - 1) 2 (k - 1) / k, b(k) = b(2) 2 (k - 1) / k; for split levels
// only a part g of f(2) - 1 grows so (--split-growth, --whole-growth for
// whole pairs with kings; measured on teams of 2 to 4, where f hardly
// moved): f(k) = 1 + (f(2) - 1)(1 + g (2 (k - 1) / k - 1)). B bytes a second a
// rank sends, t bytes a position of a table on the network (2.125 raw; packed,
// measured), pack and unpack a thread's speed in bytes of codes a second,
// latency(k) a collective's on k ranks. Rounds a level: lookups
// and results in rounds of 2^20 positions a member, and for split levels one
// round of updates per distance (--distances) with two all-reduces. Each
// rank keeps in its memory (--memory-gib, least recently used dropped first)
// the tables it solved alone or held whole, and its range of those it solved
// in a team, as dtb build does. The efficiency is one rank's work (the sum of
// P c / (T e), nothing read back) over ranks x time; the idle time is also
// given for the moments when no material was ready to start. A table's parts
// are packed once, when they first cross, and sent packed to later askers
// (--packed-once, as dtb); --growing-teams 1 asks what if idle ranks joined
// running teams between levels (dtb's teams keep their size). The scheduler
// is told the simulated time, as dtb's coordinator tells it the real one
// (--clock 0: not told).
//
//     scaling_projection --variant canadian --pieces 6 --ranks 1,16,64,256
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "builder/driver/build.hpp"
#include "builder/driver/scheduler.hpp"
#include "builder/team/team_options.hpp"
#include "builder/values/solved_values.hpp"
#include "draughts/movegen.hpp"
#include "draughts/variant.hpp"
#include "probe/index.hpp"
#include "probe/potential.hpp"
#include "probe/table_format.hpp"

namespace {

struct Model {
    int threads = 32;                     // T
    double ns_per_position = 167;         // c, one thread, a material alone (Canadian up to 5 pieces)
    double thread_efficiency = 0.9;       // e
    double whole_overhead = 1.03;         // f, levels shared out by whole pairs
    double men_overhead = 1.33;           // f, the same, men only (a position a pair)
    double split_overhead = 1.29;         // f, levels whose pairs are split
    double split_growth = 0.1;            // how much of a split level's f(2) - 1 grows with k (1: all, as the bytes)
    double whole_growth = 0.1;            // the same, levels of whole pairs with kings
    double whole_bytes = 2.89;            // b, bytes a position, whole pairs
    double men_bytes = 9.60;              // b, men only
    double split_bytes = 5.57;            // b, split pairs
    double bandwidth = 12.5e9;            // B, bytes a second a rank sends
    double latency_us = 5;                // a collective's latency: latency x (1 + log2 k) + 0.5 us x k
    double read_fraction = 0.5;           // c_read / c: reading a table back, over solving it
    double memory_bytes = 192.0 * (1 << 30);  // a rank's memory for tables
    int distances = 150;                  // rounds of updates of a split level
    double held_ratio = dtb::TeamOptions{}.held_ratio;  // a team of k holds a table whole only if k P' <= this x P (dtb's)
    double shared_bytes = 4.16;           // bytes a position more when what it reads is shared out (measured)
    double shared_overhead = 1.19;        // f more by this less 1, the same (lookups into them are questions)
                                          // (both on shared_reference, all its tables shared out)
    bool shared_by_questions = true;      // charged by the questions into tables shared out (else all of it)
    double shared_position_part = 0;      // of shared_overhead - 1, the part a position pays whatever it asks
    std::string shared_reference = "KKMvKM";  // the Canadian material the shared inputs were measured on
    double reference_questions = 0;       // the questions a position of it asks, all its tables shared out (sampled)
    int question_samples = 1 << 16;       // positions sampled a material
    double table_bytes = 0.172;           // bytes a position of a table sent to a rank, packed
    double pack_gbps = 0.79;              // GB of codes a thread packs a second (0: tables cross raw)
    double unpack_gbps = 2.24;            // GB of codes a thread unpacks a second
    // 2^24: the projections of cluster/README were made with it (dtb build's
    // default was 2^24 then, is 2^28 now, and teams also form where memory
    // requires, which this model leaves out).
    std::uint64_t team_positions = std::uint64_t{1} << 24;
    double uneven_deal = dtb::TeamOptions{}.uneven_deal;  // as dtb deals a level to a team
    bool packed_once = true;     // a holder packs a table's part once, and sends it again to further askers
    bool growing_teams = false;  // what if ranks with nothing to do joined running teams (dtb does not)
    bool clock = true;           // the scheduler told the time: teams start smaller, or ranks backfill (as dtb)
    bool stages = true;          // levels of whole pairs with kings in stages, their exchanges beside the work (as dtb)
    double stage_positions = 1 << 18;  // a member's positions a stage (dtb's TeamOptions::stage_positions)
    double update_positions = 1 << 16;  // a split queue's updates a batch (TeamOptions::update_positions)
    double split_update_share = 0.75;   // of a split level's bytes, its updates
};

// Seconds a table of `bytes` (2.125 a position, as ranks hold it) takes to
// reach a rank. Raw, the bytes over the network. Packed, in parts of 2^26
// positions: packed on the sender's threads, sent, unpacked on the
// receiver's, the stages of different parts at once (a pipeline): the three
// stages of one part, then the slowest stage for each further part.
double crossing_seconds(const Model& m, double bytes, bool packed = false) {
    const double part = 2.125 * (1 << 26);
    const double parts = std::max(1.0, std::ceil(bytes / part)), each = bytes / parts;
    const double threads = m.threads * m.thread_efficiency;
    const double send = each * (m.table_bytes / 2.125) / m.bandwidth;
    if (m.pack_gbps <= 0) return parts * send;
    const double pack = packed ? 0 : each / (threads * m.pack_gbps * 1e9);
    const double unpack = m.unpack_gbps > 0 ? each / (threads * m.unpack_gbps * 1e9) : 0;
    return pack + send + unpack + (parts - 1) * std::max({pack, send, unpack});
}

struct Material {
    dtb::Material material;
    std::uint64_t positions = 0;
    std::vector<double> level_share;  // each level's share of the positions
    std::vector<std::uint64_t> level_configurations;
    std::vector<int> reads;      // the units of the tables it reads
    std::vector<double> questions;  // of each, a position's questions if it is shared out (sampled)
    std::vector<int> waits_for;  // those of them built in this run (all, here)
};

// The children of a position of m (White to move, either side of its
// table) in each of `reads`, the materials its captures and promotions lead
// to, whose values a team asks of their members when it shares them out:
// the mean over `samples` positions drawn at random (a fixed seed).
// Children whose side to move has no piece left are known without asking.
template <class V>
std::vector<double> questions_into(const dtb::Material& m, const std::vector<dtb::Material>& reads, int samples) {
    constexpr int N = V::board_size;
    const dtb::Index<N> own(m), mirror(m.mirrored());
    const std::uint64_t positions = dtb::table_positions<N>(m);
    std::mt19937_64 random(20261127);
    std::vector<double> out(reads.size(), 0);
    for (int i = 0; i < samples; ++i) {
        const draughts::Position<N> p = dtb::table_position(own, mirror, random() % positions);
        draughts::MoveList<N> moves;
        draughts::generate_moves<V>(p, moves);
        for (const draughts::Move<N>& move : moves) {
            draughts::Position<N> child = p;
            draughts::make_move(child, move);
            if (child.pieces(child.side_to_move) == 0) continue;
            const dtb::Material c = dtb::material_of(dtb::white_to_move(child)).canonical();
            if (c == m) continue;  // a man move: the pairs' own exchange
            const auto at = std::find(reads.begin(), reads.end(), c);
            if (at == reads.end()) throw std::logic_error("a move of " + m.name() + " left its successors");
            out[static_cast<std::size_t>(at - reads.begin())] += 1;
        }
    }
    for (double& q : out) q /= samples;
    return out;
}

template <class V>
std::vector<Material> plan(int pieces, int samples) {
    constexpr int N = V::board_size;
    std::vector<Material> out;
    const std::vector<dtb::Material> order = dtb::build_order(dtb::materials_up_to(pieces));
    const auto positions = dtb::table_positions<N>;
    for (const dtb::Material& m : order) {
        Material u;
        u.material = m;
        u.positions = positions(m);
        const dtb::PotentialLevels<N> levels(m);
        std::uint64_t total = 0;
        for (const auto& l : levels.levels()) total += l.men_configurations;
        for (const auto& l : levels.levels()) {
            u.level_share.push_back(static_cast<double>(l.men_configurations) / static_cast<double>(total));
            u.level_configurations.push_back(l.men_configurations);
        }
        const std::vector<dtb::Material> reads = dtb::successors(m);
        for (const dtb::Material& s : reads)
            u.reads.push_back(static_cast<int>(std::find(order.begin(), order.end(), s) - order.begin()));
        u.questions = questions_into<V>(m, reads, samples);
        u.waits_for = u.reads;
        out.push_back(std::move(u));
    }
    return out;
}

double collective_seconds(const Model& m, int k) {
    return (m.latency_us * (1 + std::log2(static_cast<double>(k))) + 0.5 * k) * 1e-6;
}

// Seconds material u takes on k ranks, and the parts of it.
struct Duration {
    double work = 0, exchange = 0, rounds = 0, tables = 0;
    double total() const { return work + exchange + rounds + tables; }
};

double alone_seconds(const Model& m, double positions) {
    return positions * m.ns_per_position * 1e-9 / (m.threads * m.thread_efficiency);
}

// The tables a material reads that its team shares out: whether any, and
// a position's questions into them.
struct Shared {
    bool any = false;
    double questions = 0;
};

// f and b more for lookups into tables shared out: measured on the reference
// material with all its tables shared out, charged in proportion to the
// questions (a part of f for every position, whatever it asks).
std::pair<double, double> shared_costs(const Model& m, const Shared& shared) {
    if (!shared.any) return {0, 0};
    if (!m.shared_by_questions) return {m.shared_overhead - 1, m.shared_bytes};
    const double q = shared.questions / m.reference_questions;
    return {(m.shared_overhead - 1) * (m.shared_position_part + (1 - m.shared_position_part) * q), m.shared_bytes * q};
}

// `shared`: the tables u reads that are shared out among the team, so
// lookups into them are questions to its members.
Duration solving(const Model& m, const Material& u, int k, std::size_t l0 = 0, Shared shared = {}) {
    const double p = static_cast<double>(u.positions);
    Duration d;
    if (k == 1) {
        double share = 0;
        for (std::size_t l = l0; l < u.level_share.size(); ++l) share += u.level_share[l];
        d.work = alone_seconds(m, p * share);
        return d;
    }
    // Measured on teams of 2, where half of what crosses pairs is elsewhere;
    // on k ranks (k - 1) / k of it is.
    const double remote = 2.0 * (k - 1) / k;
    // A level in its parts, as dtb solves it: the configurations dealt
    // whole, then those split (dtb::configurations_dealt_whole()).
    for (std::size_t l = l0; l < u.level_share.size(); ++l) {
        const std::uint64_t c = u.level_configurations[l];
        const std::uint64_t whole = dtb::configurations_dealt_whole(c, static_cast<std::uint64_t>(k), m.uneven_deal);
        for (const bool split : {false, true}) {
            const double share =
                u.level_share[l] * static_cast<double>(split ? c - whole : whole) / static_cast<double>(c);
            if (share == 0) continue;
            const bool men_only = u.material.men() == u.material.pieces();
            const double f2 = split ? m.split_overhead : men_only ? m.men_overhead : m.whole_overhead;
            const double b2 = split ? m.split_bytes : men_only ? m.men_bytes : m.whole_bytes;
            const auto [shared_f, shared_b] = shared_costs(m, shared);
            const double f = f2 + shared_f, b = b2 + shared_b;
            // A level's overhead measured on teams of 2, 3 and 4 hardly grows
            // with k (its bytes do): only `split_growth` or `whole_growth` of it
            // follows the share that crosses.
            const double growth = split ? m.split_growth : men_only ? 1 : m.whole_growth;
            const double work = alone_seconds(m, p * share) * (1 + (f - 1) * (1 + growth * (remote - 1))) / k;
            const double per_member = p * share / k;
            // The pairs' own exchange (man moves' blocks and results), and the
            // questions into tables shared out.
            const double own = per_member * b2 * remote / m.bandwidth;
            const double questions = per_member * (b - b2) * remote / m.bandwidth;
            d.work += work;
            if (m.stages && !split && !men_only) {
                // In stages: the first stage's fetch and the last's results stand
                // alone, the rest cross beside the work, unless they take longer.
                const double stages = std::max(1.0, std::ceil(per_member / m.stage_positions));
                d.exchange += own / stages + std::max(0.0, own - work) * (stages - 1) / stages + questions;
            } else if (m.stages && split) {
                // The predecessor updates (most of a split level's bytes) in
                // batches of 2^16 a member, each crossing while the next is
                // worked: one batch a distance stands alone.
                const double updates = own * m.split_update_share;
                const double per_distance = per_member * b2 * m.split_update_share * remote / 4 / m.distances;
                const double batches = std::max(1.0, std::ceil(per_distance / m.update_positions));
                d.exchange += own - updates + updates / batches +
                              std::max(0.0, updates - work) * (batches - 1) / batches + questions;
            } else {
                d.exchange += own + questions;
            }
            // Lookups and results: an all-reduce, exchanges.
            double rounds = 2 * (3 + std::ceil(per_member / (1 << 20)));
            if (split) rounds += 3.0 * m.distances;
            d.rounds += rounds * collective_seconds(m, k);
        }
    }
    return d;
}

// The tables a rank keeps, whole or its share, least recently used first out.
struct Kept {
    std::vector<std::pair<int, double>> order;  // table, bytes; most recent last
    double bytes = 0;
    double capacity = 0;
    bool has(int t) const {
        return std::any_of(order.begin(), order.end(), [&](const auto& e) { return e.first == t; });
    }
    void add(int t, double size) {
        const auto it = std::find_if(order.begin(), order.end(), [&](const auto& e) { return e.first == t; });
        if (it != order.end()) {
            bytes -= it->second;
            order.erase(it);
        }
        while (!order.empty() && bytes + size > capacity) {
            bytes -= order.front().second;
            order.erase(order.begin());
        }
        if (size > capacity) return;
        order.emplace_back(t, size);
        bytes += size;
    }
};

struct Outcome {
    double seconds = 0;
    double busy = 0;  // rank-seconds in work
    double exchange = 0, rounds = 0, tables = 0, overhead = 0;
    double idle_none_ready = 0;  // rank-seconds idle while no material was ready to start
    int teams = 0, largest_team = 1;
};

// What each rank keeps (whole tables and its shares of tables solved in a
// team), and who solved each table.
struct Keeping {
    std::vector<Kept> kept;
    std::vector<std::vector<int>> solved_by;
    Keeping(int ranks, std::size_t units, double capacity) : kept(ranks), solved_by(units) {
        for (Kept& k : kept) k.capacity = capacity;
    }
    // Some rank has t whole, or every rank that solved it still has its share.
    bool anywhere(int t, const std::vector<std::vector<bool>>& held) const {
        for (std::size_t r = 0; r < kept.size(); ++r)
            if (held[r][t]) return true;
        if (solved_by[t].empty()) return false;
        for (int r : solved_by[t])
            if (!kept[r].has(t)) return false;
        return true;
    }
};

// A material running on a team, from its current stretch of levels on.
struct Run {
    double at;  // when it ends
    int unit;
    std::vector<int> team;    // the first `homes` hold its values; the others joined it later
    int homes;
    Shared shared;            // the tables it reads shared out among the team
    double levels_start;      // when the levels from level_from on start
    std::size_t level_from;   // the first level of the stretch running now
    double whole_tables;      // what the tables its members hold whole take to reach a member
};

// What if: the ranks with nothing to do, when nothing is ready to start,
// join the running teams (the one that ends last first) at the end of the
// level each team is in, after receiving the tables every member holds
// whole; the levels left then take the time of the larger team. Only when
// that ends the material sooner. dtb's teams keep their size (docs/scaling.md).
void grow(const Model& m, const std::vector<Material>& units, dtb::Scheduler& s, double now, std::vector<Run>& runs,
          Outcome& o) {
    std::vector<int> free = s.idle_ranks();
    std::vector<Run*> order;
    for (Run& r : runs) order.push_back(&r);
    std::sort(order.begin(), order.end(), [](const Run* a, const Run* b) { return a->at > b->at; });
    for (Run* r : order) {
        const int k = static_cast<int>(r->team.size());
        const int add = std::min(static_cast<int>(free.size()), s.max_team_size(r->unit) - k);
        const Material& u = units[r->unit];
        if (k < 2 || add <= 0) continue;
        // The level running now, and when it ends.
        double boundary = r->levels_start;
        std::size_t l = r->level_from;
        for (; l < u.level_share.size(); ++l) {
            boundary += solving(m, u, k, l, r->shared).total() - solving(m, u, k, l + 1, r->shared).total();
            if (boundary > now) break;
        }
        if (l + 1 >= u.level_share.size()) continue;
        const int k2 = k + add;
        const Duration before = solving(m, u, k, l + 1, r->shared), after = solving(m, u, k2, l + 1, r->shared);
        const double start = std::max(boundary, now + r->whole_tables), end = start + after.total();
        if (end >= r->at) continue;
        o.busy += k * (boundary - now) + k2 * after.total() + add * r->whole_tables - k * (r->at - now);
        o.exchange += k2 * after.exchange - k * before.exchange;
        o.rounds += k2 * after.rounds - k * before.rounds;
        o.overhead += k2 * after.work - k * before.work;
        o.tables += add * r->whole_tables;
        for (int j = 0; j < add; ++j) {
            s.join(r->unit, free.back());
            r->team.push_back(free.back());
            free.pop_back();
        }
        r->at = end;
        r->levels_start = start;
        r->level_from = l + 1;
    }
}

Outcome simulate(const Model& m, const std::vector<Material>& units, int ranks) {
    std::vector<dtb::Scheduler::Unit> su;
    std::vector<double> sizes;
    for (const Material& u : units) {
        su.push_back({u.positions, u.waits_for, u.waits_for});
        sizes.push_back(static_cast<double>(dtb::SolvedValues::bytes_for(u.positions)));
    }
    dtb::Scheduler s(su, std::vector<int>(ranks, 1), m.team_positions);
    s.set_team_overhead(m.whole_overhead);  // the model's own, for its choice of teams
    Keeping keeping(ranks, units.size(), m.memory_bytes);
    // held[r][t]: rank r keeps table t whole.
    std::vector<std::vector<bool>> held(ranks, std::vector<bool>(units.size(), false));
    auto keep = [&](int r, int t, double bytes, bool whole) {
        keeping.kept[r].add(t, bytes);
        for (std::size_t x = 0; x < units.size(); ++x) held[r][x] = held[r][x] && keeping.kept[r].has(static_cast<int>(x));
        held[r][t] = whole && keeping.kept[r].has(t);
    };
    std::vector<Run> runs;
    std::vector<bool> packed(units.size(), false);
    Outcome o;
    double now = 0;
    std::vector<int> state(units.size(), 0);  // waiting, running, done
    while (!s.all_finished()) {
        for (const auto& a : s.assign(m.clock ? now : -1)) {
            const int k = static_cast<int>(a.team.size());
            const Material& u = units[a.unit];
            double tables = 0;  // what the tables it reads take to reach the team
            Shared shared;
            double whole_tables = 0;
            for (std::size_t i = 0; i < u.reads.size(); ++i) {
                const int t = u.reads[i];
                const double read_back = alone_seconds(m, static_cast<double>(units[t].positions) * m.read_fraction);
                const bool elsewhere = keeping.anywhere(t, held);
                const double p_t = static_cast<double>(units[t].positions);
                // A table crosses from the ranks that keep it, which packed
                // its parts when it first crossed (parts between multiples
                // of 2^26, whatever the range) and kept them (PackedParts).
                const bool packed_before = m.packed_once && packed[t];
                if (elsewhere) packed[t] = true;
                if (sizes[t] > m.memory_bytes / 4 ||
                    (k > 1 && k * p_t > m.held_ratio * static_cast<double>(u.positions))) {
                    // Shared out: each member takes its range, and asks for values in it.
                    tables += elsewhere ? crossing_seconds(m, sizes[t] / k, packed_before) : read_back / k;
                    shared.any = true;
                    shared.questions += u.questions[i];
                    continue;
                }
                // Held whole by every member: one member has it and sends it
                // (a broadcast), or fetches it first, or the team reads it
                // back together and all-gathers it.
                whole_tables += crossing_seconds(m, sizes[t]);
                bool in_team = false, lacking = false;
                for (int r : a.team) {
                    in_team |= held[r][t];
                    lacking |= !held[r][t];
                }
                if (lacking && k > 1) tables += crossing_seconds(m, sizes[t]);
                if (!in_team) tables += elsewhere ? crossing_seconds(m, sizes[t], packed_before) : read_back / k;
                for (int r : a.team) keep(r, t, sizes[t], true);
            }
            Duration d = solving(m, u, k, 0, shared);
            d.tables = tables;
            o.busy += d.total() * k;
            o.exchange += d.exchange * k;
            o.rounds += d.rounds * k;
            o.tables += d.tables * k;
            o.overhead += d.work * k - solving(m, u, 1).work;
            if (k > 1) ++o.teams;
            o.largest_team = std::max(o.largest_team, k);
            runs.push_back({now + d.total(), a.unit, a.team, k, shared, now + d.tables, 0, whole_tables});
            state[a.unit] = 1;
        }
        if (m.growing_teams && !s.any_ready()) grow(m, units, s, now, runs, o);
        if (runs.empty()) throw std::logic_error("the simulated build is stuck");
        const auto first =
            std::min_element(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.at < b.at; });
        const Run e = *first;
        runs.erase(first);
        bool ready = false;
        for (std::size_t x = 0; x < units.size() && !ready; ++x)
            ready = state[x] == 0 && std::all_of(units[x].waits_for.begin(), units[x].waits_for.end(),
                                                 [&](int w) { return state[w] == 2; });
        if (!ready) {
            std::size_t busy_ranks = e.team.size();
            for (const Run& r : runs) busy_ranks += r.team.size();
            o.idle_none_ready += (ranks - static_cast<double>(busy_ranks)) * (e.at - now);
        }
        now = e.at;
        state[e.unit] = 2;
        const std::vector<int> homes(e.team.begin(), e.team.begin() + e.homes);
        keeping.solved_by[e.unit] = homes;
        for (int r : homes) keep(r, e.unit, sizes[e.unit] / e.homes, e.homes == 1);
        for (int r : e.team) s.released(e.unit, r);
        s.finished(e.unit, m.clock ? now : -1);
    }
    o.seconds = now;
    return o;
}

std::string hours(double seconds) {
    if (seconds < 3600) return fmt::format("{:.1f} min", seconds / 60);
    return fmt::format("{:.2f} h", seconds / 3600);
}

// The model's inputs as this run takes them, each with where its default
// comes from (the bracket that ends its description) and whether it was
// given: the projection is a tool, and what it rests on is printed with it.
void print_inputs(const CLI::App& app) {
    fmt::print("{:<24} {:>10}  {}\n", "input", "value", "source of the default");
    for (const CLI::Option* o : app.get_options()) {
        const std::string d = o->get_description();
        const auto open = d.rfind('[');
        if (open == std::string::npos || d.back() != ']') continue;  // not a model input
        const std::string value = o->count() > 0 ? o->as<std::string>() : o->get_default_str();
        fmt::print("{:<24} {:>10}  {}{}\n", o->get_name(), value, d.substr(open + 1, d.size() - open - 2),
                   o->count() > 0 ? " (given)" : "");
    }
}

}  // namespace

int run(int argc, char** argv) {
    CLI::App app{"Projected scaling of dtb build on many ranks (docs/scaling.md)"};
    std::string variant = "canadian";
    int pieces = 6;
    std::vector<int> ranks{1, 16, 64, 256};
    Model m;
    app.option_defaults()->always_capture_default();
    app.add_option("--variant", variant);
    app.add_option("--pieces", pieces);
    app.add_option("--ranks", ranks)->delimiter(',');
    // The model's inputs: each description ends with where its default
    // comes from, in brackets (printed with the projection, inputs()):
    // measured (on this project's 2-core VMs, the step of docs/scaling.md
    // named), assumed (a cluster's, or not measured), as dtb, or what if.
    app.add_option("--threads", m.threads, "threads a rank [assumed: a node of 32 threads]");
    app.add_option("--ns-per-position", m.ns_per_position,
                   "thread nanoseconds a position, a material alone [measured: Canadian up to 5, one process, "
                   "187 x 0.895, \"The team measured again after the block order\"]");
    app.add_option("--thread-efficiency", m.thread_efficiency,
                   "speed-up of a rank's threads over their number [assumed: 0.98 measured on 2 threads, 32 not "
                   "measured]");
    app.add_option("--whole-overhead", m.whole_overhead,
                   "a team of 2's processor time over one rank's, whole pairs [measured: Canadian KKMvKM, "
                   "\"Capture marks sent home a word at a time\"]");
    app.add_option("--men-overhead", m.men_overhead,
                   "the same, whole pairs of men only [measured: Canadian MMvMM, \"Man moves fetched by blocks\"]");
    app.add_option("--split-overhead", m.split_overhead,
                   "the same, split pairs [measured: Canadian KKKMvK, \"Capture marks sent home a word at a time\"]");
    app.add_option("--split-growth", m.split_growth,
                   "the part of the split pairs' overhead that grows with the share that crosses ranks, "
                   "(k - 1) / k, 1: all of it [measured: teams of 2 to 4, \"Split levels on teams of 2 to 4\"]");
    app.add_option("--whole-growth", m.whole_growth,
                   "the same, whole pairs with kings [measured: teams of 2 to 4, \"Split levels on teams of 2 to 4\"]");
    app.add_option("--whole-bytes", m.whole_bytes,
                   "bytes a position a team of 2 exchanges, whole pairs [measured: Canadian KKMvKM, before the "
                   "exchanges crossed packed]");
    app.add_option("--men-bytes", m.men_bytes,
                   "the same, men only [measured: Canadian MMvMM, before the exchanges crossed packed]");
    app.add_option("--split-bytes", m.split_bytes,
                   "the same, split pairs [measured: Canadian KKKMvK, before the exchanges crossed packed]");
    app.add_option("--bandwidth", m.bandwidth, "bytes a second a rank sends [assumed: 100 Gb/s]");
    app.add_option("--latency-us", m.latency_us, "a collective's latency in microseconds [assumed]");
    app.add_option("--distances", m.distances, "rounds of updates a split level [assumed]");
    app.add_option("--read-fraction", m.read_fraction,
                   "reading a table back over solving it [measured: Canadian, 150 against 315 ns a position]");
    double memory_gib = m.memory_bytes / (1 << 30);
    app.add_option("--memory-gib", memory_gib, "a rank's memory for tables [assumed]");
    app.add_option("--team-positions", m.team_positions,
                   "as dtb build's: one rank a team per so many positions [what if: 2^24, the projections of "
                   "cluster/README; dtb build's is 2^28]");
    app.add_option("--held-ratio", m.held_ratio,
                   "a team of k holds a table of P' positions whole if k P' <= this x P [as dtb]");
    app.add_option("--shared-bytes", m.shared_bytes,
                   "bytes a position more when tables are shared out: the questions' and answers' of the reference "
                   "material with all its tables shared out [measured: Canadian KKMvKM, \"Lookups charged by the "
                   "questions\"]");
    app.add_option("--shared-overhead", m.shared_overhead,
                   "a team of 2's processor time more, over one rank's, when tables are shared out: the reference "
                   "material's with all its tables shared out [measured: Canadian KKMvKM, \"Lookups charged by the "
                   "questions\"]");
    app.add_option("--shared-by-questions", m.shared_by_questions,
                   "the two above charged by the questions a position asks of the tables shared out, against those "
                   "of the reference material, 0: all of them to a material with any table shared out [as dtb]");
    app.add_option("--shared-position-part", m.shared_position_part,
                   "of the shared overhead, the part every position pays whatever it asks [measured: within the "
                   "runs' spread]");
    app.add_option("--shared-reference", m.shared_reference,
                   "the Canadian material whose tables, all shared out, the shared inputs were measured on");
    app.add_option("--question-samples", m.question_samples, "positions sampled a material to count its questions");
    std::string questions_of;
    app.add_option("--questions", questions_of,
                   "print the questions a position of this material asks of each table it reads, sampled, and stop");
    app.add_option("--table-bytes", m.table_bytes,
                   "bytes a position of a table sent to a rank [measured: packed, \"Tables packed on the wire\"]");
    app.add_option("--pack-gbps", m.pack_gbps,
                   "GB of a table's codes a thread packs a second, 0: raw [measured: zstd level 1 on byte planes]");
    app.add_option("--unpack-gbps", m.unpack_gbps, "GB a thread unpacks a second [measured: the same]");
    app.add_option("--packed-once", m.packed_once, "a holder packs a table's part once for all askers [as dtb]");
    app.add_option("--split-update-share", m.split_update_share,
                   "of a split level's bytes, the part that is predecessor updates [measured: Canadian KKKMvK]");
    app.add_option("--stages", m.stages,
                   "levels of whole pairs with kings solved in stages, each stage's exchanges beside the next's "
                   "solving, and split levels' updates crossing beside the next batch's work [as dtb]");
    app.add_option("--clock", m.clock,
                   "the scheduler is told the time, so a team may start on fewer ranks and lower priorities "
                   "backfill ranks a team waits for; 0: it waits for its ranks, nothing else starts [as dtb]");
    app.add_option("--growing-teams", m.growing_teams,
                   "idle ranks join running teams at their next level [what if: dtb's teams keep their size]");
    CLI11_PARSE(app, argc, argv);
    m.memory_bytes = memory_gib * (1 << 30);
    if (!questions_of.empty()) {
        draughts::with_variant(variant, [&]<class V>() {
            const dtb::Material q = dtb::Material::parse(questions_of).canonical();
            const std::vector<dtb::Material> reads = dtb::successors(q);
            const std::vector<double> asked = questions_into<V>(q, reads, m.question_samples);
            double sum = 0;
            for (std::size_t i = 0; i < reads.size(); ++i) {
                fmt::print("{:<10} {:.4f}\n", reads[i].name(), asked[i]);
                sum += asked[i];
            }
            fmt::print("{} {}: {:.4f} questions a position, {} positions sampled\n", variant, q.name(), sum,
                       m.question_samples);
        });
        return 0;
    }

    const std::vector<Material> units =
        draughts::with_variant(variant, [&]<class V>() { return plan<V>(pieces, m.question_samples); });
    {
        const dtb::Material r = dtb::Material::parse(m.shared_reference).canonical();
        for (double q : questions_into<draughts::Canadian>(r, dtb::successors(r), m.question_samples))
            m.reference_questions += q;
    }
    std::uint64_t total = 0, largest = 0;
    for (const Material& u : units) {
        total += u.positions;
        largest = std::max(largest, u.positions);
    }
    fmt::print("{} up to {} pieces: {} materials, {:.3g} positions, the largest {:.3g}\n", variant, pieces, units.size(),
               static_cast<double>(total), static_cast<double>(largest));
    print_inputs(app);
    if (m.shared_by_questions)
        fmt::print("lookups into tables shared out: canadian {} asks {:.3f} questions a position of them\n",
                   m.shared_reference, m.reference_questions);
    // Against the work alone: one rank solving every material, no table read back.
    double one = 0;
    for (const Material& u : units) one += solving(m, u, 1).work;
    fmt::print("one rank's work: {}\n", hours(one));
    fmt::print("{:>6} {:>10} {:>11} {:>7} {:>8} {:>10} {:>10} {:>10} {:>10} {:>8} {:>15}\n", "ranks", "time",
               "efficiency", "teams", "largest", "overhead", "exchange", "rounds", "tables", "idle", "none ready");
    for (int r : ranks) {
        const Outcome o = simulate(m, units, r);
        const double capacity = o.seconds * r;
        fmt::print("{:>6} {:>10} {:>10.1f}% {:>7} {:>8} {:>9.1f}% {:>9.1f}% {:>9.1f}% {:>9.1f}% {:>7.1f}% {:>14.1f}%\n", r,
                   hours(o.seconds), 100 * one / capacity, o.teams, o.largest_team, 100 * o.overhead / capacity,
                   100 * o.exchange / capacity, 100 * o.rounds / capacity, 100 * o.tables / capacity,
                   100 * (capacity - o.busy) / capacity, 100 * o.idle_none_ready / capacity);
    }
    return 0;
}

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {  // an unknown variant or material
        fmt::print(stderr, "scaling_projection: {}\n", e.what());
        return 1;
    }
}
