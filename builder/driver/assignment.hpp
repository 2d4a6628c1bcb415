// What the coordinator of a build (coordinator.hpp) and its workers say to
// each other: a job given to a worker, and its part of it done. In one
// process they are passed as they are (build_of.hpp); between ranks as text
// (builder/mpi/messages.hpp).
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "builder/output/manifest.hpp"
#include "probe/material.hpp"

namespace dtb {

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

}  // namespace dtb
