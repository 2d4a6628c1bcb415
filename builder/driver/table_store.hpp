// Where a build's jobs find the values they read, in one process
// (build_of.hpp) and on each rank of a distributed build (mpi/worker.hpp)
// alike: kept in memory (KeptTables, builder/values/kept_tables.hpp), else
// where there is room for them in their packed forms beside the tables
// (packed_forms.hpp), else in their table files: a plain table read back,
// its capture positions solved again from the kept tables they lead to and
// the files (table_loader.hpp), rule values read through their .rul files
// by the rule job itself. What is read is kept for the jobs left that read
// it. While a job reads values into memory, the others that want the same
// wait for them instead of reading them too. It also writes the packed
// forms of the values later jobs read, and counts what it read and wrote.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>

#include <fmt/core.h>
#include <tbb/task_arena.h>

#include "builder/driver/build_options.hpp"
#include "builder/driver/material_job.hpp"
#include "builder/driver/packed_forms.hpp"
#include "builder/values/kept_tables.hpp"
#include "builder/values/rule_values.hpp"
#include "builder/values/table_loader.hpp"
#include "probe/prober.hpp"

namespace dtb {

// What a TableStore read and wrote.
struct TableStoreCounts {
    int written = 0;  // packed forms, plain and rule
    std::uint64_t written_bytes = 0;
    double writing_seconds = 0;
    int read_packed = 0;  // values read from their packed forms, plain and rule
    double read_packed_seconds = 0;
    int failed = 0;  // packed forms not written (a full disk) or not read (damaged)
    ReadBacks read_back;  // tables read back from their files
    int rules_through_files = 0;  // rule values a rule job reads through their .rul files
};

template <class V>
class TableStore {
public:
    static constexpr int N = V::board_size;
    // A table whole from elsewhere (a rank asks the ranks that keep it), or null.
    using Elsewhere = std::function<std::shared_ptr<const SolvedValues>(const Material&)>;

    // `budget` bounds the values kept and the jobs' working sets. With
    // `codes_only`, tables read are kept without their capture marks (the
    // one process: lookups read the codes; a rank keeps them, to send
    // ranges of them to other ranks). `note` (may be empty) is told of a
    // table read back from its file, and of a packed form that fails.
    TableStore(const BuildOptions& o, std::uint64_t budget, bool codes_only,
               std::function<void(const std::string&)> note = {})
        : o_(o), variant_dir_(o.dir / o.variant), kept_(budget), codes_only_(codes_only), note_(std::move(note)) {}

    KeptTables& kept() noexcept { return kept_; }
    const std::filesystem::path& variant_dir() const noexcept { return variant_dir_; }
    bool codes_only() const noexcept { return codes_only_; }

    // Table s whole for a job that reads `reads`: kept; else, if there is
    // room for it, from `elsewhere` (may be empty), its packed form or its
    // table file, and kept. Null if there is no room: the job reads it
    // through the probe cache.
    std::shared_ptr<const SolvedValues> whole(const Material& s, const KeptTables::Reads& reads,
                                              const Elsewhere& elsewhere = {}) {
        return tbb::this_task_arena::isolate([&] { return whole_isolated(s, reads, elsewhere); });
    }

    // Table s whole from its packed form, or null if it has none.
    std::shared_ptr<const SolvedValues> read_packed_whole(const Material& s) {
        std::optional<SolvedValues> packed =
            read_packed(s, TableKind::dtw, [&] { return read_packed_table<V>(variant_dir_, s); });
        if (!packed) return nullptr;
        if (codes_only_) packed->drop_capture_marks();
        return std::make_shared<const SolvedValues>(std::move(*packed));
    }

    // s's rule values for a rule job that reads `reads`: kept, or where
    // there is room for them read from their packed form (and kept); null:
    // the job reads them through their .rul file.
    std::shared_ptr<const RuleValues> rules(const Material& s, const KeptTables::Reads& reads) {
        return tbb::this_task_arena::isolate([&] { return rules_isolated(s, reads); });
    }

    // s's values of `kind` from its packed form (`read` reads it), or none
    // if it has none (not written, or no longer there) or it fails (said,
    // and counted): the caller reads them the slow way, which answers the same.
    template <class Read>
    auto read_packed(const Material& s, TableKind kind, Read&& read) -> std::optional<decltype(read())> {
        const Clock::time_point start = Clock::now();
        auto values = read_packed_or_none(variant_dir_, s, kind, read, [&](const std::exception& e) {
            if (note_) note_(fmt::format("{}; read from its table file instead", e.what()));
            const std::lock_guard lock(mutex_);
            ++counts_.failed;
        });
        if (values) {
            const std::lock_guard lock(mutex_);
            ++counts_.read_packed;
            counts_.read_packed_seconds += seconds_since(start);
        }
        return values;
    }

    // Writes the packed form of `what`'s values, which a later job reads
    // (`write` does it, and may give the file's bytes): true if written. A
    // failure (a full disk) is said once and counted; the values are then
    // read the slow way when needed again.
    template <class Write>
    bool write_packed(const std::string& what, Write&& write) {
        const Clock::time_point start = Clock::now();
        try {
            std::uint64_t bytes = 0;
            if constexpr (std::is_void_v<decltype(write())>)
                write();
            else
                bytes = write();
            const std::lock_guard lock(mutex_);
            ++counts_.written;
            counts_.written_bytes += bytes;
            counts_.writing_seconds += seconds_since(start);
            return true;
        } catch (const std::exception& e) {
            const std::lock_guard lock(mutex_);
            if (note_ && !write_failure_said_)  // said once: a full disk would say it for every table
                note_(fmt::format("could not write the packed form of {} beside the tables ({}); values that give "
                                  "up their room are read back from their table files instead",
                                  what, e.what()));
            ++counts_.failed;
            write_failure_said_ = true;
            return false;
        }
    }

    // Tables read back elsewhere (a team reads some back together).
    void count_read_back(const ReadBacks& read) {
        const std::lock_guard lock(mutex_);
        counts_.read_back += read;
    }

    TableStoreCounts counts() {
        const std::lock_guard lock(mutex_);
        return counts_;
    }

private:
    // whole() and rules(), on a thread that takes no other task meanwhile.
    std::shared_ptr<const SolvedValues> whole_isolated(const Material& s, const KeptTables::Reads& reads,
                                                       const Elsewhere& elsewhere) {
        const Loading loading(*this, {s, TableKind::dtw});
        if (auto values = kept_.find_whole(s, &reads)) return values;
        const std::uint64_t bytes = SolvedValues::bytes_for(table_positions<N>(s));
        if (!kept_.make_room(bytes, &reads)) return nullptr;
        // Counted while it is read, until keep() counts what it keeps.
        std::optional<KeptTables::Held> reading(std::in_place, kept_, bytes, &reads);
        std::shared_ptr<const SolvedValues> values = elsewhere ? elsewhere(s) : nullptr;
        if (!values) values = read_packed_whole(s);
        if (!values) {
            const Clock::time_point start = Clock::now();
            ReadBacks read;
            read.count([&] {
                // Its capture positions answered from the tables it leads to that are kept, or from their files.
                const TableFile file = open_dtw_table<V>(variant_dir_, s);
                const JobProber<V> prober(o_.dir, &kept_);
                SolvedValues loaded = load_solved_values<V>(
                    file, Successors<V>(kept_.find_all(successors(s)), &prober.get()), 0, file.header().table_blocks());
                if (codes_only_) loaded.drop_capture_marks();
                values = std::make_shared<const SolvedValues>(std::move(loaded));
            });
            count_read_back(read);
            if (note_)
                note_(fmt::format("{:<10} read back from its file, capture positions solved again: {:.1f} s", s.name(),
                                  seconds_since(start)));
        }
        reading.reset();
        kept_.keep(values);
        return values;
    }

    std::shared_ptr<const RuleValues> rules_isolated(const Material& s, const KeptTables::Reads& reads) {
        const Loading loading(*this, {s, TableKind::rul});
        if (auto values = kept_.find_rules(s)) return values;
        const std::uint64_t positions = table_positions<N>(s);
        const std::uint64_t bytes = governing_count<typename V::draw_rules>(s).has_road() ? 2 * positions : positions;
        std::optional<std::shared_ptr<const RuleValues>> values;
        if (has_packed(variant_dir_, s, TableKind::rul) && kept_.make_room(bytes, &reads))
            values = read_packed(s, TableKind::rul, [&] { return read_packed_rules<V>(variant_dir_, s); });
        if (!values) {
            const std::lock_guard lock(mutex_);
            ++counts_.rules_through_files;
            return nullptr;
        }
        kept_.keep(*values);
        return *values;
    }

    // While a job reads values into memory, the others that want the same
    // wait. The reading thread takes no other job's task meanwhile
    // (whole() and rules() are isolated): one could wait for the same values.
    class Loading {
    public:
        Loading(TableStore& store, std::pair<Material, TableKind> what) : store_(store), what_(std::move(what)) {
            std::unique_lock lock(store_.mutex_);
            store_.loaded_.wait(lock, [&] { return !store_.loading_.count(what_); });
            store_.loading_.insert(what_);
        }
        Loading(const Loading&) = delete;
        Loading& operator=(const Loading&) = delete;
        ~Loading() {
            const std::lock_guard lock(store_.mutex_);
            store_.loading_.erase(what_);
            store_.loaded_.notify_all();
        }

    private:
        TableStore& store_;
        std::pair<Material, TableKind> what_;
    };

    const BuildOptions& o_;
    std::filesystem::path variant_dir_;
    KeptTables kept_;
    bool codes_only_;
    std::function<void(const std::string&)> note_;
    std::mutex mutex_;
    std::set<std::pair<Material, TableKind>> loading_;  // values being read into memory
    std::condition_variable loaded_;                    // and no longer
    TableStoreCounts counts_;
    bool write_failure_said_ = false;
};

}  // namespace dtb
