// The coordinator of a build (docs/design.md, "Distributed build"): it holds
// the plan (its lock, the manifest), hands the plan's jobs to the workers
// as the scheduler decides (scheduler.hpp), records what they report in the
// manifest and prints the lines; it solves nothing. The same coordinator
// runs the one-process build, whose one worker is in the process
// (build_of.hpp), and a distributed build, on a thread of rank 0 beside
// its worker, whose workers are the ranks (builder/mpi/). It reaches its
// workers only through Workers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "builder/driver/assignment.hpp"
#include "builder/driver/build_options.hpp"
#include "builder/driver/build_plan.hpp"
#include "builder/driver/progress.hpp"
#include "builder/driver/scheduler.hpp"

namespace dtb {

// How the coordinator reaches its workers: in this process, or on ranks.
class Workers {
public:
    virtual ~Workers() = default;
    // Gives worker w its part of a job.
    virtual void assign(int w, Assignment a) = 0;
    // A worker's part of a job done, and which worker; or none if none came
    // for a while (the coordinator then asks the scheduler again).
    virtual std::optional<std::pair<int, Done>> done() = 0;
    // No job left reads material m's values of `kind`: every worker may let
    // them go (now, or with its next assignment).
    virtual void unread(const Material& m, TableKind kind) = 0;
    // Nothing is left: every worker stops once its jobs are done.
    virtual void finish() = 0;
};

class Coordinator {
public:
    // Prints what the plan found (tables built again, tables and rule tables
    // already built, rule tables refused) and opens the progress display,
    // in `output`'s way.
    Coordinator(const BuildOptions& o, std::unique_ptr<BuildPlan> plan, BuildOptions::Output output);

    BuildPlan& plan() noexcept { return *plan_; }
    Progress& progress() noexcept { return *progress_; }

    // The bytes a job holds while one worker of `budget` bytes runs it alone
    // (its working set, the variant's to work out).
    using WorkingBytes = std::function<std::uint64_t(const BuildJob& job, std::uint64_t budget)>;

    // Hands out the jobs to `workers` of `slots` one-worker jobs each and
    // `memory` (Scheduler::Memory) until every job is done, then tells them
    // that nothing is left: a job goes to one worker where its working set
    // fits, to a team whose members' shares fit where it does not. With
    // `live`, the workers count the positions solved as they go (one
    // process); else a material's are counted when it is done. Throws if
    // anything goes wrong (the caller then ends the workers).
    void run(Workers& workers, const std::vector<int>& slots, Scheduler::Memory memory,
             const WorkingBytes& working_bytes, bool live);

    // After run(): what was built (the workers' counts are the caller's to add).
    BuildReport finish();

private:
    const BuildOptions& o_;
    std::unique_ptr<BuildPlan> plan_;
    std::unique_ptr<Progress> progress_;
    BuildReport report_;
};

}  // namespace dtb
