// What a build does (docs/design.md, "Solver" and "Table files and the build's
// directory"): the materials asked for and all they lead to, in dependency
// order, which of them are already built (listed in the manifest, files intact)
// and which must wait for which. One process makes the plan (rank 0 of a
// distributed build) and holds the tables directory's lock while the build
// runs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "builder/driver/build_options.hpp"
#include "builder/output/manifest.hpp"
#include "probe/material.hpp"

namespace dtb {

struct PlannedMaterial {
    Material material;  // canonical
    std::vector<Material> successors;  // the canonical materials one move leads to
    std::uint64_t positions = 0;       // both sides to move
    bool build = false;                // false: already built
    // The materials this run builds that must be finished before this one
    // starts: its successors, and through those already built, theirs (their
    // values are read back from the files, which needs the tables they lead to).
    std::vector<Material> waits_for;
};

class BuildPlan {
public:
    // Creates DIR/VARIANT, takes its lock (another build in the same directory
    // is refused), removes the temporary files of a build that was killed,
    // reads the manifest and checks the files of every material it lists.
    // Throws std::runtime_error with what to do.
    BuildPlan(const BuildOptions& options, int board_size);
    BuildPlan(const BuildPlan&) = delete;
    BuildPlan& operator=(const BuildPlan&) = delete;
    ~BuildPlan();

    const std::filesystem::path& variant_dir() const noexcept { return variant_dir_; }
    // In build order: each after every material it leads to.
    const std::vector<PlannedMaterial>& materials() const noexcept { return materials_; }
    const PlannedMaterial& at(const Material& m) const;
    Manifest& manifest() noexcept { return manifest_; }
    // What the checks found (a table changed behind the manifest's back), for the user.
    const std::vector<std::string>& notes() const noexcept { return notes_; }

private:
    std::filesystem::path variant_dir_;
    int lock_fd_ = -1;
    Manifest manifest_;
    std::vector<PlannedMaterial> materials_;
    std::vector<std::string> notes_;
};

}  // namespace dtb
