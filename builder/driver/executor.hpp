// A build's jobs run on this process's threads: a material solved alone and
// its tables written, or its .rul. The same code runs them in the
// one-process build (build_of.hpp) and on each rank of a distributed build
// (mpi/worker.hpp), which differ only in how the jobs reach them and where
// their reports go. The values a job reads come from the store
// (TableStore: kept, from other ranks, packed forms or files); what later
// jobs read is written packed beside the tables and kept.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "builder/driver/build_options.hpp"
#include "builder/driver/build_plan.hpp"
#include "builder/driver/material_job.hpp"
#include "builder/driver/packed_forms.hpp"
#include "builder/driver/rule_job.hpp"
#include "builder/driver/table_store.hpp"
#include "builder/solver/solve.hpp"
#include "builder/values/kept_tables.hpp"

namespace dtb {

template <class V>
class Executor {
public:
    static constexpr int N = V::board_size;
    using Elsewhere = typename TableStore<V>::Elsewhere;

    // As TableStore's: `budget` bounds the values kept and the working sets
    // of the jobs in work; `codes_only` keeps values without their capture
    // marks (the one process); `note` is told what went the slow way.
    Executor(const BuildOptions& o, std::uint64_t budget, bool codes_only,
             std::function<void(const std::string&)> note = {})
        : o_(o), store_(o, budget, codes_only, std::move(note)) {}
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;
    // Its jobs are done: the folder of levels goes if they left it empty (a
    // job that failed keeps its own there, to resume from).
    ~Executor() { remove_empty_levels_directory(variant_dir()); }

    TableStore<V>& store() noexcept { return store_; }
    KeptTables& kept() noexcept { return store_.kept(); }

    // What a plain job of material m holds while it runs on this process's
    // threads (plain_working_set()), or its rule job (rule_working_set()).
    WorkingSet working_set(const Material& m, bool rules = false) {
        return rules ? rule_working_set<V>(m, kept().budget(), o_.solver)
                     : plain_working_set<V>(m, solver_threads(), kept().budget(), o_.solver);
    }

    // How a job runs.
    struct Job {
        bool pack = false;  // some later job reads its values: written packed beside the tables, and kept
        bool hold = false;  // its working set held in the store while it solves (else its caller holds it)
        SolveProgress progress;
        // Once solved and the values it read let go, before its files are
        // written, given the bytes the solved values take: from then on the
        // executor holds those in the store until they are kept or let go,
        // and a caller that holds the working set lets go of the rest.
        std::function<void(std::uint64_t)> solved;
    };

    // Material m solved alone, reading the tables it leads to from the store
    // (`elsewhere` as TableStore::whole()), and its tables written: their
    // manifest entry.
    ManifestEntry solve_plain(const Material& m, const Job& job, const Elsewhere& elsewhere = {}) {
        const std::vector<Material> leads_to = successors(m);
        const KeptTables::Reads reads{leads_to, TableKind::dtw};
        const WorkingSet w = working_set(m);
        SolverOptions options = w.options;
        options.level_folder = levels_folder(variant_dir(), m, TableKind::dtw);  // used only by levels
        SolvedMaterial solved;
        std::optional<KeptTables::Held> held;  // the working set, then what the solved values take
        {
            if (job.hold) held.emplace(kept(), w.bytes, &reads);
            const SuccessorTables<V> tables(leads_to, o_.dir, kept(),
                                            [&](const Material& s) { return store_.whole(s, reads, elsewhere); });
            solved = solve_material<V>(m, tables.get(), job.progress, w.pairs_at_once, options);
        }  // the tables it read let go before they are released
        // Held whole, or packed on disk (solved a level at a time): written and packed the same way.
        const auto* whole = std::get_if<SolvedValues>(&solved);
        solved_values_held(held, whole ? whole->bytes() : 0, w.bytes, job);
        const ManifestEntry entry =
            std::visit([&](auto& values) { return write_and_keep(m, job, values, held); }, solved);
        solved = {};
        remove_levels(variant_dir(), m, TableKind::dtw);
        return entry;
    }

    // p's rule values solved, reading those its moves lead to from the
    // store (else through their .rul files), whole or by levels
    // (rule_working_set()), and its .rul written: its record.
    RuleEntry solve_rules(const PlannedMaterial& p, const Job& job) {
        const KeptTables::Reads reads{p.successors, TableKind::rul};
        std::vector<std::shared_ptr<const RuleValues>> held;
        for (const Material& s : p.successors)
            if (auto values = store_.rules(s, reads)) held.push_back(std::move(values));
        const WorkingSet w = working_set(p.material, true);
        SolverOptions options = w.options;
        options.level_folder = levels_folder(variant_dir(), p.material, TableKind::rul);  // used only by levels
        std::optional<KeptTables::Held> working;  // the working set, then what the solved values take
        if (job.hold) working.emplace(kept(), w.bytes, &reads);
        SolvedRules solved = solve_rule_job<V>(o_, variant_dir(), p, held, options, job.progress, &kept());
        held.clear();
        remove_levels(variant_dir(), p.material, TableKind::rul);
        solved_values_held(working, solved.values ? solved.values->bytes() : 0, w.bytes, job);
        // Solved by levels, it is read through its .rul by the jobs that read it.
        if (job.pack && solved.values) {
            store_.write_packed(p.material.name() + ".rul", [&] {
                write_packed_rules(variant_dir(), *solved.values, solved.entry.checksum);
                return std::filesystem::file_size(packed_file(variant_dir(), p.material, TableKind::rul));
            });
            working.reset();  // counted by the store from here on
            kept().keep(std::move(solved.values));  // as they are if they fit, once kept tables are packed
        }
        return std::move(solved.entry);
    }

private:
    const std::filesystem::path& variant_dir() const noexcept { return store_.variant_dir(); }

    // A job of `working` bytes solved: what its solved values take (`values`,
    // counted within the working set) held in `held`, which holds the
    // working set if the executor held that, else adopts them from the
    // caller's, which lets go of the rest (Job::solved).
    void solved_values_held(std::optional<KeptTables::Held>& held, std::uint64_t values, std::uint64_t working,
                            const Job& job) {
        const std::uint64_t bytes = std::min(values, working);
        if (held)
            held->shrink_to(bytes);
        else
            held.emplace(kept(), bytes, KeptTables::Held::adopt);
        if (job.solved) job.solved(bytes);
    }

    // m's tables written from its values (SolvedValues or PackedTable), and,
    // if a later job reads them, their packed form, and whole values kept
    // (`held` holding them until then).
    template <class Values>
    ManifestEntry write_and_keep(const Material& m, const Job& job, Values& values,
                                 std::optional<KeptTables::Held>& held) {
        ManifestEntry entry = write_solved(o_, N, variant_dir(), values);
        maybe_kill_after_write(m);
        if (!job.pack) return entry;
        if (store_.write_packed(m.name(), [&] {
                write_packed_table(variant_dir(), values, entry.dtw_checksum);
                return std::filesystem::file_size(packed_file(variant_dir(), m, TableKind::dtw));
            }))
            kept().on_disk(m);
        // Whole, kept as it is if it fits, else packed; on disk, read from its
        // packed form by whoever reads it.
        if constexpr (std::is_same_v<Values, SolvedValues>) {
            auto whole = std::make_shared<SolvedValues>(std::move(values));
            if (store_.codes_only()) whole->drop_capture_marks();  // kept only for lookups, which read the codes
            held.reset();  // counted by the store from here on
            kept().keep(std::move(whole));
        }
        return entry;
    }

    const BuildOptions& o_;
    TableStore<V> store_;
};

}  // namespace dtb
