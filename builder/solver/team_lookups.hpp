// A team member's lookups (docs/design.md, "Distributed build"): the values
// its positions' exits and captures lead to that other members hold, asked
// of them in rounds (TeamTables), and its answers to their questions; and
// the source that hands the answers to the set-up in the order asked.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tbb/parallel_for.h>

#include "builder/values/capture_values.hpp"
#include "builder/values/solved_values.hpp"
#include "builder/solver/level_share.hpp"
#include "builder/solver/pair_space.hpp"
#include "builder/solver/team_context.hpp"
#include "builder/team/mailbox.hpp"
#include "builder/team/team_tables.hpp"
#include "builder/team/word_coding.hpp"
#include "draughts/movegen.hpp"
#include "probe/table_format.hpp"
#include "probe/value.hpp"

namespace dtb {

// Values from outside a pair in a team: those of the materials every
// member holds whole read here, the others answered by their members
// (look_up()) and consumed in the order they were asked: per position
// without a capture, one per promotion not read here and one per man
// move unless they were fetched (in `fetched`, where the exit's base
// points: ManMoveBlocks::layout_for_setup()); per position with
// one, meta - 1 of them, on top of the best over the captures read here
// (left in the position's code by ask()).
template <class V>
struct EntrySource {
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Bitboard = typename Position::Bitboard;
    using Layout = typename PairSpace<V>::Layout;
    using ManExit = typename PairSpace<V>::ManExit;

    const Successors<V>& successors;  // the materials every member holds whole
    const SolvedValues& store;
    const std::uint8_t* meta;  // by storage index: 0 without a capture, else the answers asked + 1
    const std::uint16_t* entries;
    const SolvedValues* fetched;  // whole pairs' man moves and promotions (fetch_blocks()), else null: asked
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

// Asks the values a member's positions need of the members that hold them.
template <class V>
class TeamLookups {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;
    using Move = draughts::Move<N>;
    using Layout = typename PairSpace<V>::Layout;
    using ManExit = typename PairSpace<V>::ManExit;
    using Chunk = typename LevelShare<V>::Chunk;
    using Needs = typename LevelShare<V>::Needs;

    explicit TeamLookups(const TeamContext<V>& member) : member_(member) {}

    // Looks up every value the member's positions need from outside their
    // pairs, in rounds that every member takes part in (answering the others'
    // questions even when it has none): each chunk gets its answers, in one
    // buffer per round (TeamBuffers::entries); `meta` the number of captures of each
    // position. Man moves are not asked for when `fetched_exits`, nor
    // promotions into tables shared out when `fetched_promotions`.
    void look_up(SolvedValues& store, LevelShare<V>& share, std::vector<std::uint8_t>& meta, bool fetched_exits,
                 bool fetched_promotions) {
        const int members = member_.team.size();
        if (members > 1 << 16) throw std::runtime_error("a team of more than 65,536 members");  // owners' width
        TeamBuffers& b = member_.buffers;
        std::vector<Chunk>& chunks = share.chunks;
        std::vector<std::vector<std::uint16_t>>& entries = b.entries;
        Mailbox<std::byte>& questions = b.questions;
        Mailbox<std::uint16_t>& answers = b.answers;
        std::vector<std::vector<std::uint64_t>>& words = b.words;
        std::vector<std::vector<std::uint16_t>>& owners = b.owners;
        std::vector<std::vector<std::size_t>>& start = b.start;
        std::vector<std::vector<std::vector<std::byte>>>& coded = b.coded;
        std::vector<std::byte>& sent = b.asked;
        std::vector<std::vector<std::size_t>>& question_first = b.question_first;
        std::vector<std::vector<std::size_t>>& question_bytes = b.question_bytes;
        std::vector<std::uint16_t>& replies = b.replies;
        std::size_t round_buffers = 0;
        std::vector<std::size_t> counts(members), part(members + 1);
        // Rounds of at most lookup_positions positions (and one chunk at least).
        auto positions = [&](std::size_t c) { return share.positions(chunks[c]); };
        in_rounds(member_, chunks.size(), positions, [&](std::size_t c0, std::size_t c1) {
            const std::size_t n = c1 - c0;
            if (words.size() < n) {
                words.resize(n);
                owners.resize(n);
                start.resize(n);
                coded.resize(n);
            }
            // The questions, chunk by chunk.
            tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
                words[i].clear();
                start[i].assign(members, 0);
                const Needs needs = fetched_exits ? Needs::exits : Needs::all;  // ask() words no man move's child
                Children children(member_.tables, member_.successors);
                share.for_each_run(chunks[c0 + i], needs, [&](const Layout& l, std::uint64_t f, std::uint64_t e) {
                    member_.space.for_each_position(l, f, e, [&](std::uint64_t x, const Position& q) {
                        ask(store, l, x, q, meta.data(), fetched_exits, fetched_promotions, children, words[i]);
                    });
                });
                // Each member's questions of the chunk coded on their own
                // (WordCoding), so that chunks are coded and answered in parallel.
                std::vector<std::uint16_t>& owner = owners[i];
                owner.resize(words[i].size());
                for (std::size_t x = 0; x < words[i].size(); ++x) {
                    owner[x] = static_cast<std::uint16_t>(member_.tables.owner(words[i][x]));
                    ++start[i][owner[x]];
                }
                std::vector<std::vector<std::byte>>& out = coded[i];
                out.resize(members);
                std::vector<std::byte*> end(members);
                for (int j = 0; j < members; ++j) {
                    out[j].resize(WordCoding::max_bytes * start[i][j]);
                    end[j] = out[j].data();
                }
                std::vector<WordCoding> coding(members);
                for (std::size_t x = 0; x < words[i].size(); ++x)
                    end[owner[x]] = coding[owner[x]].write(words[i][x], end[owner[x]]);
                for (int j = 0; j < members; ++j) out[j].resize(static_cast<std::size_t>(end[j] - out[j].data()));
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
            questions.send(member_.team, sent, counts);
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
                if (first_byte[chunks_of_j] != q.size())
                    throw std::logic_error("a team member's questions are cut short");
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
                    // A group's codes found and prefetched before any is
                    // read: they lie at random in the member's ranges.
                    constexpr std::size_t group = 16;
                    std::array<const std::uint16_t*, group> code;
                    for (std::size_t x = first_word[i]; x < first_word[i + 1]; x += group) {
                        const std::size_t n = std::min(group, first_word[i + 1] - x);
                        for (std::size_t y = 0; y < n; ++y) {
                            code[y] = member_.tables.where(coding.read(bytes, at));
                            __builtin_prefetch(code[y]);
                        }
                        for (std::size_t y = 0; y < n; ++y) replies[x + y] = *code[y];
                    }
                    if (at != first_byte[i + 1]) throw std::logic_error("a team member's questions are garbled");
                });
            }
            answers.send(member_.team, replies, counts);
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
                for (const std::uint16_t j : owners[i]) *out++ = answers.from(j)[at[j]++];
            });
        });
    }

private:
    // Where the children of captures and promotions are: held here (a code)
    // or by the member a word names. One per thread.
    using Children = typename TeamTables<V>::TurnedChildren;

    // The words of the values that `local` needs from other members, in the
    // order initialise() takes them (its man moves' not when `fetched_exits`,
    // its promotions' into tables shared out not when `fetched_promotions`);
    // sets its meta, and for a position with a capture leaves the best over
    // the captures read here in its code. No word is no_piece: a child whose
    // side to move has no piece left is a loss in 0, read here (Children).
    void ask(SolvedValues& store, const Layout& layout, std::uint64_t local, const Position& q, std::uint8_t* meta,
             bool fetched_exits, bool fetched_promotions, Children& children,
             std::vector<std::uint64_t>& words) const {
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
                if (const auto c = children.find(child); c.code) {
                    const Value v = before_move(value_of_dtw_code(*c.code));
                    if (preferred(v, best)) best = v;
                } else {
                    words.push_back(c.word);
                    ++asked;
                }
            }
            if (asked > 254)
                throw std::runtime_error(member_.space.material().name() + ": a position with " +
                                         std::to_string(asked) + " captures; a team counts at most 254");
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
            if (fetched_promotions) continue;  // fetched by blocks where shared out, else read here
            Position child = q;
            draughts::make_move(child, Move{0, e.from, e.to, true});
            if (const auto c = children.find(child); !c.code) words.push_back(c.word);
        }
    }

    TeamContext<V> member_;
};

}  // namespace dtb
