#include "builder/driver/build_plan.hpp"

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <stdexcept>

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/file.h>
#include <unistd.h>

#include "builder/driver/packed_forms.hpp"
#include "probe/errors.hpp"
#include "probe/index.hpp"
#include "probe/table_file.hpp"

namespace dtb {

namespace {

// One build at a time in a directory: an advisory lock on DIR/VARIANT/.lock,
// released by the kernel when the process ends, however it ends.
int lock_directory(const std::filesystem::path& dir) {
    const std::filesystem::path file = dir / ".lock";
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot create " + file.string() + ": " + std::strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        throw std::runtime_error("another dtb build is writing to " + dir.string() +
                                 ": wait for it to finish, or stop it, and start this one again");
    }
    return fd;
}

}  // namespace

BuildPlan::BuildPlan(const BuildOptions& o, int board_size, const RuleTerms& rules) : variant_dir_(o.dir / o.variant) {
    std::error_code error;
    std::filesystem::create_directories(variant_dir_, error);
    if (error) throw std::runtime_error("cannot create " + variant_dir_.string() + ": " + error.message());
    lock_fd_ = lock_directory(variant_dir_);
    try {
        for (const auto& entry : std::filesystem::directory_iterator(variant_dir_))
            if (entry.path().extension() == ".tmp") std::filesystem::remove(entry.path());  // a killed build's
        manifest_ = Manifest::load(variant_dir_ / Manifest::file_name, o.variant);

        // Whether m's file of `kind` holds the table the manifest lists
        // (`checksum`), a .rul one built under `rules`; if not, says why.
        // The materials whose .wld is compact (format 4), which no build
        // reads back (WldReader).
        std::set<Material> compact;
        const auto holds = [&](const Material& m, TableKind kind, std::uint64_t checksum, const RuleRecord* rules) {
            try {
                const TableFile file = TableFile::open(variant_dir_ / table_file_name(m, kind), {o.variant, m, kind});
                if (file.table_checksum() != checksum)
                    throw TableError(TableErrorKind::corrupted, file.path(), "not the table the manifest lists");
                if (rules && file.header().rules != *rules)
                    throw TableError(TableErrorKind::foreign, file.path(),
                                     "built under other rules or another road reading");
                if (kind == TableKind::wld && file.header().compact()) compact.insert(m);
                return true;
            } catch (const TableError& failure) {
                notes_.push_back(fmt::format("{}: {}; building it again", m.name(), failure.what()));
                return false;
            }
        };
        // Whether m's tables are in the manifest and their files hold.
        const auto finished = [&](const Material& m) {
            const ManifestEntry* e = manifest_.find(m);
            return e && holds(m, TableKind::wld, e->wld_checksum, nullptr) &&
                   holds(m, TableKind::dtw, e->dtw_checksum, nullptr);
        };
        std::map<Material, std::size_t> at;
        for (const Material& m : build_order(o.targets)) {
            PlannedMaterial p;
            p.material = m;
            p.successors = successors(m);
            const draughts::u128 count = placement_count(m, board_size) * static_cast<unsigned>(sides_of(m));
            if (count > max_index_size)
                throw std::runtime_error(m.name() + " has too many positions for a 64-bit index on this board");
            p.positions = static_cast<std::uint64_t>(count);
            p.build = !finished(m);
            at[m] = materials_.size();
            materials_.push_back(std::move(p));
        }
        // The materials this run builds that p must wait for: its successors
        // and, through those already built, theirs; `built` says which are built.
        // The already built ones passed through, which p reads back from their
        // files, are added to `read_back`.
        std::set<Material> read_back;
        const auto waits = [&](const PlannedMaterial& p, auto built) {
            std::set<Material> result, seen;
            std::vector<Material> stack = p.successors;
            while (!stack.empty()) {
                const Material s = stack.back();
                stack.pop_back();
                if (!seen.insert(s).second) continue;
                const PlannedMaterial& q = materials_[at.at(s)];
                if (built(q)) {
                    result.insert(s);
                } else {
                    read_back.insert(s);
                    stack.insert(stack.end(), q.successors.begin(), q.successors.end());
                }
            }
            return std::vector<Material>(result.begin(), result.end());
        };
        for (PlannedMaterial& p : materials_)
            if (p.build) p.waits_for = waits(p, [](const PlannedMaterial& q) { return q.build; });
        if (o.rules) {
            if (!rules) throw std::logic_error("a build with --rules needs the draw rules' terms");
            for (PlannedMaterial& p : materials_) {
                std::optional<RuleRecord> record;
                try {
                    record = rules(p.material);
                } catch (const RulesRefused& e) {
                    p.rules_refused = e.what();
                }
                for (const Material& s : p.successors)
                    if (p.rules_refused.empty() && !materials_[at.at(s)].rules_refused.empty())
                        p.rules_refused = "its moves lead to " + s.name() + ", which the rules refuse";
                if (!p.rules_refused.empty()) continue;
                const ManifestEntry* e = manifest_.find(p.material);
                p.build_rules =
                    p.build || !e || !e->rules || !holds(p.material, TableKind::rul, e->rules->checksum, &*record);
            }
            for (PlannedMaterial& p : materials_)
                if (p.build_rules) {
                    p.rules_wait_for = waits(p, [](const PlannedMaterial& q) { return q.build_rules; });
                    if (!p.build) read_back.insert(p.material);  // the draws its .rul leaves to its .wld
                }
        }
        // A compact .wld among the tables this run reads back (and does not
        // build again) is refused here, before anything is solved.
        for (const Material& m : read_back)
            if (compact.contains(m) && !materials_[at.at(m)].build)
                throw std::runtime_error(
                    (variant_dir_ / table_file_name(m, TableKind::wld)).string() +
                    " is a compact .wld (format version 4), which leaves out positions that only a probe's search "
                    "answers, and this build reads " + m.name() +
                    " back from its tables: turn the set's compact tables back with dtb convert --full-wld, then "
                    "build (nothing was solved)");
        // A killed build's checkpoints: kept for the tables this run builds
        // (they resume from them), the others' removed.
        std::set<std::string> resumable;
        for (const PlannedMaterial& p : materials_) {
            if (p.build) resumable.insert(levels_folder_name(p.material, TableKind::dtw));
            if (p.build_rules) resumable.insert(levels_folder_name(p.material, TableKind::rul));
        }
        for (const auto& entry : std::filesystem::directory_iterator(levels_directory(variant_dir_), error))
            if (!resumable.contains(entry.path().filename().string())) std::filesystem::remove_all(entry.path());

        std::map<std::pair<Material, BuildJob::Kind>, int> job_of;
        const auto job_indices = [&](const std::vector<Material>& materials, BuildJob::Kind kind) {
            std::vector<int> out;
            for (const Material& m : materials) out.push_back(job_of.at({m, kind}));
            return out;
        };
        for (const PlannedMaterial& p : materials_) {
            if (p.build) {
                BuildJob job{BuildJob::Kind::plain, p.material, p.positions,
                             job_indices(p.waits_for, BuildJob::Kind::plain), {}};
                job.reads = job.waits_for;
                job_of[{p.material, job.kind}] = static_cast<int>(jobs_.size());
                jobs_.push_back(std::move(job));
            }
            if (p.build_rules) {
                BuildJob job{BuildJob::Kind::rule, p.material, p.positions, {},
                             job_indices(p.rules_wait_for, BuildJob::Kind::rule)};
                job.waits_for = job.reads;
                if (p.build) job.waits_for.insert(job.waits_for.begin(), job_of.at({p.material, BuildJob::Kind::plain}));
                job_of[{p.material, job.kind}] = static_cast<int>(jobs_.size());
                jobs_.push_back(std::move(job));
            }
        }
        // The packed forms this run's jobs may read (those of the tables
        // their materials lead to) stay; the others go (packed_forms.hpp).
        std::set<std::pair<Material, TableKind>> needed;
        for (const BuildJob& job : jobs_)
            for (const Material& s : materials_[at.at(job.material)].successors)
                needed.insert({s, job.kind == BuildJob::Kind::rule ? TableKind::rul : TableKind::dtw});
        keep_packed(variant_dir_, needed);
    } catch (...) {
        ::close(lock_fd_);
        throw;
    }
}

BuildPlan::~BuildPlan() { ::close(lock_fd_); }

const PlannedMaterial& BuildPlan::at(const Material& m) const {
    for (const PlannedMaterial& p : materials_)
        if (p.material == m) return p;
    throw std::logic_error(m.name() + " is not in the build plan");
}

}  // namespace dtb
