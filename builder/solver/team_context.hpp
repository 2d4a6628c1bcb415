// What the parts of a team member's level share (team_level.hpp): its team,
// tables and options, the buffers it keeps from level to level, and the
// rounds its exchanges are taken in.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "builder/values/solved_values.hpp"
#include "builder/solver/background.hpp"
#include "builder/solver/pair_space.hpp"
#include "builder/team/mailbox.hpp"
#include "builder/team/team_options.hpp"
#include "builder/team/team_tables.hpp"

namespace dtb {

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
    Mailbox<std::byte> questions;  // a round's questions, and the man moves' blocks asked for
    Mailbox<std::uint16_t> answers;
    Mailbox<std::byte> results;
    std::array<Mailbox<std::uint64_t>, 2> updates;  // a split queue's batches, two crossing in turn
    std::vector<std::vector<std::uint64_t>> words;  // per chunk of a round, in the order asked
    std::vector<std::vector<std::uint16_t>> owners;  // per chunk of a round: the member asked each word
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
    // A block fetched: a man move's children (`base` the position of the
    // first), or a promotion's (`base` the word of king placement 0 of their
    // men configuration, whose table holds `placements` for it), from half
    // `half` of men configuration `men` of the material solved.
    struct ExitBlock {
        std::uint64_t base;
        std::uint64_t men, placements;
        std::uint8_t half, from, to;
        bool promotes;
    };
    std::vector<ExitBlock> exit_blocks;  // in order
    SolvedValues fetched;                             // the blocks' codes (fetch_blocks())
    SolvedValues staged;                              // split pairs' codes in the table's order (send_home())
    Background background;                            // the exchanges beside the solving
};

// A team member as its level's parts see it. `tables` holds the team's
// share of the material and of the materials it leads to that are shared
// out; `successors` the materials it leads to that every member holds whole.
template <class V>
struct TeamContext {
    const PairSpace<V>& space;
    Team& team;
    TeamTables<V>& tables;
    const Successors<V>& successors;
    const TeamOptions& options;
    TeamBuffers& buffers;
};

// Calls f(first, last) for each round of a team's exchange, when n items
// of size(i) positions are taken in order, at most options.lookup_positions
// positions a round (an item bigger: a round of its own): as many rounds on
// every member, the last ones empty on a member with fewer.
template <class V, class Size, class F>
void in_rounds(const TeamContext<V>& member, std::size_t n, Size&& size, F&& f) {
    std::vector<std::size_t> starts{0};
    std::uint64_t in_round = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t count = size(i);
        if (in_round > 0 && in_round + count > member.options.lookup_positions) {
            starts.push_back(i);
            in_round = 0;
        }
        in_round += count;
    }
    starts.push_back(n);
    const std::uint64_t rounds = member.team.all_max(starts.size() - 1);
    for (std::uint64_t r = 0; r < rounds; ++r)
        f(r + 1 < starts.size() ? starts[r] : n, r + 1 < starts.size() ? starts[r + 1] : n);
}

}  // namespace dtb
