// What the coordinator of a distributed build (coordinator.hpp) and every
// rank's worker (worker.hpp) say to each other, on the session's
// coordination communicator: one definition of each message, read and
// written here alone (JSON text).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "builder/output/manifest.hpp"
#include "probe/material.hpp"

namespace dtb::mpi {

constexpr int assign_tag = 1;  // coordinator to worker: an Assignment
constexpr int done_tag = 2;    // worker to coordinator: a Done
constexpr int finish_tag = 3;  // coordinator to worker: nothing is left (no text)

// Which ranks keep the tables a job reads, as the coordinator knows it:
// whole (solved alone), or in ranges (solved in a team, in member order).
struct Holders {
    std::map<Material, int> whole;
    std::map<Material, std::vector<int>> shares;
};

// A job given to a rank: alone, or its share of a team's.
struct Assignment {
    int unit = 0;  // the job's number in the plan (BuildPlan::jobs())
    Material material;
    bool rules = false;  // its .rul (a rule job, alone), else its plain tables
    // Write the packed form of its values for the jobs that read them
    // (builder/driver/packed_forms.hpp; a team's members each their range).
    bool pack = false;
    std::vector<int> team;  // its ranks, the first writing the tables
    int team_id = 0;        // tells the teams being formed apart
    Holders holders;        // of the tables its material leads to
    // Tables no job left to run reads (since the rank's last assignment):
    // plain values and rule values, to be let go of wherever the rank keeps
    // them.
    std::vector<Material> unread, unread_rules;
};

// A rank's part of a job is done; the rank that wrote the tables sends the
// manifest's entry (a rule job's holds the material and its .rul's record).
struct Done {
    int unit = 0;
    std::optional<ManifestEntry> entry;
};

std::string to_text(const Assignment& a);
Assignment assignment_from_text(std::string_view text);
std::string to_text(const Done& d);
Done done_from_text(std::string_view text);

}  // namespace dtb::mpi
