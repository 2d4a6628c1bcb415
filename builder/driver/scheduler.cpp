#include "builder/driver/scheduler.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace dtb {

Scheduler::Scheduler(std::vector<Unit> units, std::vector<int> slots, std::uint64_t team_positions, bool largest_teams,
                     Memory memory)
    : units_(std::move(units)),
      dependents_(units_.size()),
      pending_(units_.size()),
      min_team_(units_.size(), 1),
      max_team_(units_.size()),
      team_size_(units_.size(), 0),
      priority_(units_.size(), 0),
      after_(units_.size(), 0),
      solved_by_(units_.size(), -1),
      started_at_(units_.size(), -1),
      running_on_(slots.size(), 0),
      in_team_(slots.size(), false),
      on_rank_(slots.size()),
      slots_(std::move(slots)),
      memory_(std::move(memory)),
      held_(slots_.size(), 0),
      largest_teams_(largest_teams) {
    const int n = static_cast<int>(units_.size());
    const int ranks = static_cast<int>(slots_.size());
    for (int& s : slots_) s = std::max(1, s);
    if (!memory_.ranks.empty() && memory_.ranks.size() != slots_.size())
        throw std::logic_error("the scheduler needs the memory of every rank");
    for (int u = 0; u < n; ++u) {
        const std::uint64_t k = (units_[u].positions + team_positions - 1) / std::max<std::uint64_t>(1, team_positions);
        // The fewest members whose shares fit the smallest rank (its memory
        // may be the one a team gets), however small their shares.
        if (!units_[u].alone)
            while (min_team_[u] < ranks && member_bytes(u, min_team_[u]) > least_memory())
                ++min_team_[u];
        max_team_[u] = units_[u].alone ? 1 : static_cast<int>(std::clamp<std::uint64_t>(k, 1, static_cast<std::uint64_t>(ranks)));
        max_team_[u] = std::max(max_team_[u], min_team_[u]);
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
        after_[u] = after;
        priority_[u] = static_cast<double>(units_[u].positions) / max_team_[u] + after;
    }
    for (int u = 0; u < n; ++u)
        if (pending_[u] == 0) ready_.push_back(u);
}

// What a rank holds while it runs `unit` on a team of `ranks`: its working
// set alone, a member's share in a team.
std::uint64_t Scheduler::member_bytes(int unit, int ranks) const noexcept {
    const Unit& u = units_[unit];
    if (ranks == 1) return u.bytes;
    return static_cast<std::uint64_t>(u.member_bytes * static_cast<double>(u.positions) / ranks);
}

std::uint64_t Scheduler::least_memory() const noexcept {
    if (memory_.ranks.empty()) return std::numeric_limits<std::uint64_t>::max();
    std::uint64_t least = std::numeric_limits<std::uint64_t>::max();
    for (std::uint64_t m : memory_.ranks) least = std::min(least, m ? m : std::numeric_limits<std::uint64_t>::max());
    return least;
}

bool Scheduler::over_memory(int unit) const noexcept {
    return member_bytes(unit, max_team_[unit]) > least_memory();
}

// Whether one-rank unit u may start on rank r beside what runs there.
bool Scheduler::room_on(int r, int unit) const {
    const std::uint64_t bytes = held_[r] + units_[unit].bytes;
    if (memory_.room) return memory_.room(r, bytes);
    return memory_.ranks.empty() || memory_.ranks[r] == 0 || bytes <= memory_.ranks[r];
}

// When rank r is expected to run nothing: now if it runs nothing, else when
// the last unit on it is expected to end (now at the earliest: a unit that
// overran its estimate may end at any moment).
double Scheduler::free_at(int r, double now) const {
    double at = now;
    for (int u : on_rank_[r]) at = std::max(at, started_at_[u] + expected_seconds(u, team_size_[u]));
    return at;
}

// The earliest time `n` ranks are expected to run nothing, given when each will.
double Scheduler::shadow(std::vector<double> free, int n) {
    std::nth_element(free.begin(), free.begin() + (n - 1), free.end());
    return free[n - 1];
}

std::vector<Scheduler::Assignment> Scheduler::assign(double now) {
    std::vector<Assignment> out;
    std::stable_sort(ready_.begin(), ready_.end(), [&](int a, int b) { return priority_[a] > priority_[b]; });
    const int ranks = static_cast<int>(running_on_.size());
    double ready = 0;
    for (int u : ready_) ready += static_cast<double>(units_[u].positions);
    const double active = running_positions_ + ready;
    const int free = static_cast<int>(idle_ranks().size());
    const bool timed = now >= 0 && timed_work_ > 0;
    // Once a team must wait for its ranks: when each rank is expected to be
    // free, the team's size and the time it can start (its reservation).
    std::vector<double> free_from;
    int reserved = 0;
    double reservation = 0;
    std::vector<int> started;
    for (const int u : ready_) {
        // Its share of all ranks by the work ready or running, or, if more,
        // its share of the ranks free now by the work ready: ranks that
        // nothing else ready could use join the teams (a team keeps its
        // ranks to the end of its material, so ranks left out of it may
        // find nothing to do while it runs).
        const auto positions = static_cast<double>(units_[u].positions);
        const double share = std::max(ranks * positions / std::max(1.0, active), free * positions / std::max(1.0, ready));
        const int wanted =
            largest_teams_ ? max_team_[u]
                           : team_worth_having(u, std::clamp(static_cast<int>(share + 0.5), min_team_[u], max_team_[u]),
                                               active);
        std::vector<int> team;
        if (wanted == 1) {
            // The rank that solved the most of what u reads, then the one with
            // the most free slots (the lowest number among equals).
            std::vector<double> held(ranks, 0);
            for (int w : units_[u].reads)
                if (solved_by_[w] >= 0) held[solved_by_[w]] += static_cast<double>(units_[w].positions);
            // Once a team waits for its ranks, a rank where u would hold it
            // up is passed over before the caller is asked for room (the one
            // process packs kept tables to make it).
            const auto delays = [&](int r) {
                if (reserved == 0) return false;
                std::vector<double> after = free_from;
                after[r] = std::max(after[r], now + expected_seconds(u, 1));
                return shadow(std::move(after), reserved) > reservation;
            };
            int best = -1;
            for (int r = 0; r < ranks; ++r) {
                if (in_team_[r] || running_on_[r] >= slots_[r] || delays(r) || (running_on_[r] > 0 && !room_on(r, u)))
                    continue;
                if (best < 0 || held[r] > held[best] ||
                    (held[r] == held[best] && slots_[r] - running_on_[r] > slots_[best] - running_on_[best]))
                    best = r;
            }
            if (best >= 0) team.push_back(best);
        } else {
            for (int r = 0; r < ranks && static_cast<int>(team.size()) < wanted; ++r)
                if (idle(r)) team.push_back(r);
        }
        int size_now = wanted;
        if (reserved == 0 && static_cast<int>(team.size()) < wanted) {
            // The first unit that cannot start waits for its ranks to drain.
            // Without a clock nothing of lower priority starts meanwhile.
            // With one, it starts at once on the ranks free now if it is
            // expected to end sooner so; else a unit of lower priority starts
            // if the team is not expected to start later for it (backfilling).
            if (!timed) break;
            free_from.resize(ranks);
            for (int r = 0; r < ranks; ++r) free_from[r] = free_at(r, now);
            const double waiting = shadow(free_from, wanted);
            const int now_free = static_cast<int>(team.size());
            if (largest_teams_ || now_free < min_team_[u] || now_free == 0 ||
                now + expected_seconds(u, now_free) > waiting + expected_seconds(u, wanted)) {
                reserved = wanted;
                reservation = waiting;
                continue;
            }
            size_now = now_free;
        }
        if (static_cast<int>(team.size()) < size_now) continue;
        const int size = size_now;
        const double end = now + expected_seconds(u, size);
        if (reserved > 0) {
            std::vector<double> after = free_from;
            for (int r : team) after[r] = std::max(after[r], end);
            if (shadow(std::move(after), reserved) > reservation) continue;
            for (int r : team) free_from[r] = std::max(free_from[r], end);
        }
        team_size_[u] = size;
        if (size == 1) {
            ++running_on_[team[0]];
            held_[team[0]] += units_[u].bytes;
        } else {
            for (int r : team) in_team_[r] = true;
        }
        for (int r : team) on_rank_[r].push_back(u);
        started_at_[u] = now;
        ++running_;
        running_positions_ += positions;
        started.push_back(u);
        out.push_back({u, std::move(team)});
    }
    std::erase_if(ready_, [&](int u) { return std::find(started.begin(), started.end(), u) != started.end(); });
    return out;
}

// `team` ranks for `unit` (its share of the ranks) if that is expected to
// end the build sooner than its fewest (min_team_[unit]: one rank, or those
// its memory needs), else the fewest. The build's end is taken as the later
// of two bounds, in positions over a rank: the longest path through the
// unit, its work over its ranks times team_overhead(), and the work ready
// or running (`active`), the team's added work included, over all ranks
// (work that is not ready yet is on some unit's path). So a team forms
// where the unit's path is the longer (the build would wait for it) and it
// shortens that path more than its added work lengthens the rest.
int Scheduler::team_worth_having(int unit, int team, double active) const {
    const auto positions = static_cast<double>(units_[unit].positions);
    const auto ranks = static_cast<double>(running_on_.size());
    const auto end = [&](int k) {
        const double f = team_overhead(k);
        return std::max(positions * f / k + after_[unit], (active + positions * (f - 1)) / ranks);
    };
    const int fewest = min_team_[unit];
    return team > fewest && end(team) < end(fewest) ? team : fewest;
}

double Scheduler::expected_seconds(int unit, int ranks) const {
    return timed_work_ > 0 ? timed_seconds_ / timed_work_ * static_cast<double>(units_[unit].positions) / ranks : 0;
}

void Scheduler::released(int unit, int rank) {
    std::erase(on_rank_[rank], unit);
    if (team_size_[unit] == 1) {
        --running_on_[rank];
        held_[rank] -= units_[unit].bytes;
        solved_by_[unit] = rank;
    } else {
        in_team_[rank] = false;
    }
}

void Scheduler::finished(int unit, double now) {
    if (now >= 0 && started_at_[unit] >= 0) {
        timed_seconds_ += now - started_at_[unit];
        timed_work_ += static_cast<double>(units_[unit].positions) / team_size_[unit];
    }
    // Its ranks that have not reported yet work on it no longer: their
    // reports are on their way (free_at()).
    for (std::vector<int>& units : on_rank_) std::erase(units, unit);
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
