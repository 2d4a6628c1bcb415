#include "builder/system/work_profile.hpp"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "builder/system/process.hpp"

namespace dtb::work_profile {

namespace detail {
std::atomic<bool> on{false};
}

namespace {

thread_local Scope* current_scope = nullptr;
thread_local Unit* current_unit = nullptr;

struct MaterialRecord {
    std::string material;
    std::uint64_t positions;
    std::vector<std::string> waits_for;
    std::int64_t start_ns, wall_ns, serial_after_ns;
    std::vector<StepRecord> steps;
};

std::mutex records_mutex;
std::vector<MaterialRecord> records;
// Each sample: seconds since the build started, and the bytes held by the
// count, resident anonymous and of files, allocated in glibc's heaps and
// free there (memory_fields).
struct MemorySample {
    double seconds;
    std::array<std::uint64_t, 5> bytes;
};
std::vector<MemorySample> memory_samples;
constexpr std::array memory_fields{"seconds",      "held",           "resident_anonymous",
                                   "resident_file", "heap_allocated", "heap_free"};
Clock::time_point build_start;
std::filesystem::path profile_file;

std::int64_t ns(Clock::duration d) { return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(); }

}  // namespace

const char* name(Kind kind) noexcept {
    static constexpr const char* names[kinds] = {
        "list_pairs", "pairs", "set_up", "bucket", "finish", "big_pairs", "shared_pairs", "count", "compress", "pack",
        "read_back", "rule_pairs", "rule_set_up", "rule_bucket"};
    return names[static_cast<int>(kind)];
}

void enable(const std::filesystem::path& file) {
    if (!std::ofstream(file))
        throw std::runtime_error(file.string() + ": cannot write the profile there; give --profile a file in a "
                                 "folder that exists and can be written");
    profile_file = file;
    build_start = Clock::now();
    detail::on.store(true);
}

Scope::Scope(std::string material, std::uint64_t positions, std::vector<std::string> waits_for)
    : active_(enabled()), outer_(current_scope) {
    if (!active_) return;
    material_ = std::move(material);
    positions_ = positions;
    waits_for_ = std::move(waits_for);
    start_ = last_end_ = Clock::now();
    current_scope = this;
}

Scope::~Scope() {
    if (!active_) return;
    current_scope = outer_;
    const Clock::time_point end = Clock::now();
    MaterialRecord r{std::move(material_), positions_, std::move(waits_for_), ns(start_ - build_start),
                     ns(end - start_), ns(end - last_end_), std::move(steps_)};
    const std::lock_guard lock(records_mutex);
    records.push_back(std::move(r));
}

void Scope::set_level(int level) noexcept {
    if (current_scope) current_scope->level_ = level;
}

Scope* Scope::current() noexcept { return current_scope; }

Step::Step(Kind kind, std::uint64_t units) noexcept : kind_(kind), units_(units ? units : 1) {
    if (!enabled()) return;
    if (current_unit && current_unit->outer_)
        unit_ = current_unit;
    else if (!current_unit)
        scope_ = current_scope;
    if (!recording()) return;
    start_ = Clock::now();
    serial_before_ns_ = ns(start_ - (unit_ ? unit_->last_end_ : scope_->last_end_));
}

Step::~Step() {
    if (!recording()) return;
    const Clock::time_point end = Clock::now();
    if (unit_) {
        unit_->last_end_ = end;
        unit_->work_ns_ += serial_before_ns_ + work_ns_.load();
        unit_->span_ns_ += serial_before_ns_ + longest_unit_ns_.load();
        unit_->steps_ += 1 + inner_steps_.load();
        return;
    }
    scope_->last_end_ = end;
    try {
        scope_->steps_.push_back({kind_, static_cast<std::int16_t>(scope_->level_), units_, pieces_.load(),
                                  work_ns_.load(), longest_unit_ns_.load(), serial_before_ns_, ns(end - start_),
                                  inner_steps_.load()});
    } catch (...) {  // a profile short of memory loses a step, never the build
    }
}

void Step::add_unit(std::int64_t work_ns, std::int64_t span_ns, std::uint64_t inner_steps) noexcept {
    pieces_.fetch_add(1, std::memory_order_relaxed);
    inner_steps_.fetch_add(inner_steps, std::memory_order_relaxed);
    work_ns_.fetch_add(work_ns, std::memory_order_relaxed);
    std::int64_t seen = longest_unit_ns_.load(std::memory_order_relaxed);
    while (span_ns > seen && !longest_unit_ns_.compare_exchange_weak(seen, span_ns, std::memory_order_relaxed)) {
    }
}

Unit::Unit(Step& outer) noexcept : outer_(outer.recording() ? &outer : nullptr), enclosing_(current_unit) {
    current_unit = this;
    if (outer_) last_end_ = Clock::now();
}

Unit::~Unit() {
    current_unit = enclosing_;
    if (!outer_) return;
    const std::int64_t serial = ns(Clock::now() - last_end_);
    outer_->add_unit(work_ns_ + serial, span_ns_ + serial, steps_);
}

void Step::add(Clock::duration d, std::uint64_t units) noexcept {
    const std::int64_t t = ns(d), per_unit = t / static_cast<std::int64_t>(units);
    pieces_.fetch_add(1, std::memory_order_relaxed);
    work_ns_.fetch_add(t, std::memory_order_relaxed);
    std::int64_t seen = longest_unit_ns_.load(std::memory_order_relaxed);
    while (per_unit > seen && !longest_unit_ns_.compare_exchange_weak(seen, per_unit, std::memory_order_relaxed)) {
    }
}

HeldCount::HeldCount(std::function<std::uint64_t()> held) : held_(std::move(held)) {
    if (!enabled()) return;
    sampler_ = std::jthread([this](std::stop_token stop) {
        std::mutex mutex;
        std::condition_variable_any wake;
        for (std::unique_lock lock(mutex); !stop.stop_requested();
             wake.wait_for(lock, stop, std::chrono::milliseconds(250), [] { return false; })) {
            const double seconds = std::chrono::duration<double>(Clock::now() - build_start).count();
            const std::uint64_t counted = held_();
            const MemoryNow now = memory_now();
            const std::lock_guard records_lock(records_mutex);
            memory_samples.push_back(
                {seconds, {counted, now.resident_anonymous, now.resident_file, now.heap_allocated, now.heap_free}});
        }
    });
}

HeldCount::~HeldCount() = default;  // the jthread asks its sampler to stop and joins it

void write(double wall_seconds, int threads, const std::string& build) {
    const std::filesystem::path& file = profile_file;
    nlohmann::json j;
    j["build"] = build;
    j["cores"] = std::thread::hardware_concurrency();
    j["wall_seconds"] = wall_seconds;
    j["processor_seconds"] = cpu_seconds();
    j["threads"] = threads;
    j["step_fields"] = {"kind",           "level",           "units",   "pieces",     "work_ns",
                        "longest_unit_ns", "serial_before_ns", "wall_ns", "inner_steps"};
    nlohmann::json& materials = j["materials"];
    materials = nlohmann::json::array();
    const std::lock_guard lock(records_mutex);
    for (const MaterialRecord& r : records) {
        nlohmann::json steps = nlohmann::json::array();
        for (const StepRecord& s : r.steps)
            steps.push_back({name(s.kind), s.level, s.units, s.pieces, s.work_ns, s.longest_unit_ns,
                             s.serial_before_ns, s.wall_ns, s.inner_steps});
        materials.push_back({{"material", r.material},
                             {"positions", r.positions},
                             {"waits_for", r.waits_for},
                             {"start_ns", r.start_ns},
                             {"wall_ns", r.wall_ns},
                             {"serial_after_ns", r.serial_after_ns},
                             {"steps", std::move(steps)}});
    }
    j["memory_fields"] = memory_fields;
    nlohmann::json& memory = j["memory"];
    memory = nlohmann::json::array();
    for (const MemorySample& m : memory_samples) {
        nlohmann::json sample = nlohmann::json::array({m.seconds});
        for (const std::uint64_t b : m.bytes) sample.push_back(b);
        memory.push_back(std::move(sample));
    }
    std::ofstream out(file);
    out << j.dump() << '\n';
    if (!out.flush())
        throw std::runtime_error(file.string() + ": the profile could not be written; check that its folder exists "
                                 "and has room");
}

}  // namespace dtb::work_profile
