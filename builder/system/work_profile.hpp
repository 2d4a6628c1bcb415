// Where the threads of a one-process build spend their time, for the thread
// scaling account (docs/scaling.md, "Threads on one node"): with
// `dtb build --profile FILE`, every parallel step of solving and writing a
// material records its work (the time its pieces ran, summed over threads),
// its longest piece per unit (a unit: the smallest piece the step can be cut
// into; the step cannot end sooner than its slowest unit, whatever the
// threads), its units, and the time its material spent on one thread before
// it (serial: set-up of pairs and levels, the file writes). bench/studies/thread_model
// reads the file and gives each material's work and span, and what the
// parallel structure alone allows on any number of threads.
//
// The profile also samples the process's memory every quarter second
// beside what the build counts as held (HeldCount): what lies beyond the
// count, and when (docs/design.md, Solver, "Memory").
//
// Off (the default), a step costs one test of a flag; a piece, the same.
// Steps record only on a thread inside a material's Scope: the team's
// solver, which shares the parallel code, records nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace dtb::work_profile {

enum class Kind : std::uint8_t {
    list_pairs,   // a level's big pairs listed (a unit a slice of 4,096 men configurations)
    pairs,        // the small pairs of a level, a unit a slice of them (about 2^17 positions), one thread each
    set_up,       // a big pair's positions set up (units of 1024)
    bucket,       // one distance of a big pair's bucket queue (units of 1024 entries)
    finish,       // a big pair's codes moved to the table's order (a unit a tile)
    big_pairs,    // the big pairs of a level, each on one thread, a unit a pair
    shared_pairs, // big pairs each with threads inside, side by side, a unit a pair (its own steps inside)
    count,        // the wins, draws and losses counted for the manifest
    compress,     // table blocks compressed (a unit a block)
    pack,         // a kept table packed or unpacked (a unit a frame)
    read_back,    // a table read back from its file (a unit a block)
    rule_pairs,   // the rule solver's pairs of a level, one thread each (a unit a slice of small pairs, or a big pair)
    rule_set_up,  // a big pair of the rule solver set up
    rule_bucket,  // one distance of the rule solver's big pair
};
inline constexpr int kinds = 14;
const char* name(Kind kind) noexcept;

using Clock = std::chrono::steady_clock;

namespace detail {
extern std::atomic<bool> on;
}
inline bool enabled() noexcept { return detail::on.load(std::memory_order_relaxed); }
// Turns recording on, for write() to `file` at the end; called before the
// build starts its threads. Throws std::runtime_error if the file cannot be
// written (checked now, not after the build).
void enable(const std::filesystem::path& file);

struct StepRecord {
    Kind kind;
    std::int16_t level;
    std::uint64_t units;
    std::uint64_t pieces;
    std::int64_t work_ns, longest_unit_ns, serial_before_ns, wall_ns;
    std::uint64_t inner_steps;  // steps its units ran inside them (Unit)
};

class Unit;

// The material whose steps the threads it runs on record, while it lives
// (on the thread that drives the material: its solve and its writes). A
// Scope inside another (oneTBB may run a material's whole task inside
// another's wait) takes over and hands back.
class Scope {
public:
    Scope(std::string material, std::uint64_t positions, std::vector<std::string> waits_for);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

    // The level the next steps belong to (-1: writing the tables).
    static void set_level(int level) noexcept;
    static Scope* current() noexcept;

private:
    friend class Step;
    friend class Unit;
    bool active_;
    std::string material_;
    std::uint64_t positions_;
    std::vector<std::string> waits_for_;
    Clock::time_point start_, last_end_;
    int level_ = 0;
    std::vector<StepRecord> steps_;
    Scope* outer_;
};

// One parallel step of the material in scope on this thread. Its task
// bodies time themselves with piece(units in the piece).
class Step {
public:
    Step(Kind kind, std::uint64_t units) noexcept;
    ~Step();
    Step(const Step&) = delete;
    Step& operator=(const Step&) = delete;

    class Piece {
    public:
        Piece(Step* step, std::uint64_t units) noexcept
            : step_(step), units_(units ? units : 1), start_(step ? Clock::now() : Clock::time_point{}) {}
        ~Piece() {
            if (step_) step_->add(Clock::now() - start_, units_);
        }
        Piece(const Piece&) = delete;
        Piece& operator=(const Piece&) = delete;

    private:
        Step* step_;
        std::uint64_t units_;
        Clock::time_point start_;
    };
    Piece piece(std::uint64_t units = 1) noexcept { return Piece(recording() ? this : nullptr, units); }

private:
    friend class Unit;
    bool recording() const noexcept { return scope_ || unit_; }
    void add(Clock::duration d, std::uint64_t units) noexcept;
    // One unit that ran steps of its own: its work and its span.
    void add_unit(std::int64_t work_ns, std::int64_t span_ns, std::uint64_t inner_steps) noexcept;

    Scope* scope_ = nullptr;
    Unit* unit_ = nullptr;  // a step inside a unit of another step: it adds up there
    Kind kind_;
    std::uint64_t units_;
    Clock::time_point start_;
    std::int64_t serial_before_ns_ = 0;
    std::atomic<std::uint64_t> pieces_{0}, inner_steps_{0};
    std::atomic<std::int64_t> work_ns_{0}, longest_unit_ns_{0};
};

// One unit of a step that runs steps of its own (a big pair solved with
// threads inside it, beside other such pairs), on the thread that runs it:
// while it lives, the steps this thread starts add up into it, and at its
// end it counts as one unit of `outer`, its work theirs and the time on
// this thread between them, its span their longest units and that time.
class Unit {
public:
    explicit Unit(Step& outer) noexcept;
    ~Unit();
    Unit(const Unit&) = delete;
    Unit& operator=(const Unit&) = delete;

private:
    friend class Step;
    Step* outer_;  // null: the outer step records nothing
    Unit* enclosing_ = nullptr;
    Clock::time_point last_end_;
    std::int64_t work_ns_ = 0, span_ns_ = 0;
    std::uint64_t steps_ = 0;
};

// While it lives and the profile records, the process's memory
// (memory_now()) is sampled every quarter second on a thread of its own,
// with `held` (what the build counts as held: its kept values and the
// working sets of the jobs in work), called on that thread.
class HeldCount {
public:
    explicit HeldCount(std::function<std::uint64_t()> held);
    ~HeldCount();
    HeldCount(const HeldCount&) = delete;
    HeldCount& operator=(const HeldCount&) = delete;

private:
    std::function<std::uint64_t()> held_;
    std::jthread sampler_;
};

// Writes what the scopes recorded and the memory sampled, with the process's processor time, the
// build's wall time, its threads and `build` (its options), as JSON
// (bench/studies/thread_model reads it).
void write(double wall_seconds, int threads, const std::string& build);

}  // namespace dtb::work_profile
