#include "builder/driver/coordinator.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/core.h>

#include "builder/driver/material_job.hpp"
#include "builder/driver/packed_forms.hpp"
#include "builder/driver/rule_job.hpp"

namespace dtb {

Coordinator::Coordinator(const BuildOptions& o, std::unique_ptr<BuildPlan> plan, BuildOptions::Output output)
    : o_(o), plan_(std::move(plan)) {
    for (const std::string& note : plan_->notes()) fmt::print("{}\n", note);
    std::uint64_t to_build = 0;
    std::size_t building = 0;
    for (const BuildJob& job : plan_->jobs())
        if (job.kind == BuildJob::Kind::plain) {
            ++building;
            to_build += job.positions;
        }
    report_.positions_built = to_build;
    progress_ = std::make_unique<Progress>(output, building, to_build);
    for (const PlannedMaterial& p : plan_->materials())
        if (!p.build) {
            progress_->note(fmt::format("{:<10} already built (in the manifest, files intact)", p.material.name()));
            report_.materials.push_back({*plan_->manifest().find(p.material), true});
        }
    report_.rules = planned_rule_report(o_, *plan_, [&](const std::string& line) { progress_->note(line); });
}

void Coordinator::run(Workers& workers, const std::vector<int>& slots, Scheduler::Memory memory,
                      const WorkingBytes& working_bytes, bool live) {
    // A unit a job of the plan: its plain tables or its .rul (one rank).
    const std::vector<BuildJob>& jobs = plan_->jobs();
    std::vector<Scheduler::Unit> units;
    // The jobs still to finish that read each material's values of each
    // kind: a job solved alone whose values some are to read writes
    // their packed form (packed_forms.hpp), removed once the last has
    // read them. The plan removed those no job will read.
    std::map<std::pair<Material, TableKind>, int> reads_left;
    const auto kind_of = [](const BuildJob& job) {
        return job.kind == BuildJob::Kind::rule ? TableKind::rul : TableKind::dtw;
    };
    const std::uint64_t least = memory.ranks.empty() ? std::numeric_limits<std::uint64_t>::max()
                                                     : *std::min_element(memory.ranks.begin(), memory.ranks.end());
    for (const BuildJob& job : jobs) {
        const bool rule = job.kind == BuildJob::Kind::rule;
        units.push_back({job.positions, job.waits_for, job.reads, rule, working_bytes(job, least),
                         rule ? 0.0 : team_member_bytes});
        for (const Material& s : plan_->at(job.material).successors) ++reads_left[{s, kind_of(job)}];
    }
    // DTB_TEST_LARGEST_TEAMS: every material on its largest team, to measure what teams cost.
    const bool largest_teams = std::getenv("DTB_TEST_LARGEST_TEAMS") != nullptr;
    Scheduler scheduler(std::move(units), slots, o_.team_positions, largest_teams, std::move(memory));
    // Jobs whose working set exceeds the smallest rank's memory even on
    // their largest team: said once, with the largest of them.
    int over = 0, largest = -1;
    const auto need = [&](int u) { return scheduler.member_bytes(u, scheduler.max_team_size(u)); };
    for (int u = 0; u < static_cast<int>(jobs.size()); ++u)
        if (scheduler.over_memory(u)) {
            ++over;
            if (largest < 0 || need(u) > need(largest)) largest = u;
        }
    if (over > 0) {
        const int k = scheduler.max_team_size(largest);
        const std::string need_text = fmt::format("{:.3f} GiB a rank {}", static_cast<double>(need(largest)) / (1 << 30),
                                                  k == 1 ? "alone" : fmt::format("on a team of {}", k));
        progress_->note(fmt::format(
            "{}, more than the smallest rank's {:.3f} GiB (--memory): {} over the budget; give the ranks more "
            "memory{}",
            over == 1 ? fmt::format("{} needs {}", jobs[largest].name(), need_text)
                      : fmt::format("{} jobs need more, {} the most: {}", over, jobs[largest].name(), need_text),
            static_cast<double>(least) / (1 << 30), over == 1 ? "it runs" : "they run",
            k == 1 ? "" : ", or more ranks"));
    }
    // The scheduler's clock: what finished materials took tells it
    // how long running ones will, to fill the ranks a team waits for.
    const Clock::time_point began = Clock::now();
    std::vector<Clock::time_point> started(jobs.size());
    std::vector<std::vector<int>> team_of(jobs.size());
    std::map<Material, int> solved_alone_by;            // which rank keeps which table it solved
    std::map<Material, std::vector<int>> solved_by_team;  // and which ranks keep their ranges of which
    int team_id = 0;
    std::size_t outstanding = 0;  // ranks given a part that have not said it is done
    // The scheduler is asked again when a rank has reported, else once
    // a second (its estimates move with the time alone): on many
    // ranks a call weighs every ready material against every rank.
    bool reported = true;
    double asked_at = 0;
    while (!scheduler.all_finished() || outstanding > 0) {
        std::vector<Scheduler::Assignment> assignments;
        if (const double now = seconds_since(began); reported || now - asked_at >= 1) {
            reported = false;
            asked_at = now;
            assignments = scheduler.assign(now);
        }
        for (const Scheduler::Assignment& a : assignments) {
            const BuildJob& job = jobs[a.unit];
            outstanding += a.team.size();
            team_of[a.unit] = a.team;
            started[a.unit] = Clock::now();
            progress_->started(job.name());
            Assignment out;
            out.unit = a.unit;
            out.material = job.material;
            out.rules = job.kind == BuildJob::Kind::rule;
            out.pack = reads_left[{job.material, kind_of(job)}] > 0;
            out.team = a.team;
            out.team_id = ++team_id % 32000 + 1;
            for (const Material& s : plan_->at(job.material).successors) {
                if (const auto it = solved_alone_by.find(s); it != solved_alone_by.end())
                    out.holders.whole[s] = it->second;
                if (const auto it = solved_by_team.find(s); it != solved_by_team.end())
                    out.holders.shares[s] = it->second;
            }
            for (int r : a.team) workers.assign(r, out);
        }
        if (scheduler.stuck()) throw std::logic_error("the build cannot go on: nothing runs or can start");
        const auto message = workers.done();
        if (!message) continue;
        reported = true;
        const Done& done = message->second;
        const int unit = done.unit;
        scheduler.released(unit, message->first);
        --outstanding;
        if (!done.entry) continue;
        ManifestEntry entry = *done.entry;
        // Once the job is in the manifest, the packed forms it was the
        // last to read go (a build killed before that solves it again),
        // and every rank lets go of the values it keeps of them.
        const auto read_all = [&] {
            const TableKind kind = kind_of(jobs[unit]);
            for (const Material& s : plan_->at(entry.material).successors) {
                if (--reads_left[{s, kind}] != 0) continue;
                remove_packed(plan_->variant_dir(), s, kind);
                workers.unread(s, kind);
            }
        };
        if (jobs[unit].kind == BuildJob::Kind::rule) {
            progress_->finished(jobs[unit].name(), record_rule_table(*plan_, entry.material, jobs[unit].positions,
                                                                     *entry.rules, *report_.rules));
            read_all();
            scheduler.finished(unit, seconds_since(began));
            continue;
        }
        entry.seconds = seconds_since(started[unit]);
        if (scheduler.team_size(unit) == 1)
            solved_alone_by[entry.material] = message->first;
        else
            solved_by_team[entry.material] = team_of[unit];
        plan_->manifest().put(entry);
        plan_->manifest().save(plan_->variant_dir() / Manifest::file_name);
        read_all();
        report_.materials.push_back({entry, false});
        if (!live) progress_->positions(entry.positions);
        progress_->finished(entry, scheduler.team_size(unit));
        scheduler.finished(unit, seconds_since(began));
    }
    workers.finish();
    keep_packed(plan_->variant_dir(), {});  // every job that read them is done
}

BuildReport Coordinator::finish() {
    progress_.reset();
    return std::move(report_);
}


}  // namespace dtb
