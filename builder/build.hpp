// `dtb build` on one machine (DESIGN.md §6, §7): the materials asked for and
// all they lead to, in dependency order, several at once where they do not
// depend on each other (oneTBB), each solved by MaterialSolver and written as
// .wld and .dtw tables, the manifest updated after each. Tables the manifest
// lists whose files still hold are kept; a build that was killed resumes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "builder/manifest.hpp"
#include "probe/material.hpp"

namespace dtb {

struct BuildOptions {
    std::string variant;
    std::vector<Material> targets;  // built with every material they lead to
    std::filesystem::path dir;      // tables go to dir/variant
    int threads = 0;                // 0: every core
    // Memory for solved tables kept for the materials that need them; others
    // are read through the probe cache. 0: three quarters of the machine's.
    std::uint64_t memory_bytes = 0;
    std::string options;  // for the tables' provenance
    int block_shift = 16;
    int wld_compression_level = 12;  // zstd levels (table_writer.hpp)
    int dtw_compression_level = 3;
    enum class Output { automatic, terminal, log, quiet } output = Output::automatic;
};

struct MaterialReport {
    ManifestEntry entry;
    bool skipped = false;  // already built: listed in the manifest, files intact
};

struct BuildReport {
    std::vector<MaterialReport> materials;  // in the order they finished
    double seconds = 0;
    std::uint64_t positions_built = 0;  // both sides to move, skipped tables not counted
    std::uint64_t peak_memory_bytes = 0;  // the process's peak resident memory
};

// Throws std::runtime_error (with what went wrong and how to fix it) on bad
// options, damaged inputs or a failed write; finished tables stay finished.
BuildReport build_tables(const BuildOptions& options);

// Every canonical material of 2..pieces pieces.
std::vector<Material> materials_up_to(int pieces);

}  // namespace dtb
