// Rank 0's part of a distributed build (docs/design.md, "Distributed
// build"): the coordinator. It holds the plan (its lock, the manifest), hands
// the plan's jobs to the ranks' workers (worker.hpp) as the scheduler
// decides (builder/driver/scheduler.hpp), records what they report in the
// manifest and prints the lines; it solves nothing. It runs on a thread of
// its own beside rank 0's worker and talks to the workers only through the
// messages of messages.hpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "builder/driver/build_options.hpp"
#include "builder/driver/build_plan.hpp"
#include "builder/driver/progress.hpp"
#include "builder/mpi/session.hpp"

namespace dtb::mpi {

class Coordinator {
public:
    // Prints what the plan found (tables built again, tables and rule tables
    // already built, rule tables refused) and opens the progress display.
    Coordinator(const BuildOptions& o, const Session& session, std::unique_ptr<BuildPlan> plan, int threads);

    // The bytes a job holds while one rank of `budget` bytes runs it alone
    // (its working set, the variant's to work out).
    using WorkingBytes = std::function<std::uint64_t(const BuildJob& job, std::uint64_t budget)>;

    // Hands out the jobs to ranks of `slots` one-rank jobs each and `memory`
    // bytes each (by rank) until every job is done, then tells every rank
    // that nothing is left: a job goes to one rank where its working set
    // fits, to a team whose members' shares fit where it does not.
    // Ends the job (fail()) if anything goes wrong.
    void run(const std::vector<int>& slots, const std::vector<std::uint64_t>& memory, const WorkingBytes& working_bytes);

    // After run(): what was built (the ranks' reports are the caller's to add).
    BuildReport finish();

private:
    const BuildOptions& o_;
    const Session& session_;
    std::unique_ptr<BuildPlan> plan_;
    std::unique_ptr<Progress> progress_;
    BuildReport report_;
};

}  // namespace dtb::mpi
