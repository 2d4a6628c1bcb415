#include "builder/driver/build_plan.hpp"

#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/file.h>
#include <unistd.h>

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

BuildPlan::BuildPlan(const BuildOptions& o, int board_size) : variant_dir_(o.dir / o.variant) {
    std::error_code error;
    std::filesystem::create_directories(variant_dir_, error);
    if (error) throw std::runtime_error("cannot create " + variant_dir_.string() + ": " + error.message());
    lock_fd_ = lock_directory(variant_dir_);
    try {
        for (const auto& entry : std::filesystem::directory_iterator(variant_dir_))
            if (entry.path().extension() == ".tmp") std::filesystem::remove(entry.path());  // a killed build's
        manifest_ = Manifest::load(variant_dir_ / Manifest::file_name, o.variant);

        // Whether m's tables are in the manifest and their files hold.
        auto finished = [&](const Material& m) {
            const ManifestEntry* e = manifest_.find(m);
            if (!e) return false;
            try {
                for (TableKind kind : {TableKind::wld, TableKind::dtw}) {
                    const TableFile file = TableFile::open(variant_dir_ / table_file_name(m, kind), {o.variant, m, kind});
                    if (file.table_checksum() != (kind == TableKind::wld ? e->wld_checksum : e->dtw_checksum))
                        throw TableError(TableErrorKind::corrupted, file.path(), "not the table the manifest lists");
                }
                return true;
            } catch (const TableError& failure) {
                notes_.push_back(fmt::format("{}: {}; building it again", m.name(), failure.what()));
                return false;
            }
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
        for (PlannedMaterial& p : materials_) {
            if (!p.build) continue;
            std::set<Material> result, seen;
            std::vector<Material> stack = p.successors;
            while (!stack.empty()) {
                const Material s = stack.back();
                stack.pop_back();
                if (!seen.insert(s).second) continue;
                const PlannedMaterial& q = materials_[at.at(s)];
                if (q.build)
                    result.insert(s);
                else
                    stack.insert(stack.end(), q.successors.begin(), q.successors.end());
            }
            p.waits_for.assign(result.begin(), result.end());
        }
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
