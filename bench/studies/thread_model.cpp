// What the parallel structure of a build allows on any number of threads
// (docs/scaling.md, "Threads on one node"), from the profile that
// `dtb build --profile FILE` writes (builder/system/work_profile.hpp).
//
// Each material is a chain: time on one thread (serial), then a parallel
// step (its work, its units and its longest unit), and so on. A material
// starts when the materials it waits for end; the rule tables start after
// every plain table, as the build runs them. T threads are shared out in
// the order the materials started, each taking what its current step can
// use (work over longest unit, at most its units; one thread for serial
// time), so a step on k threads takes its work over k and never less than
// its longest unit. That is the structure alone: a position is taken to
// cost on T threads what it cost in the profile. The difference between
// this and a measurement on T threads is what a position costs more there
// (memory, shared cache lines, threads that spin).
//
//     thread_model PROFILE.json [--threads 1,2,4,8,16,32,64,128] [--step-cost-us X] [--top N]
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace {

struct Segment {
    double work;     // seconds of one thread
    double longest;  // the step cannot end sooner
    double units;
    bool serial;
    // Steps its units ran inside them, and its units (shared_pairs): each
    // inner step pays the step cost too, one after another in its unit.
    double inner_steps = 0, pieces = 1;
    double work_with(double step_cost) const { return work + inner_steps * step_cost; }
    double parallelism(double step_cost) const {
        if (serial) return 1.0;
        const double longest_with = longest + inner_steps / std::max(pieces, 1.0) * step_cost;
        return std::min(units, work_with(step_cost) / std::max(longest_with, 1e-12));
    }
};

struct MaterialChain {
    std::string name;
    std::uint64_t positions = 0;
    std::vector<std::string> waits_for;
    bool rules = false;
    std::vector<Segment> segments;
    double start = 0;  // in the profiled run, for the order
    double work = 0, serial = 0, span = 0;
    int steps = 0;
};

struct KindTotals {
    int steps = 0;
    double work = 0, longest = 0, serial_before = 0;
    int under_16 = 0, under_64 = 0;
    std::vector<double> units;
};

// The build on `threads` threads, each parallel step paying `step_cost`
// seconds on one thread before it: its predicted wall time.
double simulate(const std::vector<MaterialChain>& chains, double threads, double step_cost) {
    const std::size_t n = chains.size();
    std::map<std::string, std::size_t> by_name;
    for (std::size_t i = 0; i < n; ++i) by_name[chains[i].name] = i;
    std::vector<int> pending(n, 0);
    std::vector<std::vector<std::size_t>> dependents(n);
    std::size_t plain_left = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!chains[i].rules) ++plain_left;
        for (const std::string& w : chains[i].waits_for)
            if (const auto it = by_name.find(w); it != by_name.end()) {
                ++pending[i];
                dependents[it->second].push_back(i);
            }
    }
    struct Running {
        std::size_t chain, segment = 0;
        double left = 0;           // work left of the segment (or of the step's cost)
        bool paying_cost = false;  // the step's cost, before its parallel part
    };
    // Into the next segment with work; false when the chain is done.
    const auto enter = [&](Running& r) {
        const std::vector<Segment>& segments = chains[r.chain].segments;
        for (; r.segment < segments.size(); ++r.segment) {
            const Segment& s = segments[r.segment];
            if (s.work <= 0) continue;
            r.paying_cost = !s.serial && step_cost > 0;
            r.left = r.paying_cost ? step_cost : s.work_with(step_cost);
            return true;
        }
        return false;
    };
    std::vector<Running> running;  // in the order the chains started in the profiled run
    std::vector<bool> started(n, false);
    std::size_t finished = 0;
    double now = 0;
    while (finished < n) {
        // Start what is ready; a chain with no work ends at once, and may make others ready.
        for (bool more = true; more;) {
            more = false;
            for (std::size_t i = 0; i < n; ++i) {
                if (started[i] || pending[i] > 0 || (chains[i].rules && plain_left > 0)) continue;
                started[i] = true;
                Running r{i};
                if (enter(r)) {
                    running.push_back(r);
                    continue;
                }
                ++finished;
                if (!chains[i].rules) --plain_left;
                for (const std::size_t d : dependents[i]) --pending[d];
                more = true;
            }
        }
        if (running.empty()) break;  // nothing left that can start: a cycle, which no plan has
        std::stable_sort(running.begin(), running.end(), [&](const Running& a, const Running& b) {
            return chains[a.chain].start < chains[b.chain].start;
        });
        // Threads to each in turn, as many as its segment can use.
        std::vector<double> rate(running.size());
        double free = threads;
        for (std::size_t k = 0; k < running.size(); ++k) {
            const Segment& s = chains[running[k].chain].segments[running[k].segment];
            const double want = running[k].paying_cost || s.serial ? 1.0 : std::max(1.0, s.parallelism(step_cost));
            rate[k] = std::min(want, free);
            free -= rate[k];
        }
        double dt = 1e300;
        for (std::size_t k = 0; k < running.size(); ++k)
            if (rate[k] > 0) dt = std::min(dt, running[k].left / rate[k]);
        now += dt;
        std::vector<Running> still;
        for (std::size_t k = 0; k < running.size(); ++k) {
            Running r = running[k];
            r.left -= rate[k] * dt;
            if (rate[k] == 0 || r.left > 1e-9 * dt) {
                still.push_back(r);
                continue;
            }
            if (r.paying_cost) {
                r.paying_cost = false;
                r.left = chains[r.chain].segments[r.segment].work_with(step_cost);
                still.push_back(r);
                continue;
            }
            ++r.segment;
            if (enter(r)) {
                still.push_back(r);
                continue;
            }
            ++finished;
            if (!chains[r.chain].rules) --plain_left;
            for (const std::size_t d : dependents[r.chain]) --pending[d];
        }
        running = std::move(still);
    }
    return now;
}

// The longest chain of spans through the materials' dependencies.
double critical_path(const std::vector<MaterialChain>& chains) {
    std::map<std::string, double> ends;
    double plain_end = 0, last = 0;
    // Chains are in the order they started, after all they wait for.
    for (const MaterialChain& c : chains) {
        double begin = c.rules ? plain_end : 0;
        for (const std::string& w : c.waits_for)
            if (const auto it = ends.find(w); it != ends.end()) begin = std::max(begin, it->second);
        ends[c.name] = begin + c.span;
        if (!c.rules) plain_end = std::max(plain_end, ends[c.name]);
        last = std::max(last, ends[c.name]);
    }
    return last;
}

std::vector<int> parse_threads(const std::string& text) {
    std::vector<int> out;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t comma = text.find(',', at);
        out.push_back(std::stoi(text.substr(at, comma - at)));
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app("What a build's parallel structure allows on any number of threads, from dtb build --profile");
    std::string file, thread_list = "1,2,4,8,16,32,64,128";
    double step_cost_us = 0;
    std::size_t top = 12;
    app.add_option("profile", file, "the JSON file dtb build --profile wrote")->required()->check(CLI::ExistingFile);
    app.add_option("--threads", thread_list, "thread counts to predict, comma-separated");
    app.add_option("--step-cost-us", step_cost_us,
                   "microseconds each parallel step costs on one thread besides its work (starting and joining "
                   "its threads); default 0")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--top", top, "materials listed, the most work first (default 12)");
    CLI11_PARSE(app, argc, argv);
    std::vector<int> counts;
    try {
        counts = parse_threads(thread_list);
    } catch (const std::exception&) {
        fmt::print(stderr, "thread_model: --threads takes numbers separated by commas, such as 1,2,4,16\n");
        return 1;
    }

    nlohmann::json j;
    try {
        std::ifstream(file) >> j;
    } catch (const std::exception& e) {
        fmt::print(stderr, "thread_model: {} is not a profile of dtb build --profile ({})\n", file, e.what());
        return 1;
    }
    std::vector<MaterialChain> chains;
    std::map<std::string, KindTotals> kinds;
    double work = 0, serial = 0;
    for (const auto& m : j.at("materials")) {
        MaterialChain c;
        c.name = m.at("material").get<std::string>();
        c.positions = m.at("positions").get<std::uint64_t>();
        c.waits_for = m.at("waits_for").get<std::vector<std::string>>();
        c.rules = c.name.size() > 4 && c.name.ends_with(".rul");
        c.start = m.at("start_ns").get<double>() * 1e-9;
        for (const auto& s : m.at("steps")) {
            const std::string kind = s.at(0).get<std::string>();
            const double units = s.at(2).get<double>(), w = s.at(4).get<double>() * 1e-9,
                         longest = s.at(5).get<double>() * 1e-9, before = s.at(6).get<double>() * 1e-9;
            // Units that ran steps of their own (shared_pairs) run on several
            // threads each: their spans bound the step, not their number.
            const double inner = s.size() > 8 ? s.at(8).get<double>() : 0;
            c.segments.push_back({before, before, 1, true});
            c.segments.push_back({w, std::min(longest, w), inner > 0 ? std::numeric_limits<double>::infinity() : units,
                                  false, inner, s.at(3).get<double>()});
            c.work += w;
            c.serial += before;
            c.span += before + std::min(longest, w);
            ++c.steps;
            KindTotals& k = kinds[kind];
            ++k.steps;
            k.work += w;
            k.longest += std::min(longest, w);
            k.serial_before += before;
            k.under_16 += units < 16;
            k.under_64 += units < 64;
            k.units.push_back(units);
        }
        const double after = m.at("serial_after_ns").get<double>() * 1e-9;
        c.segments.push_back({after, after, 1, true});
        c.serial += after;
        c.span += after;
        work += c.work;
        serial += c.serial;
        chains.push_back(std::move(c));
    }
    std::stable_sort(chains.begin(), chains.end(),
                     [](const MaterialChain& a, const MaterialChain& b) { return a.start < b.start; });

    const double wall = j.at("wall_seconds").get<double>(), processor = j.at("processor_seconds").get<double>();
    const int threads = j.at("threads").get<int>();
    fmt::print("profile: {}\n", j.value("build", std::string("(build not recorded)")));
    fmt::print("cores of the machine it ran on: {}\n", j.value("cores", 0));
    fmt::print("measured on {} threads: wall {:.2f} s, processor {:.2f} s; in parallel steps {:.2f} s, on one thread "
               "(serial) {:.2f} s, in neither (threads waiting or spinning, scheduling) {:.2f} s ({:.1f}%)\n\n",
               threads, wall, processor, work, serial, processor - work - serial,
               100 * (processor - work - serial) / processor);

    fmt::print("steps by kind: work (all threads), the sum of their longest units (what no thread count "
               "shortens), serial time before them\n");
    fmt::print("{:<12} {:>8} {:>10} {:>7} {:>10} {:>10} {:>9} {:>9} {:>9}\n", "kind", "steps", "work s", "share",
               "longest s", "serial s", "units<16", "units<64", "median u");
    for (auto& [name, k] : kinds) {
        std::sort(k.units.begin(), k.units.end());
        fmt::print("{:<12} {:>8} {:>10.2f} {:>6.1f}% {:>10.2f} {:>10.2f} {:>9} {:>9} {:>9.0f}\n", name, k.steps, k.work,
                   100 * k.work / work, k.longest, k.serial_before, k.under_16, k.under_64,
                   k.units[k.units.size() / 2]);
    }

    std::vector<const MaterialChain*> largest;
    for (const MaterialChain& c : chains) largest.push_back(&c);
    std::sort(largest.begin(), largest.end(), [](auto* a, auto* b) { return a->work > b->work; });
    fmt::print("\nmaterials, the most work first: work and span (its serial time and longest units) in seconds, "
               "parallelism (work over span), and alone on 16 and 64 threads\n");
    fmt::print("{:<14} {:>14} {:>9} {:>8} {:>8} {:>7} {:>8} {:>8} {:>8}\n", "material", "positions", "work", "serial",
               "span", "par.", "steps", "16 thr", "64 thr");
    for (std::size_t i = 0; i < std::min(top, largest.size()); ++i) {
        const MaterialChain& c = *largest[i];
        auto alone = [&](double t) {
            double s = 0;
            for (const Segment& g : c.segments) s += g.serial ? g.work : std::max(g.work / t, g.longest);
            return s;
        };
        fmt::print("{:<14} {:>14} {:>9.2f} {:>8.2f} {:>8.2f} {:>7.1f} {:>8} {:>8.2f} {:>8.2f}\n", c.name, c.positions,
                   c.work, c.serial, c.span, c.work / std::max(c.span, 1e-9), c.steps, alone(16), alone(64));
    }

    const double path = critical_path(chains);
    const double one = simulate(chains, 1, step_cost_us * 1e-6);
    fmt::print("\nthe whole build: work {:.2f} s, critical path {:.2f} s (parallelism {:.1f}); step cost {} us\n",
               work + serial, path, (work + serial) / path, step_cost_us);
    fmt::print("{:>8} {:>12} {:>10} {:>11} {:>16}\n", "threads", "predicted s", "speed-up", "efficiency",
               "bound max(W/T,CP)");
    for (const int t : counts) {
        const double predicted = simulate(chains, t, step_cost_us * 1e-6);
        fmt::print("{:>8} {:>12.2f} {:>10.2f} {:>10.1f}% {:>16.2f}\n", t, predicted, one / predicted,
                   100 * one / predicted / t, std::max((work + serial) / t, path));
    }
    return 0;
}
