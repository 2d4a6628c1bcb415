// Root probes of real tables (issue 51): a set's tables of format version 2
// (one-sided .dtw, and .rul where the set has them) against the same set in
// version 1, and the time of a distance and of a best move of each side to
// move, plain and under the draw rules (the counts from zero).
//
//   root_probe_bench VARIANT OLD_DIR NEW_DIR [POSITIONS_A_MATERIAL [wdl]]
//
// For every material of NEW_DIR, POSITIONS_A_MATERIAL (default 2000) random
// positions without a capture, either side to move: the value, the result
// and the best move's value must be those of OLD_DIR (a difference is
// printed and the exit status is 1), and where both sets have .rul tables,
// the value under the rules and the best move's under them too. Then, on
// NEW_DIR, warm (a cache of
// 4 GiB, each position probed once before) and cold (a cache of the fewest blocks, so that
// nearly every probe decompresses its blocks; the files stay in the page
// cache), the mean, the 99th percentile and the slowest `value` and `best_move`, apart for the
// side to move stored and the other, each warm one the least of three timings. Last, `wdl` on
// both sets: the warm rates, passes over every position on each set in turn (11 rounds; 41
// with `wdl`, which times only that) with the ratio of the rates round by round, and the cold
// probes. Not a test: it measures.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "bench/machine.hpp"
#include "bench/positions.hpp"
#include "draughts/variant.hpp"
#include "probe/rule_prober.hpp"

namespace {

using namespace dtb;
using Clock = std::chrono::steady_clock;

struct Times {
    std::vector<double> us;
    double slowest = -1;
    std::string slowest_fen;
    void add(double t, const std::string& fen) {
        us.push_back(t);
        if (t > slowest) slowest = t, slowest_fen = fen;
    }
    // The mean, the 99th percentile and the slowest (its position).
    std::string text() {
        if (us.empty()) return "none";
        std::sort(us.begin(), us.end());
        double sum = 0;
        for (double t : us) sum += t;
        return fmt::format("mean {:7.1f} us, 99% {:8.1f} us, max {:8.1f} us ({})", sum / static_cast<double>(us.size()),
                           us[us.size() * 99 / 100], us.back(), slowest_fen);
    }
};

// The least of `runs` timings of f: warm, a probe's time with the machine's
// other work (a timer tick, another process) taken out of it; cold, one run
// (a second would find the first's blocks).
template <class F>
double micros(int runs, F&& f) {
    double least = 0;
    for (int run = 0; run < runs; ++run) {
        const auto start = Clock::now();
        f();
        const double t = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
        if (run == 0 || t < least) least = t;
    }
    return least;
}

template <class V>
int run(const std::filesystem::path& old_dir, const std::filesystem::path& new_dir, std::size_t per_material,
        bool search_only) {
    using Position = draughts::Position<V::board_size>;
    const Prober<V> before(old_dir), after(new_dir);
    // The positions, and whether each is of the side the .dtw stores.
    std::vector<Position> positions;
    std::vector<bool> stored;
    for (const Material& m : after.tables().materials()) {
        const TableHeader& h = after.tables().file(after.tables().find(m).slot, TableKind::dtw).header();
        for (const Position& p : bench::quiet_positions<V>(m, per_material)) {
            positions.push_back(p);
            stored.push_back(h.stores(after.locate(p).g));
        }
    }
    std::size_t wrong = 0;
    for (const Position& p : search_only ? std::vector<Position>{} : positions) {
        const Value a = before.value(p), b = after.value(p);
        const auto ma = before.best_move(p), mb = after.best_move(p);
        const bool same = a == b && before.wdl(p) == after.wdl(p) && ma.has_value() == mb.has_value() &&
                          (!ma || (ma->move == mb->move && ma->value == mb->value));
        if (!same && wrong++ < 10)
            std::printf("differs: %s version 1 %s, version 2 %s\n", draughts::to_fen(p).c_str(), to_string(a).c_str(),
                        to_string(b).c_str());
    }
    std::printf("%zu positions of %zu materials: %zu differ from the tables of version 1\n", positions.size(),
                after.tables().materials().size(), wrong);
    // Under the rules, where both sets have every .rul; the side stored is the .rul's.
    const auto all_rules = [](const Prober<V>& prober) {
        const TableSet& t = prober.tables();
        for (int slot = 0; slot < static_cast<int>(t.materials().size()); ++slot)
            if (!t.has(slot, TableKind::rul)) return false;
        return true;
    };
    const bool rules = !search_only && all_rules(before) && all_rules(after);
    std::vector<bool> rule_stored(positions.size());
    if (rules) {
        const RuleProber<V> rb(before), ra(after);
        std::size_t rule_wrong = 0;
        for (std::size_t i = 0; i < positions.size(); ++i) {
            const Position& p = positions[i];
            const auto at = after.locate(p);
            rule_stored[i] = after.tables().file(at.slot, TableKind::rul).header().stores(at.g);
            const RuleValue a = rb.value(p), b = ra.value(p);
            const auto ma = rb.best_move(p), mb = ra.best_move(p);
            const bool same = a.wdl == b.wdl && a.rule_class == b.rule_class && a.distance == b.distance &&
                              a.dtw == b.dtw && ma.has_value() == mb.has_value() &&
                              (!ma || (ma->move == mb->move && ma->after.distance == mb->after.distance));
            if (!same && rule_wrong++ < 10)
                std::printf("differs under the rules: %s version 1 %s, version 2 %s\n", draughts::to_fen(p).c_str(),
                            to_string(a.distance).c_str(), to_string(b.distance).c_str());
        }
        std::printf("under the rules: %zu positions, %zu differ from the tables of version 1\n", positions.size(),
                    rule_wrong);
        wrong += rule_wrong;
    }
    const auto time = [&](const Prober<V>& prober, const char* what, int runs) {
        Times value[2], best[2], rule_value[2], rule_best[2];
        const RuleProber<V> under(prober);
        for (std::size_t i = 0; i < positions.size(); ++i) {
            const std::string fen = draughts::to_fen(positions[i]);
            value[stored[i]].add(micros(runs, [&] { (void)prober.value(positions[i]); }), fen);
            best[stored[i]].add(micros(runs, [&] { (void)prober.best_move(positions[i]); }), fen);
            if (!rules) continue;
            rule_value[rule_stored[i]].add(micros(runs, [&] { (void)under.value(positions[i]); }), fen);
            rule_best[rule_stored[i]].add(micros(runs, [&] { (void)under.best_move(positions[i]); }), fen);
        }
        for (int s : {1, 0}) {
            std::printf("%s, side %s: value %s; best move %s\n", what, s ? "stored    " : "not stored",
                        value[s].text().c_str(), best[s].text().c_str());
            if (rules)
                std::printf("%s, side %s under the rules: value %s; best move %s\n", what,
                            s ? "stored    " : "not stored", rule_value[s].text().c_str(), rule_best[s].text().c_str());
        }
    };
    // The search table of each set. Warm: both sets' probers kept warm side
    // by side, a pass over every position timed on each in turn (the order
    // swapped each round), and the ratio of the two rates taken round by
    // round, so that the machine's drift between rounds cancels. Cold: each
    // probe on its own, a cache of the fewest blocks.
    const auto search_tables = [&](int rounds) {
        const Prober<V> warm_old(old_dir, std::size_t{4} << 30), warm_new(new_dir, std::size_t{4} << 30);
        int sum = 0;
        const auto pass = [&](const Prober<V>& prober) {
            return micros(1, [&] {
                for (const Position& p : positions) sum += static_cast<int>(prober.wdl(p));
            });
        };
        pass(warm_old), pass(warm_new);
        std::vector<double> old_rate, new_rate, ratio;
        for (int round = 0; round < rounds; ++round) {
            double t_old, t_new;
            if (round % 2 == 0) t_old = pass(warm_old), t_new = pass(warm_new);
            else t_new = pass(warm_new), t_old = pass(warm_old);
            old_rate.push_back(static_cast<double>(positions.size()) / t_old);
            new_rate.push_back(static_cast<double>(positions.size()) / t_new);
            ratio.push_back(t_old / t_new);
        }
        const auto quartiles = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return fmt::format("median {:.3f} (quartiles {:.3f}-{:.3f}, {:.3f}-{:.3f})", v[v.size() / 2],
                               v[v.size() / 4], v[v.size() * 3 / 4], v.front(), v.back());
        };
        std::printf("wdl warm, %d rounds in turn: OLD_DIR %s, NEW_DIR %s million probes a second; NEW_DIR's rate "
                    "over OLD_DIR's round by round %s\n",
                    rounds, quartiles(old_rate).c_str(), quartiles(new_rate).c_str(), quartiles(ratio).c_str());
        for (const auto& [dir, what] : {std::pair{old_dir, "OLD_DIR"}, std::pair{new_dir, "NEW_DIR"}}) {
            const Prober<V> cold_wdl(dir, 1);
            Times t;
            for (const Position& p : positions)
                t.add(micros(1, [&] { sum += static_cast<int>(cold_wdl.wdl(p)); }), draughts::to_fen(p));
            std::printf("wdl cold, %s: %s%s\n", what, t.text().c_str(), sum == -1 ? "" : "");
        }
    };
    if (search_only) {
        search_tables(41);
        return 0;
    }
    // Warm: a cache that keeps every block these positions reach, each
    // position probed once before it is timed.
    const Prober<V> warm(new_dir, std::size_t{4} << 30);
    const RuleProber<V> warm_rules(warm);
    for (const Position& p : positions) {
        (void)warm.best_move(p), (void)warm.value(p);
        if (rules) (void)warm_rules.best_move(p), (void)warm_rules.value(p);
    }
    time(warm, "warm", 3);
    const Prober<V> cold(new_dir, 1);  // the fewest blocks the cache keeps
    time(cold, "cold", 1);
    search_tables(11);
    return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: root_probe_bench VARIANT OLD_DIR NEW_DIR [POSITIONS_A_MATERIAL [wdl]]\n");
        return 2;
    }
    const std::size_t per_material = argc > 4 ? std::stoull(argv[4]) : 2000;
    std::printf("%s\n", bench::cpu_model().c_str());
    int status = 0;
    const bool search_only = argc > 5 && std::string(argv[5]) == "wdl";
    draughts::with_variant(argv[1], [&]<class V>() { status = run<V>(argv[2], argv[3], per_material, search_only); });
    return status;
}
