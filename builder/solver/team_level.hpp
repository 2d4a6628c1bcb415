// One level of a material solved by a team (docs/design.md, "Distributed
// build"): each member takes a share of the level's pairs (or, when the
// level has few pairs, a share of every pair), asks the members that hold
// them for the values its positions' exits and captures lead to
// (TeamTables), solves its pairs with the one-process code (set_up.hpp,
// pair_queue.hpp), runs the queues of pairs split over the team in step
// (each member holding a range of their states in block order), one
// exchange of settled positions per distance, and sends its results to the
// members whose ranges hold them.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include "builder/capture_values.hpp"
#include "builder/solved_values.hpp"
#include "builder/solver/pair_queue.hpp"
#include "builder/solver/pair_space.hpp"
#include "builder/solver/pair_state.hpp"
#include "builder/solver/set_up.hpp"
#include "builder/solver/solve_progress.hpp"
#include "builder/team.hpp"
#include "builder/team_tables.hpp"
#include "builder/word_coding.hpp"
#include "probe/table_format.hpp"

namespace dtb {

// Work on a thread of its own while the caller goes on: a team member's
// exchanges beside its solving (TeamMember: the results and fetched blocks
// of the stages next to the one being solved, a split queue's batch of
// updates while the next is worked). Only that thread talks to the team
// meanwhile, so the collectives keep their order. Its waits are polite
// (MPI's tests with sleeps between), so it takes little processor time.
class Background {
public:
    template <class F>
    explicit Background(F&& f)
        : thread_([this, f = std::forward<F>(f)]() mutable {
              try {
                  f();
              } catch (...) {
                  failure_ = std::current_exception();
              }
          }) {}
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;
    ~Background() {
        if (thread_.joinable()) thread_.join();
    }

    // Waits for the work to end and rethrows what it threw; the seconds waited.
    double wait() {
        const auto start = std::chrono::steady_clock::now();
        thread_.join();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (failure_) std::rethrow_exception(failure_);
        return seconds;
    }

private:
    std::exception_ptr failure_;  // before thread_, which may set it as soon as it starts
    std::thread thread_;
};

template <class V>
class TeamMember {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Bitboard = typename Position::Bitboard;
    using Move = draughts::Move<N>;
    using Pair = typename PairSpace<V>::Pair;
    using Split = typename PairSpace<V>::Split;
    using SplitPair = typename PairSpace<V>::SplitPair;
    using Layout = typename PairSpace<V>::Layout;
    using ManExit = typename PairSpace<V>::ManExit;

    // `tables` holds the team's share of the material and of the materials
    // it leads to that are shared out; `successors` the materials it leads
    // to that every member holds whole (the same on every member).
    TeamMember(const PairSpace<V>& space, Team& team, TeamTables<V>& tables, const Successors<V>& successors,
               const TeamOptions& options, const SolveProgress& progress, MaxCode& max_code)
        : space_(space),
          queue_(space),
          team_(team),
          tables_(tables),
          successors_(successors),
          options_(options),
          progress_(progress),
          max_code_(max_code),
          buffers_(team.size()) {}

    // The member's part of one level (solve_level_in_team below).
    void solve_level(const PotentialLevels<N>& levels, const typename PotentialLevels<N>::Level& level, bool top) {
        solve_level_in_team(levels, level, top);
    }

private:
    void report(std::uint64_t positions) const {
        if (progress_.positions_done) progress_.positions_done(positions);
    }

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

    // Numbers the portions' work areas in order, each stage's from a
    // multiple of 64 (so that no word of capture marks is shared by two
    // stages, one solved while the other's results are read), and tells each
    // portion of a split pair where its sibling (the member's share of the
    // other half) is. Returns the size of the work area.
    std::uint64_t place(std::vector<Portion>& portions, const std::vector<std::size_t>& stage_first) const {
        const std::uint64_t K = space_.side(0).king_placements();
        std::uint64_t work = 0;
        for (std::size_t i = 0, stage = 0; i < portions.size(); ++i) {
            Portion& p = portions[i];
            while (stage_first[stage] < i) ++stage;
            if (stage_first[stage] == i) work = (work + 63) / 64 * 64;
            p.work = std::exchange(work, work + p.count());
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
        return work;
    }

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

    // The layout of a portion inside the level's work area (place()).
    Layout layout_in_work(const Portion& portion, Needs needs = Needs::all) const {
        Layout layout = needs == Needs::placement ? space_.placement_of(portion.pair)
                                                  : space_.layout_of(portion.pair, needs == Needs::all);
        for (int h = 0; h < 2; ++h) {
            layout.storage_base[h] = portion.storage_shift[h];
            layout.state_shift[h] = portion.state_shift[h];
        }
        layout.split = portion.split;
        layout.in_blocks = portion.split != nullptr;
        return layout;
    }

    // Values from outside a pair in a team: those of the materials every
    // member holds whole read here, the others answered by their members
    // (look_up()) and consumed in the order they were asked: per position
    // without a capture, one per promotion not read here and one per man
    // move unless they were fetched (in `fetched`); per position with
    // one, meta - 1 of them, on top of the best over the captures read here
    // (left in the position's code by ask()).
    struct EntrySource {
        const Successors<V>& successors;  // the materials every member holds whole
        const SolvedValues& store;
        const std::uint8_t* meta;  // by storage index: 0 without a capture, else the answers asked + 1
        const std::uint16_t* entries;
        const SolvedValues* fetched;  // whole pairs' man moves (fetch_blocks()), else null: asked
        std::optional<Value> capture_value(const Layout& layout, std::uint64_t local, const Position&) {
            const std::uint64_t s = layout.storage(local);
            if (meta[s] == 0) return std::nullopt;
            Value best = value_of_dtw_code(store.code(s));
            for (std::uint8_t i = 1; i < meta[s]; ++i) {
                const Value v = before_move(value_of_dtw_code(*entries++));
                if (preferred(v, best)) best = v;
            }
            return best;
        }
        Value promotion(const Position& child) {
            if (const std::optional<Value> v = successors.held_value(child)) return *v;
            return value_of_dtw_code(*entries++);
        }
        Value man_move(const ManExit& e, Bitboard white_kings, Bitboard black_kings) {
            if (fetched) return value_of_dtw_code(fetched->code(e.child(white_kings, black_kings)));
            return value_of_dtw_code(*entries++);
        }
    };

    // The words of the values that `local` needs from other members, in the
    // order initialise() takes them (its man moves' not when `fetched_exits`);
    // sets its meta, and for a position with a capture leaves the best over
    // the captures read here in its code.
    void ask(SolvedValues& store, const Layout& layout, std::uint64_t local, const Position& q, std::uint8_t* meta,
             bool fetched_exits, std::vector<std::uint64_t>& words) const {
        const std::uint64_t s = layout.storage(local);
        draughts::CaptureBuffer<N> captures;
        const Captures kind = find_captures<V>(q, captures);
        if (kind == Captures::of_the_last_piece) {
            meta[s] = 1;
            store.code(s) = static_cast<std::uint16_t>(dtw_code(capture_of_the_last_piece));
            return;
        }
        if (kind == Captures::found) {
            Value best = Value::loss(0);
            std::size_t asked = 0;
            for (const Move& m : captures) {
                Position child = q;
                draughts::make_move(child, m);
                if (const std::optional<Value> v = successors_.held_value(child)) {
                    if (preferred(before_move(*v), best)) best = before_move(*v);
                } else {
                    words.push_back(tables_.locate(child));
                    ++asked;
                }
            }
            if (asked > 254)
                throw std::runtime_error(space_.material().name() + ": a position with " + std::to_string(asked) +
                                         " captures; a team counts at most 254");
            meta[s] = static_cast<std::uint8_t>(asked + 1);
            store.code(s) = static_cast<std::uint16_t>(dtw_code(best));
            return;
        }
        meta[s] = 0;
        const int h = layout.half_of(local);
        for (int i = 0; i < layout.man_exit_count[h]; ++i) {
            const ManExit& e = layout.man_exits[h][i];
            if (e.target & q.kings) continue;
            if (!e.promotes) {
                if (fetched_exits) continue;  // fetched by blocks (fetch_blocks())
                words.push_back(TeamTables<V>::word(
                    0, e.child(q.kings_of(draughts::Color::white), q.kings_of(draughts::Color::black))));
                continue;
            }
            Position child = q;
            draughts::make_move(child, Move{0, e.from, e.to, true});
            if (!successors_.held_value(child)) words.push_back(tables_.locate(child));
        }
    }

    // Calls f(layout, first, last) for the runs of positions of a chunk.
    template <class F>
    void for_each_run(const Chunk& c, const std::vector<Portion>& portions, Needs needs, F&& f) const {
        if (c.p1 > c.p0 + 1 || c.last == 0) {
            for (std::size_t p = c.p0; p < c.p1; ++p)
                f(layout_in_work(portions[p], needs), portions[p].first, portions[p].last);
        } else {
            f(layout_in_work(portions[c.p0], needs), c.first, c.last);
        }
    }

    // Calls f(first, last) for each round of a team's exchange, when n items
    // of size(i) positions are taken in order, at most lookup_positions
    // positions a round (an item bigger: a round of its own): as many rounds
    // on every member, the last ones empty on a member with fewer.
    template <class Size, class F>
    void in_rounds(std::size_t n, Size&& size, F&& f) {
        std::vector<std::size_t> starts{0};
        std::uint64_t in_round = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t count = size(i);
            if (in_round > 0 && in_round + count > options_.lookup_positions) {
                starts.push_back(i);
                in_round = 0;
            }
            in_round += count;
        }
        starts.push_back(n);
        const std::uint64_t rounds = team_.all_max(starts.size() - 1);
        for (std::uint64_t r = 0; r < rounds; ++r)
            f(r + 1 < starts.size() ? starts[r] : n, r + 1 < starts.size() ? starts[r + 1] : n);
    }

    // Looks up every value the member's positions need from outside their
    // pairs, in rounds that every member takes part in (answering the others'
    // questions even when it has none): each chunk gets its answers, in one
    // buffer of `entries` per round; `meta` the number of captures of each
    // position. Man moves are not asked for when `fetched_exits`.
    void look_up(SolvedValues& store, std::vector<Chunk>& chunks, const std::vector<Portion>& portions,
                 std::vector<std::uint8_t>& meta, bool fetched_exits, std::vector<std::vector<std::uint16_t>>& entries) {
        const int members = team_.size();
        TeamBuffers& b = buffers_;
        Mailbox<std::byte>& questions = b.questions;
        Mailbox<std::uint16_t>& answers = b.answers;
        std::vector<std::vector<std::uint64_t>>& words = b.words;
        std::vector<std::vector<std::size_t>>& start = b.start;
        std::vector<std::vector<std::vector<std::byte>>>& coded = b.coded;
        std::vector<std::byte>& sent = b.asked;
        std::vector<std::vector<std::size_t>>& question_first = b.question_first;
        std::vector<std::vector<std::size_t>>& question_bytes = b.question_bytes;
        std::vector<std::uint16_t>& replies = b.replies;
        std::size_t round_buffers = 0;
        std::vector<std::size_t> counts(members), part(members + 1);
        // Rounds of at most lookup_positions positions (and one chunk at least).
        auto positions = [&](std::size_t c) {
            const Chunk& chunk = chunks[c];
            if (chunk.p1 == chunk.p0 + 1 && chunk.last != 0) return chunk.last - chunk.first;
            std::uint64_t n = 0;
            for (std::size_t p = chunk.p0; p < chunk.p1; ++p) n += portions[p].count();
            return n;
        };
        in_rounds(chunks.size(), positions, [&](std::size_t c0, std::size_t c1) {
            const std::size_t n = c1 - c0;
            if (words.size() < n) {
                words.resize(n);
                start.resize(n);
                coded.resize(n);
            }
            // The questions, chunk by chunk.
            tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
                words[i].clear();
                start[i].assign(members, 0);
                const Needs needs = fetched_exits ? Needs::exits : Needs::all;  // ask() words no man move's child
                for_each_run(chunks[c0 + i], portions, needs, [&](const Layout& l, std::uint64_t f, std::uint64_t e) {
                    space_.for_each_position(l, f, e, [&](std::uint64_t x, const Position& q) {
                        ask(store, l, x, q, meta.data(), fetched_exits, words[i]);
                    });
                });
                // Each member's questions of the chunk coded on their own
                // (WordCoding), so that chunks are coded and answered in parallel.
                std::vector<std::vector<std::byte>>& out = coded[i];
                out.resize(members);
                for (std::vector<std::byte>& o : out) o.clear();
                std::vector<WordCoding> coding(members);
                for (std::uint64_t w : words[i])
                    if (w != TeamTables<V>::no_piece) {
                        const int j = tables_.owner(w);
                        ++start[i][j];
                        coding[j].write(w, out[j]);
                    }
            });
            // Sent to the members holding them. Member j's part: the number of
            // chunks with questions for j, each one's words and bytes (u32
            // each), then their bytes in chunk order.
            std::vector<std::uint32_t> asking(members, 0);
            for (int j = 0; j < members; ++j) {
                std::size_t bytes = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    asking[j] += start[i][j] > 0;
                    bytes += coded[i][j].size();
                }
                counts[j] = 4 + 8 * std::size_t{asking[j]} + bytes;
                part[j + 1] = part[j] + counts[j];
            }
            sent.resize(part[members]);
            for (int j = 0; j < members; ++j) {
                std::byte* head = sent.data() + part[j];
                std::byte* body = head + 4 + 8 * std::size_t{asking[j]};
                store_u32(std::exchange(head, head + 4), asking[j]);
                for (std::size_t i = 0; i < n; ++i) {
                    if (start[i][j] == 0) continue;
                    store_u32(std::exchange(head, head + 4), static_cast<std::uint32_t>(start[i][j]));
                    store_u32(std::exchange(head, head + 4), static_cast<std::uint32_t>(coded[i][j].size()));
                    std::memcpy(std::exchange(body, body + coded[i][j].size()), coded[i][j].data(), coded[i][j].size());
                }
            }
            questions.send(team_, sent, counts);
            // Chunk i's questions to member j, and so its answers from j, start at start[i][j] of j's part.
            for (int j = 0; j < members; ++j)
                for (std::size_t i = 0, at = 0; i < n; ++i) at += std::exchange(start[i][j], at);
            // The answers to the others' questions, a chunk of a member's part at a time.
            std::size_t asked_here = 0;
            for (int j = 0; j < members; ++j) {
                const std::span<const std::byte> q = questions.from(j);
                const std::size_t chunks_of_j = q.size() < 4 ? 0 : load_u32(q.data());
                if (q.size() < 4 + 8 * chunks_of_j) throw std::logic_error("a team member's questions are cut short");
                std::vector<std::size_t>& first_word = question_first[j];
                std::vector<std::size_t>& first_byte = question_bytes[j];
                first_word.assign(chunks_of_j + 1, asked_here);
                first_byte.assign(chunks_of_j + 1, 4 + 8 * chunks_of_j);
                for (std::size_t i = 0; i < chunks_of_j; ++i) {
                    first_word[i + 1] = first_word[i] + load_u32(q.data() + 4 + 8 * i);
                    first_byte[i + 1] = first_byte[i] + load_u32(q.data() + 8 + 8 * i);
                }
                if (first_byte[chunks_of_j] != q.size()) throw std::logic_error("a team member's questions are cut short");
                counts[j] = first_word[chunks_of_j] - asked_here;
                asked_here = first_word[chunks_of_j];
            }
            replies.resize(asked_here);
            for (int j = 0; j < members; ++j) {
                const std::span<const std::byte> q = questions.from(j);
                const std::vector<std::size_t>& first_word = question_first[j];
                const std::vector<std::size_t>& first_byte = question_bytes[j];
                tbb::parallel_for(std::size_t{0}, first_word.size() - 1, [&](std::size_t i) {
                    const std::span<const std::byte> bytes = q.subspan(0, first_byte[i + 1]);
                    std::size_t at = first_byte[i];
                    WordCoding coding;
                    for (std::size_t x = first_word[i]; x < first_word[i + 1]; ++x)
                        replies[x] = tables_.code(coding.read(bytes, at));
                    if (at != first_byte[i + 1]) throw std::logic_error("a team member's questions are garbled");
                });
            }
            answers.send(team_, replies, counts);
            // Into the round's entries, in the order asked.
            std::vector<std::uint64_t> entry_first(n + 1, 0);
            for (std::size_t i = 0; i < n; ++i) entry_first[i + 1] = entry_first[i] + words[i].size();
            if (round_buffers == entries.size()) entries.emplace_back();
            std::vector<std::uint16_t>& round = entries[round_buffers++];
            round.resize(entry_first[n]);
            tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
                chunks[c0 + i].entries = round.data() + entry_first[i];
                std::vector<std::size_t> at(start[i]);
                std::uint16_t* out = round.data() + entry_first[i];
                for (std::uint64_t w : words[i]) {
                    if (w == TeamTables<V>::no_piece) {
                        *out++ = static_cast<std::uint16_t>(dtw_code(Value::loss(0)));
                    } else {
                        const int j = tables_.owner(w);
                        *out++ = answers.from(j)[at[j]++];
                    }
                }
            });
        });
    }

    // Fetches the values a level of whole pairs reaches by man moves: a man
    // move leads from every king placement of a pair's half to one block of
    // the level above, the king placements of the child's men configuration
    // [e.base, e.base + K) (PairSpace::ManExit), in order. So the member asks
    // the homes for those blocks as ranges (a start as a position word, and
    // a count only where a block is cut) and they answer with the codes as
    // they lie, rather than a question and an answer position by position;
    // its own home's are copied. The blocks go to `fetched` in the order of
    // the portions and their exits, a block an exit, not once for all the
    // member's exits that reach it: a block is reached from a few
    // configurations, which a big team deals to different members
    // (docs/design.md). find_exits() lists the exits and makes room for
    // their blocks; fetch_blocks() fetches those of portions [p0, p1), on
    // every member at once (it may have none). Portion p's first block is at
    // exit_first[p] * K, where layout_for_setup() points its man exits.
    void find_exits(const std::vector<Portion>& portions) {
        const std::uint64_t K = space_.side(0).king_placements();
        // The exits' blocks, portion by portion, in slices of portions taken in parallel.
        const std::size_t slices = std::min<std::size_t>(portions.size(), 256);
        std::vector<std::vector<std::uint64_t>> bases(slices);
        std::vector<std::uint64_t>& exit_first = buffers_.exit_first;
        exit_first.assign(portions.size() + 1, 0);
        tbb::parallel_for(std::size_t{0}, slices, [&](std::size_t i) {
            const std::size_t p0 = share_bound(portions.size(), static_cast<int>(i), static_cast<int>(slices));
            const std::size_t p1 = share_bound(portions.size(), static_cast<int>(i + 1), static_cast<int>(slices));
            for (std::size_t p = p0; p < p1; ++p) {
                const Layout layout = space_.layout_of(portions[p].pair);
                const std::size_t before = bases[i].size();
                for (int h = 0; h < (layout.alone ? 1 : 2); ++h)
                    for (int x = 0; x < layout.man_exit_count[h]; ++x)
                        if (!layout.man_exits[h][x].promotes) bases[i].push_back(layout.man_exits[h][x].base);
                exit_first[p + 1] = bases[i].size() - before;
            }
        });
        for (std::size_t p = 0; p < portions.size(); ++p) exit_first[p + 1] += exit_first[p];
        std::vector<std::uint64_t>& exits = buffers_.exit_bases;
        exits.clear();
        for (const std::vector<std::uint64_t>& slice : bases) exits.insert(exits.end(), slice.begin(), slice.end());
        buffers_.fetched.codes.resize(exits.size() * K);
    }

    void fetch_blocks(std::size_t p0, std::size_t p1) {
        const int members = team_.size(), me = team_.rank();
        const std::uint64_t K = space_.side(0).king_placements();
        const std::vector<std::uint64_t>& exits = buffers_.exit_bases;
        const std::size_t e0 = buffers_.exit_first[p0], e1 = buffers_.exit_first[p1];
        SolvedValues& fetched = buffers_.fetched;
        // Items of at most lookup_positions positions (a block in `subs`),
        // taken in rounds; each asked of its homes in pieces, cut where the
        // homes change hands: f(where in `fetched`, first position, count, home).
        const std::uint64_t L = options_.lookup_positions, subs = (K + L - 1) / L, whole = std::min(K, L);
        auto item_size = [&](std::size_t i) { return std::min(L, K - i % subs * L); };
        const Ranges& homes = tables_.homes();
        auto for_each_piece = [&](std::size_t i0, std::size_t i1, auto&& f) {
            for (std::size_t i = i0; i < i1; ++i) {
                const std::size_t e = e0 + i / subs;
                const std::uint64_t first = exits[e] + i % subs * L, end = first + item_size(i);
                std::uint64_t at = e * K + i % subs * L;
                for (std::uint64_t g = first; g < end;) {
                    const int j = homes.owner(g);
                    const std::uint64_t last = std::min(end, homes.first(j + 1));
                    f(at, g, last - g, j);
                    at += last - g;
                    g = last;
                }
            }
        };
        const SolvedValues& home = tables_.home();
        Mailbox<std::byte>& requests = buffers_.questions;
        Mailbox<std::uint16_t>& answers = buffers_.answers;
        in_rounds((e1 - e0) * subs, item_size, [&](std::size_t i0, std::size_t i1) {
            std::vector<WordCoding> starts(members), counts(members);
            for_each_piece(i0, i1, [&](std::uint64_t at, std::uint64_t g, std::uint64_t count, int j) {
                if (j == me) {
                    std::memcpy(&fetched.code(at), home.codes.data() + (g - home.first), 2 * count);
                } else {  // a whole item's count is known: said only when it was cut
                    starts[j].write(g << 1 | (count != whole), requests.to(j));
                    if (count != whole) counts[j].write(count, requests.to(j));
                }
            });
            requests.exchange(team_);
            for (int j = 0; j < members; ++j) {
                const std::span<const std::byte> in = requests.from(j);
                WordCoding from_starts, from_counts;
                std::vector<std::uint16_t>& out = answers.to(j);
                for (std::size_t x = 0; x < in.size();) {
                    const std::uint64_t w = from_starts.read(in, x), g = w >> 1;
                    const std::uint64_t count = w & 1 ? from_counts.read(in, x) : whole;
                    if (count == 0 || count > L || !home.holds(g) || !home.holds(g + count - 1))
                        throw std::logic_error("a team member asked for positions this member does not hold");
                    const std::uint16_t* codes = home.codes.data() + (g - home.first);
                    out.insert(out.end(), codes, codes + count);
                }
            }
            answers.exchange(team_);
            std::vector<std::size_t> taken(members, 0);
            for_each_piece(i0, i1, [&](std::uint64_t at, std::uint64_t, std::uint64_t count, int j) {
                if (j == me) return;
                const std::span<const std::uint16_t> in = answers.from(j);
                if (in.size() - taken[j] < count) throw std::logic_error("a team member answered positions cut short");
                std::memcpy(&fetched.code(at), in.data() + taken[j], 2 * count);
                taken[j] += count;
            });
        });
    }

    // The layout portion p is set up with: when its man moves' values were
    // fetched, each man exit's base points at its block in `fetched` (the
    // children's configurations, found once by find_exits(), are not
    // worked out again); when they are answers (`asks`), they are not needed.
    Layout layout_for_setup(const std::vector<Portion>& portions, std::size_t p, bool fetches, bool asks) const {
        Layout layout = layout_in_work(portions[p], fetches || asks ? Needs::exits : Needs::all);
        if (!fetches) return layout;
        std::uint64_t block = buffers_.exit_first[p];
        for (int h = 0; h < (layout.alone ? 1 : 2); ++h)
            for (int i = 0; i < layout.man_exit_count[h]; ++i) {
                ManExit& e = layout.man_exits[h][i];
                if (!e.promotes) e.base = block++ * layout.king_placements;
            }
        return layout;
    }

    // Sends the codes and capture marks of the member's positions of a level
    // to the members whose ranges hold them, and takes in those it holds.
    // A record: its global start and its count as position words
    // (WordCoding, one coder each for starts and counts to each member, a
    // round at a time: a byte or two each where records follow one another),
    // the codes, the capture marks (one byte per 8 positions). A pair of men
    // only is a record of one position a half, so a fixed header of 16 bytes
    // would be most of what its results cost.
    // Portions [p0, p1) only, on every member at once (it may have none).
    void send_home(const std::vector<Portion>& portions, std::size_t p0, std::size_t p1, const SolvedValues& work) {
        const int members = team_.size();
        const Ranges& homes = tables_.homes();
        // Rounds of at most lookup_positions positions, as many for every
        // member: portions cut into pieces no bigger, a round of pieces.
        struct Piece {
            std::size_t portion;
            std::uint64_t first, last;
        };
        std::vector<Piece> pieces;
        const auto cut = [&](std::size_t p, std::uint64_t first, std::uint64_t last) {
            for (std::uint64_t f = first; f < last; f += options_.lookup_positions)
                pieces.push_back({p, f, std::min<std::uint64_t>(last, f + options_.lookup_positions)});
        };
        // A split pair's codes are in block order: its pieces are the runs
        // of the table's order its positions make (PairSpace::for_each_table_run()).
        std::vector<Layout> split_layouts;
        std::vector<typename PairSpace<V>::BlockOrder> split_orders;
        std::vector<std::size_t> split_of(p1 - p0);  // each split portion's in those
        for (std::size_t p = p0; p < p1; ++p) {
            if (!portions[p].split) {
                cut(p, portions[p].first, portions[p].last);
                continue;
            }
            split_of[p - p0] = split_layouts.size();
            split_layouts.push_back(layout_in_work(portions[p], Needs::exits));
            split_orders.push_back(space_.block_order_of(split_layouts.back()));
            space_.for_each_table_run(split_layouts.back(), split_orders.back(), portions[p].first, portions[p].last,
                                      [&](std::uint64_t f, std::uint64_t n) { cut(p, f, f + n); });
        }
        Mailbox<std::byte>& mail = buffers_.results;
        auto positions = [&](std::size_t i) { return pieces[i].last - pieces[i].first; };
        in_rounds(pieces.size(), positions, [&](std::size_t i0, std::size_t i1) {
            std::vector<WordCoding> starts(members), counts(members);
            for (std::size_t i = i0; i < i1; ++i) {
                const Portion& portion = portions[pieces[i].portion];
                const std::size_t split_at = split_of[pieces[i].portion - p0];
                std::optional<Layout> placed;  // a whole pair's
                if (!portion.split) placed.emplace(layout_in_work(portion, Needs::placement));
                const Layout& layout = portion.split ? split_layouts[split_at] : *placed;
                // Runs of consecutive global positions: a half at a time, cut where the ranges change hands.
                std::uint64_t l = pieces[i].first;
                while (l < pieces[i].last) {
                    const int h = layout.half_of(l);
                    const std::uint64_t g = layout.global(l);
                    const int home = homes.owner(g);
                    const std::uint64_t half_end = (h + 1) * layout.king_placements;
                    const std::uint64_t end = std::min<std::uint64_t>(
                        {pieces[i].last, half_end, l + (homes.first(home + 1) - g)});
                    const auto count = static_cast<std::uint32_t>(end - l);
                    std::vector<std::byte>& o = mail.to(home);
                    starts[home].write(g, o);
                    counts[home].write(count, o);
                    const std::size_t at = o.size();
                    o.resize(at + 2 * std::size_t{count} + (count + 7) / 8, std::byte{0});
                    std::byte* rec = o.data() + at;
                    const auto mark = [&](std::uint32_t x, std::uint64_t s) {
                        if (work.has_capture(s)) rec[2 * count + x / 8] |= static_cast<std::byte>(1 << (x % 8));
                    };
                    if (portion.split) {
                        std::uint32_t x = 0;
                        space_.for_each_in_table_run(layout, split_orders[split_at], l, count, [&](std::uint64_t b) {
                            const std::uint64_t s = layout.storage(b);
                            const std::uint16_t code = work.code(s);
                            std::memcpy(rec + 2 * x, &code, 2);
                            mark(x++, s);
                        });
                    } else {
                        std::memcpy(rec, work.codes.data() + (layout.storage(l) - work.first), 2 * std::size_t{count});
                        for (std::uint32_t x = 0; x < count; ++x) mark(x, layout.storage(l + x));
                    }
                    l += count;
                }
            }
            mail.exchange(team_);
            SolvedValues& home = tables_.home();
            for (int j = 0; j < members; ++j) {
                const std::span<const std::byte> in = mail.from(j);
                WordCoding from_starts, from_counts;
                for (std::size_t at = 0; at < in.size();) {
                    const std::uint64_t g = from_starts.read(in, at), count = from_counts.read(in, at);
                    if (count == 0 || count > (in.size() - at) / 2 || in.size() - at < 2 * count + (count + 7) / 8 ||
                        !home.holds(g) || !home.holds(g + count - 1))
                        throw std::logic_error("a team member sent results cut short, or of positions this member "
                                               "does not hold");
                    const std::byte* rec = in.data() + at;
                    std::memcpy(&home.code(g), rec, 2 * count);
                    for (std::uint64_t x = 0; x < count; ++x)
                        if (std::to_integer<int>(rec[2 * count + x / 8]) >> (x % 8) & 1) home.mark_capture(g + x);
                    at += 2 * count + (count + 7) / 8;
                }
            }
        });
    }

    // The queue of the pairs split over the team, worked in step (docs/design.md,
    // "Distributed build"). A member holds a range of each half's states in
    // block order (PairSpace::Split), so the predecessors of a position lie
    // in one block of the other half, which one member holds or a few. At
    // each distance every member takes its positions settled at that
    // distance: a position whose block one other member holds crosses to
    // it whole, once, and that member lists and tells its predecessors; one
    // whose block this member holds has them told here; one whose block
    // several hold has them listed here and each sent to its holder
    // (tell()). A position crosses as its pair's number among the level's
    // split pairs (`splits`) times 2K plus its local.
    // The member's portions are the level's, its states in `lock`.
    void run_split_queue(SolvedValues& work, const std::vector<Portion>& portions, const std::vector<SplitPair>& splits,
                         std::vector<std::uint8_t>& lock, Buckets& buckets) {
        using BlockOrder = typename PairSpace<V>::BlockOrder;
        using InBlock = typename PairSpace<V>::InBlock;
        const int members = team_.size(), me = team_.rank();
        const PairStates<true> states{lock.data()};
        const std::uint64_t K = space_.side(0).king_placements(), pair_size = 2 * K;
        std::vector<Layout> layouts;
        std::vector<BlockOrder> orders;
        std::vector<std::uint32_t> bases;  // lock index of each portion's first position
        std::vector<std::int64_t> shifts;  // state index to local position, each portion
        std::vector<std::size_t> pair_of;  // each portion's number among `splits`
        std::vector<std::size_t> portion_of(splits.size(), portions.size());  // a portion of each pair held here
        for (std::size_t p = 0; p < portions.size(); ++p) {
            layouts.push_back(layout_in_work(portions[p]));
            orders.push_back(space_.block_order_of(layouts.back()));
            bases.push_back(portions[p].lock_base);
            shifts.push_back(portions[p].state_shift[portions[p].half(K)]);
            pair_of.push_back(static_cast<std::size_t>(portions[p].split - splits.data()));
            portion_of[pair_of.back()] = p;
        }
        auto locate = [&](std::uint32_t at) {
            const std::size_t p = std::upper_bound(bases.begin(), bases.end(), at) - bases.begin() - 1;
            return std::pair{p, static_cast<std::uint64_t>(static_cast<std::int64_t>(at) - shifts[p])};
        };
        constexpr std::uint64_t none = ~std::uint64_t{0};
        auto next = [&](std::uint64_t after) {
            std::uint64_t d = after + 1;
            while (d < buckets.size() && buckets[d].empty()) ++d;
            return team_.all_min(d < buckets.size() ? d : none);
        };
        // Tells the predecessors this member holds of a group of positions
        // (portion, local), at most 64: their states and codes are both in
        // block order, `delta` apart. A position whose block several members
        // hold has its predecessors listed once, by the member that settled
        // it, and those of the others posted to them in `outbox` as
        // predecessors (`single`, the top bit of what crosses): a block
        // the whole half when the side not to move in it has no king, and
        // sending the position to every member would list its predecessors
        // on each.
        constexpr std::size_t group = 64;
        constexpr std::uint64_t single_bit = std::uint64_t{1} << 63;
        struct Told {
            std::size_t portion;
            std::uint64_t local;
            bool single;  // a predecessor itself, not a position whose predecessors to list
        };
        const auto tell = [&](std::span<const Told> told, std::uint32_t d, Pushes& pushes,
                              std::vector<std::vector<std::uint64_t>>* outbox) {
            std::array<std::int64_t, group> delta;
            const auto list = [&](std::size_t j, auto&& add) {
                const Layout& layout = layouts[told[j].portion];
                if (told[j].single) {
                    const int g = layout.half_of(told[j].local);
                    const Split& held = portions[told[j].portion].split->half[g];
                    if (told[j].local < held.bounds[me] || told[j].local >= held.bounds[me + 1])
                        throw std::logic_error("a team member sent a predecessor this member does not hold");
                    delta[j] = layout.storage_base[g] - layout.state_shift[g];
                    return add(layout.state(told[j].local));
                }
                const InBlock c = space_.in_block(layout, orders[told[j].portion], told[j].local);
                const Split& held = portions[told[j].portion].split->half[c.g];
                const std::uint64_t lo = held.bounds[me], hi = held.bounds[me + 1];
                delta[j] = layout.storage_base[c.g] - layout.state_shift[c.g];
                const std::uint64_t base = pair_of[told[j].portion] * pair_size;
                space_.for_each_predecessor(layout, c, [&](std::uint64_t pred) {
                    if (pred >= lo && pred < hi) {
                        add(layout.state(pred));
                    } else if (outbox) {
                        (*outbox)[held.owner(pred)].push_back(single_bit | (base + pred));
                    }
                });
            };
            const auto code_of = [&](std::size_t j, std::uint32_t at) {
                return &work.code(static_cast<std::uint64_t>(static_cast<std::int64_t>(at) + delta[j]));
            };
            PairQueue<V>::tell_group(told.size(), list, code_of, d, states, pushes);
        };
        // Each thread's positions for the other members, kept from batch to batch.
        tbb::enumerable_thread_specific<std::vector<std::vector<std::uint64_t>>> outboxes(
            [&] { return std::vector<std::vector<std::uint64_t>>(members); });
        // A batch's positions cross on another thread while the member tells
        // the predecessors of the batch before and takes the next: two of
        // each buffer, batch b's in [b % 2]. Positions of one distance may be
        // told in any order (each tell settles or counts down a predecessor).
        std::array<Mailbox<std::uint64_t>*, 2> mail{&buffers_.updates[0], &buffers_.updates[1]};
        std::array<std::vector<std::uint64_t>*, 2> sent{&buffers_.told[0], &buffers_.told[1]};
        std::array<std::vector<std::size_t>, 2> counts{std::vector<std::size_t>(members),
                                                       std::vector<std::size_t>(members)};
        const auto apply = [&](const Mailbox<std::uint64_t>& from, std::uint64_t d) {
            for (int j = 0; j < members; ++j) {
                const std::span<const std::uint64_t> in = from.from(j);
                run_chunks(static_cast<std::uint32_t>(in.size()), buckets,
                           [&](std::uint32_t f, std::uint32_t l, Pushes& pushes) {
                               std::array<Told, group> told;
                               for (std::uint32_t x = f; x < l; x += group) {
                                   const std::size_t n = std::min<std::size_t>(group, l - x);
                                   for (std::size_t y = 0; y < n; ++y) {
                                       const std::uint64_t id = in[x + y] & ~single_bit;
                                       const std::uint64_t pair = id / pair_size;
                                       if (pair >= splits.size() || portion_of[pair] == portions.size())
                                           throw std::logic_error("a team member sent a position of a pair this "
                                                                  "member holds nothing of");
                                       const bool single = (in[x + y] & single_bit) != 0;
                                       told[y] = {portion_of[pair], id - pair * pair_size, single};
                                   }
                                   tell(std::span<const Told>(told.data(), n), static_cast<std::uint32_t>(d), pushes,
                                        nullptr);
                               }
                           });
            }
        };
        for (std::uint64_t d = next(none); d != none; d = next(d)) {
            // d is the team's next distance: this member may have nothing at it.
            const std::vector<std::uint32_t> bucket = d < buckets.size() ? std::exchange(buckets[d], {})
                                                                         : std::vector<std::uint32_t>{};
            const std::uint64_t batch = options_.update_positions;
            const std::uint64_t batches = team_.all_max((bucket.size() + batch - 1) / batch);
            std::optional<Background> crossing;  // batch b - 1's positions
            for (std::uint64_t b = 0; b < batches; ++b) {
                const std::size_t from = std::min<std::size_t>(bucket.size(), b * batch);
                const std::span<const std::uint32_t> entries =
                    std::span<const std::uint32_t>(bucket).subspan(from, std::min<std::size_t>(batch, bucket.size() - from));
                run_chunks(static_cast<std::uint32_t>(entries.size()), buckets,
                           [&](std::uint32_t f, std::uint32_t l, Pushes& pushes) {
                               auto& outbox = outboxes.local();
                               std::array<Told, group> here, spread;
                               for (std::uint32_t x = f; x < l; x += group) {
                                   const std::uint32_t n = std::min<std::uint32_t>(group, l - x);
                                   for (std::uint32_t y = x + group; y < std::min<std::uint32_t>(x + 2 * group, l); ++y)
                                       __builtin_prefetch(states.state + entries[y], 1);
                                   std::size_t mine = 0, shared = 0;
                                   for (std::uint32_t y = x; y < x + n; ++y) {
                                       // Settled in an earlier bucket too: told then (PairQueue::propagate()).
                                       if (states.load(entries[y]) == pair_state::done) continue;
                                       states.store(entries[y], pair_state::done);
                                       const auto [p, local] = locate(entries[y]);
                                       const InBlock c = space_.in_block(layouts[p], orders[p], local);
                                       const Split& split = portions[p].split->half[c.g];
                                       const int j0 = split.owner(c.block);
                                       const int j1 = split.owner(c.block + orders[p].white_placements[c.g] - 1);
                                       if (j0 != j1) {
                                           spread[shared++] = {p, local, false};
                                       } else if (j0 == me) {
                                           here[mine++] = {p, local, false};
                                       } else {
                                           outbox[j0].push_back(pair_of[p] * pair_size + local);
                                       }
                                   }
                                   tell(std::span<const Told>(here.data(), mine), static_cast<std::uint32_t>(d),
                                        pushes, nullptr);
                                   tell(std::span<const Told>(spread.data(), shared), static_cast<std::uint32_t>(d),
                                        pushes, &outbox);
                               }
                           });
                // Into one buffer in member order, then to the members.
                const std::size_t x = b % 2;
                std::fill(counts[x].begin(), counts[x].end(), 0);
                for (const auto& outbox : outboxes)
                    for (int j = 0; j < members; ++j) counts[x][j] += outbox[j].size();
                std::size_t total = 0;
                for (int j = 0; j < members; ++j) total += counts[x][j];
                sent[x]->resize(total);
                std::size_t at = 0;
                for (int j = 0; j < members; ++j)
                    for (auto& outbox : outboxes) {
                        std::copy(outbox[j].begin(), outbox[j].end(),
                                  sent[x]->begin() + static_cast<std::ptrdiff_t>(at));
                        at += outbox[j].size();
                        outbox[j].clear();
                    }
                if (crossing) team_.waited(crossing->wait());
                crossing.emplace([&, x] { mail[x]->send(team_, *sent[x], counts[x]); });
                if (b > 0) apply(*mail[1 - x], d);
            }
            if (crossing) {
                team_.waited(crossing->wait());
                apply(*mail[(batches - 1) % 2], d);
            }
        }
    }

    // A team member's part of one level.
    void solve_level_in_team(const PotentialLevels<N>& levels, const typename PotentialLevels<N>::Level& level,
                             bool top) {
        const int members = team_.size(), me = team_.rank();
        const std::uint64_t configurations = level.men_configurations;
        const std::uint64_t K = space_.side(0).king_placements();
        // The member's portions: its share of the level's men configurations,
        // whole, or its share of every pair when there are too few to go round.
        std::vector<Portion> portions;
        std::uint64_t work = 0;
        // Whole pairs are numbered with 32 bits: bigger ones are always split.
        const bool split = (configurations < options_.configurations_per_member * static_cast<std::uint64_t>(members) ||
                            2 * K >= std::uint64_t{1} << 31) &&
                           2 * K >= options_.min_split_positions;
        std::vector<SplitPair> splits;
        if (split) {
            const std::vector<Pair> pairs = space_.pairs_of(levels, level.potential);
            splits.resize(pairs.size());
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
                        throw std::runtime_error(space_.material().name() + ": more than 2^32 positions of one level on one "
                                                 "member; build it on more ranks");
                    const std::uint64_t f = s.bounds[me], l = s.bounds[me + 1];
                    if (f < l)
                        portions.push_back({pairs[i], f, l, std::exchange(work, work + (l - f)), &splits[i], s.lock_base[me]});
                }
        } else {
            // The level's configurations in slices dealt out in turn, 16 a
            // member: neighbouring configurations cost alike, so one slice
            // each would leave some members with the dear ones.
            const std::uint64_t slices = std::min<std::uint64_t>(configurations, 16 * static_cast<std::uint64_t>(members));
            for (std::uint64_t i = me; i < slices; i += members) {
                const std::uint64_t first = share_bound(configurations, static_cast<int>(i), static_cast<int>(slices));
                const std::uint64_t last = share_bound(configurations, static_cast<int>(i + 1), static_cast<int>(slices));
                for (const Pair& pair : space_.pairs_of(levels, level.potential, first, last - first)) {
                    const auto size = static_cast<std::uint32_t>(space_.pair_positions(pair));
                    portions.push_back({pair, 0, size, std::exchange(work, work + size), nullptr, 0});
                }
            }
        }
        // Small whole pairs first (chunks of several), then the big ones and
        // the shares of split pairs (chunks of slices).
        const std::uint64_t big = options_.shared_pair_positions;
        std::stable_partition(portions.begin(), portions.end(), [&](const Portion& p) {
            return !p.split && p.count() < big;
        });
        // A level of whole pairs is solved in stages of at most
        // stage_positions positions (a bigger pair a stage of its own):
        // while one stage is solved, another thread sends the results of the
        // stage before to their homes and fetches the man moves' blocks of
        // the stage after, so that the exchanges cross while the member works
        // (docs/design.md, "A level in stages"). A split level is one stage.
        std::vector<std::size_t> stage_first{0};
        if (!split) {
            std::uint64_t n = 0;
            for (std::size_t p = 0; p < portions.size(); ++p) {
                if (n > 0 && n + portions[p].count() > options_.stage_positions) {
                    stage_first.push_back(p);
                    n = 0;
                }
                n += portions[p].count();
            }
        }
        stage_first.push_back(portions.size());
        work = place(portions, stage_first);
        // Chunks within a stage: small whole pairs several to a chunk, big
        // pairs and the shares of split pairs in slices.
        constexpr std::uint32_t slice = 4096;
        std::vector<Chunk> chunks;
        std::vector<std::size_t> stage_chunks{0};
        for (std::size_t st = 0; st + 1 < stage_first.size(); ++st) {
            std::size_t p = stage_first[st];
            const std::size_t end = stage_first[st + 1];
            while (p < end && !portions[p].split && portions[p].count() < big) {
                std::size_t q = p;
                std::uint64_t n = 0;
                while (q < end && !portions[q].split && portions[q].count() < big && n < slice)
                    n += portions[q++].count();
                chunks.push_back({p, q, 0, 0, nullptr});
                p = q;
            }
            for (; p < end; ++p)
                for (std::uint64_t f = portions[p].first; f < portions[p].last; f += slice)
                    chunks.push_back({p, p + 1, f, std::min<std::uint64_t>(portions[p].last, f + slice), nullptr});
            stage_chunks.push_back(chunks.size());
        }

        SolvedValues& store = buffers_.work;
        store.material = space_.material();
        store.codes.resize(work);  // every code is written before it is read
        store.capture.assign((work + 63) / 64, 0);
        // Whether the level needs values from other members: those of the
        // materials shared out, and of man moves (none from the top level:
        // a man move there would raise the highest potential), asked position
        // by position in split pairs, fetched by blocks for whole ones with
        // kings. Without kings a block is one position, and a position with a
        // capture asks nothing for its man moves, where a block would be fetched.
        const bool man_moves = space_.material().men() > 0 && !top;
        const bool fetches = man_moves && !split && K > 1;
        const bool asks = tables_.shares_successors() || (man_moves && !fetches);
        std::vector<std::uint8_t>& meta = buffers_.meta;
        std::vector<std::vector<std::uint16_t>>& entries = buffers_.entries;
        meta.resize(asks ? work : 0);  // ask() writes every position's
        if (fetches) find_exits(portions);
        if (asks) look_up(store, chunks, portions, meta, fetches, entries);
        const SolvedValues& fetched = buffers_.fetched;
        // The values of a chunk's positions from outside their pairs.
        auto with_source = [&](const Chunk& chunk, auto&& f) {
            if (asks) {
                EntrySource source{successors_, store, meta.data(), chunk.entries, fetches ? &fetched : nullptr};
                f(source);
            } else {  // every table held whole; man moves' values fetched, if any
                DirectSource<V> source(successors_, fetches ? fetched : store);
                f(source);
            }
        };

        if (split) {
            // The shares of split pairs, in step with the team.
            std::uint64_t lock_size = 0;
            for (const Portion& p : portions) lock_size += p.count();
            std::vector<std::uint8_t>& lock = buffers_.lock;
            lock.assign(lock_size, 0);
            Buckets buckets;
            const PairStates<true> states{lock.data()};
            initialise_chunks(store, false, chunks, 0, chunks.size(), with_source, states, buckets,
                              [&](std::size_t p) { return layout_for_setup(portions, p, fetches, asks); },
                              [](const Layout& l, std::uint64_t local, const Position&) { return l.state(local); });
            run_split_queue(store, portions, splits, lock, buckets);
            std::uint32_t max_code = 0;
            for (const Portion& p : portions)
                max_code = std::max(max_code,
                                    PairQueue<V>::finish(store, layout_in_work(p), p.first, p.last, lock.data()));
            max_code_.note(max_code);
            report(lock_size);
            send_home(portions, 0, portions.size(), store);
            return;
        }

        // Stage st of whole pairs: small pairs a chunk per task, then big
        // pairs one at a time with all threads.
        auto solve_stage = [&](std::size_t st) {
            const std::size_t c0 = stage_chunks[st], c1 = stage_chunks[st + 1];
            std::size_t c = c0;
            while (c < c1 && portions[chunks[c].p0].count() < big) ++c;
            tbb::enumerable_thread_specific<PairScratch> scratches;
            tbb::parallel_for(c0, c, [&](std::size_t i) {
                PairScratch& scratch = scratches.local();
                std::uint64_t positions = 0;
                with_source(chunks[i], [&](auto& source) {
                    for (std::size_t p = chunks[i].p0; p < chunks[i].p1; ++p) {
                        const Layout layout = layout_for_setup(portions, p, fetches, asks);
                        max_code_.note(queue_.solve_alone(store, layout, portions[p].count(), scratch, source));
                        positions += portions[p].count();
                    }
                });
                report(positions);
            });
            while (c < c1) {
                const std::size_t p = chunks[c].p0, first = c;
                while (c < c1 && chunks[c].p0 == p) ++c;
                const Layout layout = layout_for_setup(portions, p, fetches, asks);
                PairScratch scratch;
                const auto set_up = [&](const auto& order, const PairStates<true>& states, SolvedValues& blocks,
                                        Buckets& buckets) {
                    initialise_chunks(blocks, true, chunks, first, c, with_source, states, buckets,
                                      [&](std::size_t) { return layout; },
                                      [&](const Layout& l, std::uint64_t local, const Position& q) {
                                          return order.state(l, local, q);
                                      });
                };
                max_code_.note(queue_.solve_shared(store, layout, portions[p].count(), scratch, set_up));
                report(portions[p].count());
            }
        };
        // The team's stages: as many on every member (the last ones empty on a member with fewer).
        const std::size_t mine = stage_first.size() - 1;
        const std::size_t stages = team_.all_max(mine);
        const auto first_of = [&](std::size_t st) { return stage_first[std::min(st, mine)]; };
        const auto fetch = [&](std::size_t st) {
            if (fetches) fetch_blocks(first_of(st), first_of(st + 1));
        };
        fetch(0);
        for (std::size_t st = 0; st < stages; ++st) {
            Background exchanges([&] {
                if (st > 0) send_home(portions, first_of(st - 1), first_of(st), store);
                if (st + 1 < stages) fetch(st + 1);
            });
            if (st < mine) solve_stage(st);
            team_.waited(exchanges.wait());
        }
        send_home(portions, first_of(stages - 1), first_of(stages), store);
    }

    // Sets up the positions of chunks [c0, c1) (each one portion's slice) in
    // parallel, their layouts through layout_of_portion(p), their states at
    // state_of(layout, local, position), their codes and marks in `codes`,
    // at their states if `at_states` (a big pair's in block order:
    // PairQueue::solve_shared), else at their layouts' places.
    template <class WithSource, class LayoutOf, class StateOf>
    void initialise_chunks(SolvedValues& codes, bool at_states, const std::vector<Chunk>& chunks, std::size_t c0,
                           std::size_t c1, WithSource&& with_source, const PairStates<true>& states,
                           Buckets& buckets, LayoutOf&& layout_of_portion, StateOf&& state_of) {
        std::mutex merge;
        tbb::parallel_for(c0, c1, [&](std::size_t i) {
            const Chunk& chunk = chunks[i];
            const Layout layout = layout_of_portion(chunk.p0);
            Pushes pushes;
            with_source(chunk, [&](auto& source) {
                CaptureMarks marks(codes);
                space_.for_each_position(layout, chunk.first, chunk.last, source, [&](std::uint64_t l, const Position& q) {
                    const auto at = static_cast<std::uint32_t>(state_of(layout, l, q));
                    initialise<V>(codes, marks, layout, l, at_states ? at : layout.storage(l), at, q, states, pushes,
                                  source);
                });
            });
            const std::lock_guard lock(merge);
            for (const auto& [d, at] : pushes.list) add_to_buckets(buckets, d, at);
        });
    }

    // A team member's buffers, kept from level to level: each level's would
    // otherwise be new memory, which the kernel maps and zeroes page by page.
    struct TeamBuffers {
        explicit TeamBuffers(int members)
            : questions(members),
              answers(members),
              results(members),
              updates{Mailbox<std::uint64_t>(members), Mailbox<std::uint64_t>(members)},
              question_first(members),
              question_bytes(members) {}
        Mailbox<std::byte> questions;
        Mailbox<std::uint16_t> answers;
        Mailbox<std::byte> results;
        std::array<Mailbox<std::uint64_t>, 2> updates;  // a split queue's batches, two crossing in turn
        std::vector<std::vector<std::uint64_t>> words;  // per chunk of a round, in the order asked
        std::vector<std::vector<std::size_t>> start;    // per chunk and member: where its questions start
        std::vector<std::vector<std::vector<std::byte>>> coded;  // per chunk of a round and member: its questions
        std::vector<std::byte> asked;                              // the round's questions, coded, in member order
        // Per member: where the chunks of its questions start, in the answers and in its bytes.
        std::vector<std::vector<std::size_t>> question_first, question_bytes;
        std::vector<std::uint16_t> replies;
        std::array<std::vector<std::uint64_t>, 2> told;
        SolvedValues work;                                // the codes of the level's positions
        std::vector<std::uint8_t> meta, lock;
        std::vector<std::vector<std::uint16_t>> entries;  // the answers, a buffer per round
        std::vector<std::uint64_t> exit_first;            // each portion's first block fetched
        std::vector<std::uint64_t> exit_bases;            // the blocks fetched, in order
        SolvedValues fetched;                             // the blocks' codes (fetch_blocks())
    };

    const PairSpace<V>& space_;
    PairQueue<V> queue_;
    Team& team_;
    TeamTables<V>& tables_;
    const Successors<V>& successors_;
    TeamOptions options_;
    const SolveProgress& progress_;
    MaxCode& max_code_;
    TeamBuffers buffers_;
};

}  // namespace dtb
