// The one store of solved values a build keeps for the jobs still to run
// that read them, in one process (builder/driver/build_of.hpp) or on one
// rank of a distributed build (builder/mpi/worker.hpp): plain tables, whole
// or a team member's range, with or without their capture marks, and rule
// values; within a memory budget that also counts the working sets of the
// jobs in work (hold(), Held).
//
// When room is needed, the kept values no job in work holds give it up,
// those with the fewest uses left first and, among them, the least recently
// used: plain tables are packed in memory first (pack_range(): a few
// percent of their bytes, unpacked at memory speed when found again; the
// frames stay beside the values unpacked from them, so that a table gives
// up its room again without a second packing). Where room is made for a job
// (its Reads given), rule values and then packed tables it does not read are
// let go, packed tables only if that makes the room, those whose packed
// form is on disk first; the caller reads them from there, or from their
// table files, when needed again.
//
// The one process counts the jobs left that read each table (add_use(),
// used()); a rank is told by the coordinator which no job left reads
// (let_go()), its counts staying at nought, so that it lets the least
// recently used give up room first.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "builder/values/packed_codes.hpp"
#include "builder/values/rule_values.hpp"
#include "builder/values/solved_values.hpp"
#include "probe/table_format.hpp"

namespace dtb {

class KeptTables {
public:
    // What a job reads: its successors' values of one kind (dtw: plain,
    // rul: rule values). None of them is let go to make room for it.
    struct Reads {
        std::span<const Material> materials;
        TableKind kind = TableKind::dtw;
    };
    // What the store did to keep within its budget.
    struct Counts {
        int packed = 0, unpacked = 0;
        std::uint64_t packed_from_bytes = 0, packed_to_bytes = 0;
        double packing_seconds = 0, unpacking_seconds = 0;
        int let_go = 0;  // packed tables let go to make room
        std::uint64_t peak_bytes = 0;  // the most held at once
    };

    explicit KeptTables(std::uint64_t budget) : budget_(budget) {}
    KeptTables(const KeptTables&) = delete;
    KeptTables& operator=(const KeptTables&) = delete;

    // One more job left reads m's values of `kind`.
    void add_use(const Material& m, TableKind kind);
    // Jobs left that read them.
    int uses(const Material& m, TableKind kind);
    // A job that read them is done: true if none left does, and they are let go.
    bool used(const Material& m, TableKind kind);
    // Lets go of m's values of `kind`, whole or a range, packed or not (a
    // job in work that holds them keeps them until it ends).
    void let_go(const Material& m, TableKind kind);
    // m's plain values have a packed form on disk: when packed tables are
    // let go, theirs go first.
    void on_disk(const Material& m);

    // m's plain values if they are here, whole or a range (now the most
    // recently used); unpacked if they were packed and there is room for
    // them (made for `reader` if given, else by packing only).
    std::shared_ptr<const SolvedValues> find(const Material& m, const Reads* reader = nullptr);
    // m's values if they are here whole.
    std::shared_ptr<const SolvedValues> find_whole(const Material& m, const Reads* reader = nullptr);
    // Those of `materials` that are here whole.
    std::vector<std::shared_ptr<const SolvedValues>> find_all(std::span<const Material> materials,
                                                              const Reads* reader = nullptr);
    // Keeps `values` (a range of a material replaced by its whole table,
    // never the other way): as they are if they fit once unused values are
    // packed, else packed if that fits; else not at all.
    void keep(std::shared_ptr<const SolvedValues> values);

    // m's rule values if they are here (now the most recently used).
    std::shared_ptr<const RuleValues> find_rules(const Material& m);
    // Keeps rule values if they fit once unused plain values are packed.
    void keep(std::shared_ptr<const RuleValues> values);

    // Whether `bytes` more fit the budget, once kept values give up room
    // (for `reader`, if given, letting go of what it does not read).
    bool make_room(std::uint64_t bytes, const Reads* reader = nullptr);
    // Counts a working set held, or no longer held.
    void hold(std::uint64_t bytes);
    void free(std::uint64_t bytes);

    // The working set of a job, held while it lives: room is made for it
    // (for `reader`, as make_room()); it is held in any case.
    class Held {
    public:
        Held(KeptTables& tables, std::uint64_t bytes, const Reads* reader = nullptr);
        // Bytes already held by another (which no longer counts them as its own).
        static constexpr struct Adopt {
        } adopt{};
        Held(KeptTables& tables, std::uint64_t bytes, Adopt) : tables_(tables), bytes_(bytes) {}
        Held(const Held&) = delete;
        Held& operator=(const Held&) = delete;
        ~Held() { tables_.free(bytes_); }

        // Holds only `bytes` of what it held from now on (no more than it held).
        void shrink_to(std::uint64_t bytes) {
            if (bytes >= bytes_) return;
            tables_.free(bytes_ - bytes);
            bytes_ = bytes;
        }

    private:
        KeptTables& tables_;
        std::uint64_t bytes_;
    };

    std::uint64_t budget() const noexcept { return budget_; }
    std::uint64_t bytes();  // held now: kept values and working sets
    Counts counts();

private:
    struct Entry {
        int uses = 0;
        std::uint64_t used_at = 0;  // tick of its last find or keep
        bool on_disk = false;
        std::shared_ptr<const SolvedValues> values;  // plain values in memory, and/or
        std::unique_ptr<PackedRange> packed;          // their frames
        std::uint64_t per_side = 0, first = 0, count = 0;
        std::uint32_t max_code = 0;
        bool marks = false;  // the packed values had their capture marks
        std::shared_ptr<const RuleValues> rules;
        std::uint64_t bytes() const noexcept;
        bool empty() const noexcept { return !values && !packed && !rules; }
    };
    using Key = std::pair<Material, TableKind>;

    Entry* entry(const Material& m, TableKind kind);  // null if there is none
    std::shared_ptr<const SolvedValues> find_locked(const Material& m, const Reads* reader);
    bool make_room_locked(std::uint64_t bytes, const Reads* reader, const Entry* spare = nullptr);
    void pack(Entry& e);
    void drop(std::map<Key, Entry>::iterator it);  // lets go of what it holds, and of it if no use is left
    void add(std::uint64_t bytes);

    std::uint64_t budget_;
    std::uint64_t bytes_ = 0;
    std::uint64_t tick_ = 0;
    std::map<Key, Entry> entries_;
    Counts counts_;
    std::mutex mutex_;
};

}  // namespace dtb
