// The subcommands of `dtb` (docs/design.md, "Command line"): each one's options
// as the command line fills them, and the function that runs it. main.cpp
// defines the options, checks them and calls these; it is the only file that
// includes CLI11, whose header costs every file that includes it about 13 s of
// compile (docs/design.md, "Command line"). Errors are thrown and reported
// once, by main().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "builder/driver/build_options.hpp"
#include "builder/output/convert.hpp"
#include "builder/output/verify.hpp"
#include "explorer/server.hpp"

namespace dtb::cli {

struct PerftOptions {
    std::string variant;
    std::string fen;
    int depth = 0;
    bool divide = false;
};
void run_perft(const PerftOptions& o);

struct InfoOptions {
    std::string variant;
    std::string material;
    int pieces = 0;
    bool json = false;
};
void run_info(const InfoOptions& o);

struct ProbeOptions {
    std::string variant;
    std::string dir;
    std::string fen;
    bool line = false;
    bool rules = false;
    std::string counts;
};
void run_probe(const ProbeOptions& o);

struct StatsOptions {
    std::string variant;
    std::string dir;
    std::string material;
    bool json = false;
    bool rules = false;
};
void run_stats(const StatsOptions& o);

struct VerifyCommandOptions {
    std::string variant;
    std::string dir;
    VerifyOptions options;
};
void run_verify(const VerifyCommandOptions& c);

struct ConvertCommandOptions {
    std::string variant;
    std::string dir;
    ConvertOptions options;
};
void run_convert(const ConvertCommandOptions& c);

struct BuildCommandOptions {
    std::string variant;
    std::string dir;
    int pieces = 0;
    std::vector<std::string> materials;
    int threads = 0;
    std::string memory;  // parse_memory's forms; empty: the default
    std::string output = "auto";
    int wld_compression = 12;
    int dtw_compression = 9;
    std::uint64_t team_positions = BuildOptions{}.team_positions;
    double rank_timeout = BuildOptions{}.rank_timeout_seconds;
    bool rules = false;
    bool literal_road = false;
    std::string profile;
    std::uint64_t profile_threads = 0;
};
void run_build(const BuildCommandOptions& c);

// Bytes from --memory's forms: a number with K, M, G or T (powers of 1024,
// also written KB, KiB, ...), or a plain number of GiB; more than 0. Throws
// std::invalid_argument saying what it accepts.
std::uint64_t parse_memory(const std::string& text);

struct ServeCommandOptions {
    std::string dir;
    explorer::ServeOptions serve;
};
void run_serve(const ServeCommandOptions& o);

struct ReportOptions {
    std::string variant;
    std::string dir;
    std::string material;
    std::string out;
};
void run_report(const ReportOptions& o);

}  // namespace dtb::cli
