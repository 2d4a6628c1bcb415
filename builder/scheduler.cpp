#include "builder/scheduler.hpp"

#include <algorithm>
#include <stdexcept>

namespace dtb {

Scheduler::Scheduler(std::vector<Unit> units, std::vector<int> slots, std::uint64_t team_positions, bool largest_teams)
    : units_(std::move(units)),
      dependents_(units_.size()),
      pending_(units_.size()),
      max_team_(units_.size()),
      team_size_(units_.size(), 0),
      priority_(units_.size(), 0),
      solved_by_(units_.size(), -1),
      running_on_(slots.size(), 0),
      in_team_(slots.size(), false),
      slots_(std::move(slots)),
      largest_teams_(largest_teams) {
    const int n = static_cast<int>(units_.size());
    const int ranks = static_cast<int>(slots_.size());
    for (int& s : slots_) s = std::max(1, s);
    for (int u = 0; u < n; ++u) {
        const std::uint64_t k = (units_[u].positions + team_positions - 1) / std::max<std::uint64_t>(1, team_positions);
        max_team_[u] = static_cast<int>(std::clamp<std::uint64_t>(k, 1, static_cast<std::uint64_t>(ranks)));
        pending_[u] = static_cast<int>(units_[u].waits_for.size());
        for (int w : units_[u].waits_for) {
            if (w >= u) throw std::logic_error("the units are not in dependency order");
            dependents_[w].push_back(u);
        }
    }
    // Priority: the work on the longest path from a unit to the end, each
    // unit's work counted as its positions over its team's ranks.
    for (int u = n - 1; u >= 0; --u) {
        double after = 0;
        for (int d : dependents_[u]) after = std::max(after, priority_[d]);
        priority_[u] = static_cast<double>(units_[u].positions) / max_team_[u] + after;
    }
    for (int u = 0; u < n; ++u)
        if (pending_[u] == 0) ready_.push_back(u);
}

std::vector<Scheduler::Assignment> Scheduler::assign() {
    std::vector<Assignment> out;
    std::stable_sort(ready_.begin(), ready_.end(), [&](int a, int b) { return priority_[a] > priority_[b]; });
    const int ranks = static_cast<int>(running_on_.size());
    double ready = 0;
    for (int u : ready_) ready += static_cast<double>(units_[u].positions);
    const double active = running_positions_ + ready;
    const int free = static_cast<int>(idle_ranks().size());
    std::size_t taken = 0;
    for (; taken < ready_.size(); ++taken) {
        const int u = ready_[taken];
        // Its share of all ranks by the work ready or running, or, if more,
        // its share of the ranks free now by the work ready: ranks that
        // nothing else ready could use join the teams (a team keeps its
        // ranks to the end of its material, so ranks left out of it may
        // find nothing to do while it runs).
        const auto positions = static_cast<double>(units_[u].positions);
        const double share = std::max(ranks * positions / std::max(1.0, active), free * positions / std::max(1.0, ready));
        team_size_[u] = largest_teams_ ? max_team_[u] : std::clamp(static_cast<int>(share + 0.5), 1, max_team_[u]);
        if (team_size_[u] == 1) {
            // The rank that solved the most of what u reads, then the one with
            // the most free slots (the lowest number among equals).
            std::vector<double> held(ranks, 0);
            for (int w : units_[u].waits_for)
                if (solved_by_[w] >= 0) held[solved_by_[w]] += static_cast<double>(units_[w].positions);
            int best = -1;
            for (int r = 0; r < ranks; ++r) {
                if (in_team_[r] || running_on_[r] >= slots_[r]) continue;
                if (best < 0 || held[r] > held[best] ||
                    (held[r] == held[best] && slots_[r] - running_on_[r] > slots_[best] - running_on_[best]))
                    best = r;
            }
            if (best < 0) break;
            ++running_on_[best];
            out.push_back({u, {best}});
        } else {
            std::vector<int> team;
            for (int r = 0; r < ranks && static_cast<int>(team.size()) < team_size_[u]; ++r)
                if (idle(r)) team.push_back(r);
            if (static_cast<int>(team.size()) < team_size_[u]) break;  // the ranks it waits for drain first
            for (int r : team) in_team_[r] = true;
            out.push_back({u, std::move(team)});
        }
        ++running_;
        running_positions_ += static_cast<double>(units_[u].positions);
    }
    ready_.erase(ready_.begin(), ready_.begin() + static_cast<std::ptrdiff_t>(taken));
    return out;
}

void Scheduler::released(int unit, int rank) {
    if (team_size_[unit] == 1) {
        --running_on_[rank];
        solved_by_[unit] = rank;
    } else {
        in_team_[rank] = false;
    }
}

void Scheduler::finished(int unit) {
    ++finished_;
    --running_;
    running_positions_ -= static_cast<double>(units_[unit].positions);
    for (int d : dependents_[unit])
        if (--pending_[d] == 0) ready_.push_back(d);
}

bool Scheduler::stuck() const noexcept {
    if (all_finished() || running_ > 0 || !ready_.empty()) return false;
    for (int r = 0; r < static_cast<int>(running_on_.size()); ++r)
        if (!idle(r)) return false;
    return true;
}

}  // namespace dtb
