#include "builder/build.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_group.h>
#include <unistd.h>

#include "builder/solved_values.hpp"
#include "builder/solver.hpp"
#include "builder/table_loader.hpp"
#include "builder/table_writer.hpp"
#include "draughts/variant.hpp"
#include "probe/table_file.hpp"

namespace dtb {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::uint64_t physical_memory() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                                 : std::uint64_t{4} << 30;
}

std::uint64_t peak_resident_bytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

// One build at a time in a directory: an advisory lock on DIR/VARIANT/.lock,
// released by the kernel when the process ends, however it ends.
class DirectoryLock {
public:
    explicit DirectoryLock(const std::filesystem::path& dir) {
        const std::filesystem::path file = dir / ".lock";
        fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ < 0) throw std::runtime_error("cannot create " + file.string() + ": " + std::strerror(errno));
        if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
            ::close(fd_);
            throw std::runtime_error("another dtb build is writing to " + dir.string() +
                                     ": wait for it to finish, or stop it, and start this one again");
        }
    }
    DirectoryLock(const DirectoryLock&) = delete;
    DirectoryLock& operator=(const DirectoryLock&) = delete;
    ~DirectoryLock() { ::close(fd_); }

private:
    int fd_ = -1;
};

std::string with_commas(std::uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string duration_text(double seconds) {
    const auto s = static_cast<long long>(seconds + 0.5);
    if (s < 60) return fmt::format("{}s", s);
    if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
    return fmt::format("{}h{:02}m", s / 3600, s / 60 % 60);
}

// What the user sees: on a terminal, a status line redrawn twice a second
// under the finished materials; otherwise one line per finished material.
class Progress {
public:
    Progress(BuildOptions::Output output, std::size_t materials, std::uint64_t positions)
        : output_(output), materials_(materials), total_(positions), start_(Clock::now()) {
        if (output_ == BuildOptions::Output::automatic)
            output_ = isatty(fileno(stdout)) ? BuildOptions::Output::terminal : BuildOptions::Output::log;
        if (output_ == BuildOptions::Output::terminal) painter_ = std::thread([this] { paint_loop(); });
    }
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    ~Progress() {
        {
            const std::lock_guard lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        if (painter_.joinable()) painter_.join();
        if (output_ == BuildOptions::Output::terminal) {
            std::fputs("\r\x1b[2K", stdout);  // clear the status line
            std::fflush(stdout);
        }
    }

    void note(const std::string& line) {
        if (output_ == BuildOptions::Output::quiet) return;
        const std::lock_guard lock(mutex_);
        print_line(line);
    }
    void started(const Material& m) {
        const std::lock_guard lock(mutex_);
        current_[m.name()] = "";
    }
    void level(const Material& m, int level, int levels) {
        const std::lock_guard lock(mutex_);
        current_[m.name()] = fmt::format(" level {}/{}", level + 1, levels);
    }
    void positions(std::uint64_t n) { done_ += n; }
    void finished(const ManifestEntry& e) {
        if (output_ == BuildOptions::Output::quiet) return;
        const std::lock_guard lock(mutex_);
        current_.erase(e.material.name());
        ++finished_;
        const double rate = e.seconds > 0 ? static_cast<double>(e.positions) / e.seconds : 0;
        print_line(fmt::format("{:<10} {:>15} positions  wins {} draws {} losses {}  longest win {}  {:.2f} s  "
                               "{:.1f} M positions/s",
                               e.material.name(), with_commas(e.positions), with_commas(e.wins), with_commas(e.draws),
                               with_commas(e.losses), e.longest_win < 0 ? "-" : std::to_string(e.longest_win),
                               e.seconds, rate / 1e6));
    }

private:
    // Called with the mutex held.
    void print_line(const std::string& line) {
        if (output_ == BuildOptions::Output::terminal) std::fputs("\r\x1b[2K", stdout);
        std::fputs((line + "\n").c_str(), stdout);
        if (output_ == BuildOptions::Output::terminal) paint();
        std::fflush(stdout);
    }
    void paint() {
        const double elapsed = seconds_since(start_);
        const double rate = elapsed > 0 ? static_cast<double>(done_.load()) / elapsed : 0;
        std::string working;
        for (const auto& [name, level] : current_) working += (working.empty() ? "" : ", ") + name + level;
        const double left = rate > 0 ? static_cast<double>(total_ - std::min(total_, done_.load())) / rate : 0;
        std::fputs(fmt::format("[{}/{} materials] {}  {:.1f} M positions/s  {} left", finished_, materials_,
                               working.empty() ? "starting" : working, rate / 1e6,
                               rate > 0 ? duration_text(left) : "?")
                       .c_str(),
                   stdout);
    }
    void paint_loop() {
        std::unique_lock lock(mutex_);
        while (!wake_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stop_; })) {
            std::fputs("\r\x1b[2K", stdout);
            paint();
            std::fflush(stdout);
        }
    }

    BuildOptions::Output output_;
    std::size_t materials_;
    std::uint64_t total_;
    Clock::time_point start_;
    std::atomic<std::uint64_t> done_{0};
    std::size_t finished_ = 0;
    std::map<std::string, std::string> current_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::thread painter_;
};

// Test hook: DTB_TEST_KILL_AFTER_WRITE=MATERIAL kills the process with
// SIGKILL once that material's tables are written and before the manifest
// lists them, the moment a resumed build must not trust.
void maybe_kill_after_write(const Material& m) {
    const char* target = std::getenv("DTB_TEST_KILL_AFTER_WRITE");
    if (target && m.name() == target) std::raise(SIGKILL);
}

template <class V>
class Builder {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;

    explicit Builder(const BuildOptions& o) : o_(o), dir_(o.dir / std::string(V::name)) {}

    BuildReport run() {
        const Clock::time_point start = Clock::now();
        std::error_code error;
        std::filesystem::create_directories(dir_, error);
        if (error) throw std::runtime_error("cannot create " + dir_.string() + ": " + error.message());
        const DirectoryLock lock(dir_);
        for (const auto& entry : std::filesystem::directory_iterator(dir_))
            if (entry.path().extension() == ".tmp") std::filesystem::remove(entry.path());  // a killed build's
        manifest_ = Manifest::load(dir_ / Manifest::file_name, std::string(V::name));
        budget_ = o_.memory_bytes ? o_.memory_bytes : physical_memory() / 4 * 3;

        for (const Material& m : build_order(o_.targets)) {
            Node& node = nodes_[m];
            node.successors = successors(m);
            node.positions = static_cast<std::uint64_t>(sides_of(m)) * Index<N>(m).size();
            node.build = !finished(m);
            order_.push_back(m);
        }
        std::uint64_t to_build = 0;
        std::size_t building = 0;
        for (const Material& m : order_) {
            Node& node = nodes_[m];
            if (!node.build) continue;
            ++building;
            to_build += node.positions;
            for (const Material& s : node.successors) ++nodes_[s].uses;
            for (const Material& w : waits_for(m)) {
                nodes_[w].dependents.push_back(m);
                ++node.pending;
            }
        }
        Progress progress(o_.output, building, to_build);
        progress_ = &progress;
        for (const Material& m : order_)
            if (!nodes_[m].build) {
                progress.note(fmt::format("{:<10} already built (in the manifest, files intact)", m.name()));
                report_.materials.push_back({*manifest_.find(m), true});
            }
        {
            std::optional<tbb::global_control> threads;
            if (o_.threads > 0)
                threads.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(o_.threads));
            for (const Material& m : order_)
                if (nodes_[m].build && nodes_[m].pending == 0) group_.run([this, m] { solve(m); });
            group_.wait();
        }
        report_.seconds = seconds_since(start);
        report_.positions_built = to_build;
        report_.peak_memory_bytes = peak_resident_bytes();
        return std::move(report_);
    }

private:
    struct Node {
        std::vector<Material> successors;
        std::uint64_t positions = 0;
        bool build = false;
        int pending = 0;                  // materials still to build before this one can start
        std::vector<Material> dependents;  // those waiting for this one
        int uses = 0;                      // materials still to build that read this one
        std::shared_ptr<const SolvedValues> values;  // in memory while some use is left
        bool load_tried = false;
    };

    // Whether m's tables are in the manifest and their files hold.
    bool finished(const Material& m) {
        const ManifestEntry* e = manifest_.find(m);
        if (!e) return false;
        try {
            for (TableKind kind : {TableKind::wld, TableKind::dtw}) {
                const TableFile file =
                    TableFile::open(dir_ / table_file_name(m, kind), {std::string_view(V::name), m, kind});
                if (file.table_checksum() != (kind == TableKind::wld ? e->wld_checksum : e->dtw_checksum))
                    throw TableError(TableErrorKind::corrupted, file.path(), "not the table the manifest lists");
            }
            return true;
        } catch (const TableError& error) {
            fmt::print("{}: {}; building it again\n", m.name(), error.what());
            return false;
        }
    }

    // The materials to build before m: its successors, and through those
    // already built, theirs (their values are loaded from their files, which
    // needs the tables they lead to).
    std::set<Material> waits_for(const Material& m) {
        std::set<Material> result, seen;
        std::vector<Material> stack = nodes_[m].successors;
        while (!stack.empty()) {
            const Material s = stack.back();
            stack.pop_back();
            if (!seen.insert(s).second) continue;
            if (nodes_[s].build)
                result.insert(s);
            else
                stack.insert(stack.end(), nodes_[s].successors.begin(), nodes_[s].successors.end());
        }
        return result;
    }

    // The solved values of successor s in memory, or null: read it through the probe cache.
    std::shared_ptr<const SolvedValues> acquire(const Material& s) {
        std::unique_lock lock(mutex_);
        Node& node = nodes_[s];
        if (node.values || node.build || node.load_tried) return node.values;
        node.load_tried = true;
        const std::uint64_t bytes = SolvedValues::bytes_for(node.positions);
        if (memory_ + bytes > budget_) return nullptr;
        memory_ += bytes;
        lock.unlock();
        auto values = std::make_shared<const SolvedValues>(load(s));
        lock.lock();
        node.values = values;
        return values;
    }

    // A table built before, read back (table_loader.hpp).
    SolvedValues load(const Material& m) {
        const TableFile file = open_dtw_table<V>(dir_, m);
        return load_solved_values<V>(file, Prober<V>(o_.dir), 0, file.header().block_count());
    }

    void release(const Material& s) {
        const std::lock_guard lock(mutex_);
        Node& node = nodes_[s];
        if (--node.uses == 0 && node.values) {
            memory_ -= node.values->bytes();
            node.values.reset();
        }
    }

    void solve(const Material& m) {
        const Clock::time_point start = Clock::now();
        progress_->started(m);
        Node& node = nodes_[m];
        std::vector<std::shared_ptr<const SolvedValues>> in_memory;
        bool on_disk = false;
        for (const Material& s : node.successors) {
            if (auto values = acquire(s))
                in_memory.push_back(std::move(values));
            else
                on_disk = true;
        }
        std::optional<Prober<V>> prober;
        if (on_disk) prober.emplace(o_.dir);
        const Successors<V> successors(in_memory, prober ? &*prober : nullptr);
        SolveProgress hooks{[&](int level, int levels) { progress_->level(m, level, levels); },
                            [&](std::uint64_t n) { progress_->positions(n); }};
        auto values = std::make_shared<const SolvedValues>(MaterialSolver<V>(m, successors, hooks).solve());
        in_memory.clear();
        for (const Material& s : node.successors) release(s);

        TableSpec spec;
        spec.variant = std::string(V::name);
        spec.board_size = N;
        spec.material = m;
        spec.positions_per_side = values->positions_per_side;
        spec.block_shift = o_.block_shift;
        spec.wld_compression_level = o_.wld_compression_level;
        spec.dtw_compression_level = o_.dtw_compression_level;
        spec.provenance = make_provenance(o_.options);
        spec.max_code = values->max_code;
        const WrittenTables written = write_tables(dir_, spec, [&](std::uint64_t first, std::span<std::uint32_t> out) {
            for (std::size_t i = 0; i < out.size(); ++i)
                out[i] = values->has_capture(first + i) ? dont_care : values->codes[first + i];
        });
        maybe_kill_after_write(m);

        ManifestEntry entry = statistics(*values);
        entry.wld_bytes = written.wld_bytes;
        entry.dtw_bytes = written.dtw_bytes;
        entry.wld_checksum = written.wld_checksum;
        entry.dtw_checksum = written.dtw_checksum;
        entry.seconds = seconds_since(start);
        std::vector<Material> ready;
        {
            const std::lock_guard lock(mutex_);
            manifest_.put(entry);
            manifest_.save(dir_ / Manifest::file_name);
            report_.materials.push_back({entry, false});
            if (node.uses > 0 && memory_ + values->bytes() <= budget_) {
                memory_ += values->bytes();
                node.values = values;
            }
            for (const Material& d : node.dependents)
                if (--nodes_[d].pending == 0) ready.push_back(d);
        }
        progress_->finished(entry);
        for (const Material& d : ready) group_.run([this, d] { solve(d); });
    }

    static ManifestEntry statistics(const SolvedValues& v) {
        struct Counts {
            std::uint64_t wins = 0, draws = 0, losses = 0;
            int longest = -1;
        };
        const Counts c = tbb::parallel_reduce(
            tbb::blocked_range<std::size_t>(0, v.codes.size()), Counts{},
            [&](const tbb::blocked_range<std::size_t>& r, Counts c) {
                for (std::size_t g = r.begin(); g != r.end(); ++g) {
                    const Value value = value_of_dtw_code(v.codes[g]);
                    if (value.wdl == Wdl::win) {
                        ++c.wins;
                        c.longest = std::max(c.longest, value.plies);
                    } else if (value.wdl == Wdl::loss) {
                        ++c.losses;
                    } else {
                        ++c.draws;
                    }
                }
                return c;
            },
            [](Counts a, const Counts& b) {
                return Counts{a.wins + b.wins, a.draws + b.draws, a.losses + b.losses, std::max(a.longest, b.longest)};
            });
        ManifestEntry e;
        e.material = v.material;
        e.positions = v.codes.size();
        e.wins = c.wins;
        e.draws = c.draws;
        e.losses = c.losses;
        e.longest_win = c.longest;
        return e;
    }

    const BuildOptions& o_;
    std::filesystem::path dir_;
    Manifest manifest_;
    std::uint64_t budget_ = 0;
    std::uint64_t memory_ = 0;  // solved values kept in memory
    std::map<Material, Node> nodes_;
    std::vector<Material> order_;
    std::mutex mutex_;
    tbb::task_group group_;
    Progress* progress_ = nullptr;
    BuildReport report_;
};

}  // namespace

std::vector<Material> materials_up_to(int pieces) {
    std::vector<Material> result;
    for (int n = 2; n <= pieces; ++n) {
        const auto some = canonical_materials(n);
        result.insert(result.end(), some.begin(), some.end());
    }
    return result;
}

BuildReport build_tables(const BuildOptions& options) {
    if (options.targets.empty()) throw std::invalid_argument("nothing to build: give --pieces N or --material M");
    return draughts::with_variant(
        options.variant, [&]<class V>() { return Builder<V>(options).run(); }, true);
}

}  // namespace dtb
