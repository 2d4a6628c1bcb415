// Solved tables passed between the ranks of a distributed build: a rank that
// needs a table, or a range of one, that another rank keeps in memory (it
// solved the table alone, or its range of it in a team) asks that rank for
// it instead of reading it back from its file, which costs a solve of its
// capture positions again. The range crosses packed (pack_range(), about a
// tenth of the two bytes and a bit a position), asked for in parts of 2^26
// positions (between multiples of 2^26, so that ranges that overlap share
// their parts), two ahead, so that the holder packs a part while the one
// before crosses and the asker unpacks the one before that. The holder's
// main thread answers between its other messages while its threads go on
// solving. Each part is packed on a thread of its own, whose parallel_for
// shares the machine's TBB workers with the solving, so that neither the
// main thread's heartbeats nor the asker wait for a material to be solved.
// The parts packed are kept (PackedParts) for the next rank that asks for
// the same part, which the holder then answers without packing it again. A
// part of a table the holder solved alone and wrote a packed form of
// (packed_forms.hpp: the same frames) is read from that file instead of
// packed a second time.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <list>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <mpi.h>

#include "builder/values/packed_codes.hpp"
#include "builder/values/packed_parts.hpp"
#include "builder/values/solved_values.hpp"
#include "builder/values/kept_tables.hpp"

namespace dtb::mpi {

class TableExchange {
public:
    // The frames of positions [first, first + count) of a table as this rank
    // already wrote them (read_packed_frames()), or none: any thread.
    using Written = std::function<std::optional<PackedRange>(const Material&, std::uint64_t first, std::uint64_t count)>;

    // `comm` is this exchange's own copy of MPI_COMM_WORLD; `kept` the
    // tables this rank holds; `kept_parts_budget` the bytes of packed parts
    // kept for the next asker; `written` the frames of whole tables it wrote
    // packed. Parts of 2^26 positions, or of DTB_TEST_PART_POSITIONS (a
    // multiple of 64) where the tests set it, to ask for tables in many parts.
    TableExchange(MPI_Comm comm, KeptTables& kept, std::uint64_t kept_parts_budget, Written written);
    TableExchange(const TableExchange&) = delete;
    TableExchange& operator=(const TableExchange&) = delete;

    // The main thread: answers the requests that came in and tends the sends
    // under way; returns whether it did anything.
    bool serve();
    // Waits for the packing and the sends under way to end (before the rank stops).
    void finish();

    // Positions [first, first + count) of table `into.material` from rank
    // `holder`, into `into` (which holds them; first a multiple of 64):
    // false if the holder no longer has them. Any thread.
    bool fetch(int holder, std::uint64_t first, std::uint64_t count, SolvedValues& into);

    // Drops the parts of m kept for askers: no job left reads it. The main thread.
    void let_go(const Material& m) { kept_parts_.let_go(m); }

    // Bytes of tables sent and received, packed.
    std::uint64_t bytes_sent() const noexcept { return sent_; }
    std::uint64_t bytes_received() const noexcept { return received_; }
    // Parts this rank packed for askers, parts it read as written in its
    // packed forms, and parts it sent to further askers without packing or
    // reading them again (kept, or being packed when asked for).
    std::uint64_t parts_packed() const noexcept { return parts_packed_; }
    std::uint64_t parts_read() const noexcept { return parts_read_; }
    std::uint64_t parts_sent_again() const noexcept { return parts_sent_again_; }

private:
    // A range being packed, for the ranks that asked for it, each to be answered on its tag.
    struct Packing {
        std::vector<std::pair<int, int>> askers;  // rank, tag
        PackedParts::Key key;
        std::future<PackedRange> packed;
    };
    // A range being sent: kept alive until its messages are delivered.
    struct Sending {
        std::shared_ptr<const PackedRange> packed;
        std::vector<MPI_Request> requests;
    };

    void answer(Packing& p);
    // Tells `asker` on `tag` that this rank does not have the part it asked for.
    void refuse(int asker, int tag);
    // Sends `packed` to `asker` on `tag`: the frames' sizes, then their bytes.
    void send(int asker, int tag, std::shared_ptr<const PackedRange> packed);

    MPI_Comm comm_;
    KeptTables& kept_;
    std::uint64_t part_positions_;
    std::list<Packing> packing_;  // the main thread's only
    std::list<Sending> sending_;  // the main thread's only
    PackedParts kept_parts_;      // the main thread's only
    Written written_;
    std::atomic<std::uint64_t> parts_packed_{0}, parts_read_{0};  // by the packing threads
    std::uint64_t parts_sent_again_ = 0;
    std::atomic<int> next_tag_{0};
    std::atomic<std::uint64_t> sent_{0}, received_{0};
};

}  // namespace dtb::mpi
