// Root probes of real tables (issue 51): a set's tables of format version 2
// (one-sided .dtw) against the same set in version 1, and the time of a
// distance and of a best move of each side to move.
//
//   root_probe_bench VARIANT OLD_DIR NEW_DIR [POSITIONS_A_MATERIAL]
//
// For every material of NEW_DIR, POSITIONS_A_MATERIAL (default 2000) random
// positions without a capture, either side to move: the value, the result
// and the best move's value must be those of OLD_DIR (a difference is
// printed and the exit status is 1). Then, on NEW_DIR, warm (a cache of
// 4 GiB, each position probed once before) and cold (a cache of the fewest blocks, so that
// nearly every probe decompresses its blocks; the files stay in the page
// cache), the mean, the 99th percentile and the slowest `value` and `best_move`, apart for the
// side to move stored and the other. Not a test: it measures.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "bench/machine.hpp"
#include "bench/positions.hpp"
#include "draughts/variant.hpp"
#include "probe/prober.hpp"

namespace {

using namespace dtb;
using Clock = std::chrono::steady_clock;

struct Times {
    std::vector<double> us;
    void add(double t) { us.push_back(t); }
    // The mean, the 99th percentile and the slowest.
    std::string text() {
        if (us.empty()) return "none";
        std::sort(us.begin(), us.end());
        double sum = 0;
        for (double t : us) sum += t;
        return fmt::format("mean {:7.1f} us, 99% {:8.1f} us, max {:8.1f} us", sum / static_cast<double>(us.size()),
                           us[us.size() * 99 / 100], us.back());
    }
};

template <class F>
double micros(F&& f) {
    const auto start = Clock::now();
    f();
    return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

template <class V>
int run(const std::filesystem::path& old_dir, const std::filesystem::path& new_dir, std::size_t per_material) {
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
    for (const Position& p : positions) {
        const Value a = before.value(p), b = after.value(p);
        const auto ma = before.best_move(p), mb = after.best_move(p);
        const bool same = a == b && before.wdl(p) == after.wdl(p) && ma.has_value() == mb.has_value() &&
                          (!ma || ma->value == mb->value);
        if (!same && wrong++ < 10)
            std::printf("differs: %s version 1 %s, version 2 %s\n", draughts::to_fen(p).c_str(), to_string(a).c_str(),
                        to_string(b).c_str());
    }
    std::printf("%zu positions of %zu materials: %zu differ from the tables of version 1\n", positions.size(),
                after.tables().materials().size(), wrong);
    const auto time = [&](const Prober<V>& prober, const char* what) {
        Times value[2], best[2];
        for (std::size_t i = 0; i < positions.size(); ++i) {
            value[stored[i]].add(micros([&] { (void)prober.value(positions[i]); }));
            best[stored[i]].add(micros([&] { (void)prober.best_move(positions[i]); }));
        }
        for (int s : {1, 0}) {
            std::printf("%s, side %s: value %s; best move %s\n", what, s ? "stored    " : "not stored",
                        value[s].text().c_str(), best[s].text().c_str());
        }
    };
    // Warm: a cache that keeps every block these positions reach, each
    // position probed once before it is timed.
    const Prober<V> warm(new_dir, std::size_t{4} << 30);
    for (const Position& p : positions) (void)warm.best_move(p), (void)warm.value(p);
    time(warm, "warm");
    const Prober<V> cold(new_dir, 1);  // the fewest blocks the cache keeps
    time(cold, "cold");
    return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: root_probe_bench VARIANT OLD_DIR NEW_DIR [POSITIONS_A_MATERIAL]\n");
        return 2;
    }
    const std::size_t per_material = argc > 4 ? std::stoull(argv[4]) : 2000;
    std::printf("%s\n", bench::cpu_model().c_str());
    int status = 0;
    draughts::with_variant(argv[1], [&]<class V>() { status = run<V>(argv[2], argv[3], per_material); });
    return status;
}
