// Values under the move-count draw rules of a whole set (issue 19), before
// they have a table file of their own: solves the rule values of every
// material of up to PIECES pieces in memory (builder/solver/rule_solver.hpp; a
// material the rules refuse, and those leading to it, left out) and, with
// the plain .wld tables of DIR/VARIANT, prints per material and side to move
// the five classes at count zero (win, cursed win: won but drawn by the
// rules, draw, blessed loss, loss), over the positions without a capture;
// the longest rule distance of a win; and the solving time. A rule value
// that is neither the plain value nor a draw is counted as an error.
//
//     rule_study VARIANT PIECES DIR [literal] [write=OUT]
//
// literal: Russian 7.2.7 read literally (the lone king on the main road,
// whatever else stands there). write=OUT: also writes each material's .rul
// into OUT/VARIANT (docs/format.md, "Rule tables") and sums their bytes.
// Not a test: it measures.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <tbb/parallel_for.h>

#include "builder/solver/rule_solver.hpp"
#include "builder/output/table_writer.hpp"
#include "draughts/movegen.hpp"
#include "draughts/variant.hpp"
#include "probe/index.hpp"
#include "probe/table_file.hpp"

using namespace dtb;

namespace {

struct SideTally {
    std::array<std::atomic<std::uint64_t>, 5> classes{};  // win, cursed win, draw, blessed loss, loss
    std::atomic<std::uint64_t> errors{0};
    std::atomic<int> longest{0};
};

template <class V>
int study(int pieces, const std::filesystem::path& dir, bool literal, const std::filesystem::path& out) {
    constexpr int N = V::board_size;
    std::vector<Material> targets;
    for (int n = 2; n <= pieces; ++n)
        for (const Material& m : canonical_materials(n)) targets.push_back(m);
    RuleSuccessors<V> held;
    std::set<Material> refused;
    double total_seconds = 0, write_seconds = 0;
    std::uint64_t total_positions = 0, rul_bytes = 0;
    if (!out.empty()) std::filesystem::create_directories(out / std::string(V::name));
    std::printf("material positions seconds | side: win cursed draw blessed loss longest-rule-win\n");
    for (const Material& c : build_order(targets)) {
        bool blocked = false;
        for (const Material& s : successors(c)) blocked |= refused.count(s) > 0;
        const auto start = std::chrono::steady_clock::now();
        std::shared_ptr<RuleValues> values;
        try {
            if (blocked) throw RulesRefused(c.name() + ": leads to a material the rules refuse");
            values = std::make_shared<RuleValues>(std::get<RuleValues>(RuleSolver<V>(c, held, literal).solve()));
        } catch (const RulesRefused& e) {
            refused.insert(c);
            std::printf("%s refused: %s\n", c.name().c_str(), e.what());
            continue;
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        total_seconds += seconds;
        total_positions += values->codes.size();
        const TableFile wld =
            TableFile::open(dir / std::string(V::name) / table_file_name(c, TableKind::wld), {V::name, c, TableKind::wld});
        const TableHeader& h = wld.header();
        const Index<N> own(c), mirror(c.mirrored());
        std::array<SideTally, 2> sides;
        const int limit = values->count.limit;
        tbb::parallel_for(std::uint64_t{0}, h.block_count(), [&](std::uint64_t b) {
            std::vector<std::byte> block(h.block_bytes(b));
            wld.read_block(b, block);
            const std::uint64_t first = b << h.block_shift;
            for (std::uint64_t k = 0; k < h.block_values(b); ++k) {
                const std::uint64_t g = first + k;
                if (draughts::has_capture<V>(table_position(own, mirror, g))) continue;
                const Wdl plain = wdl_of_wld_code(value_at(block, 2, k));
                const Value rule = value_of_rule_code(values->codes[g]);
                SideTally& t = sides[g < own.size() ? 0 : 1];
                int cls = 2;
                if (plain == Wdl::win) cls = rule.wdl == Wdl::win ? 0 : 1;
                if (plain == Wdl::loss) cls = rule.wdl == Wdl::loss ? 4 : 3;
                if (rule.wdl != Wdl::draw && rule.wdl != plain) ++t.errors;
                ++t.classes[cls];
                if (rule.wdl == Wdl::win) {
                    int seen = t.longest.load();
                    while (rule.plies > seen && !t.longest.compare_exchange_weak(seen, rule.plies)) {
                    }
                }
            }
        });
        std::printf("%s %llu %.2f (limit %d, %s%s)", c.name().c_str(), static_cast<unsigned long long>(values->codes.size()),
                    seconds, limit, std::string(values->count.article).c_str(), values->count.has_road() ? ", main road" : "");
        for (int s = 0; s < sides_of(c); ++s) {
            std::printf(" | %s:", s == 0 ? "white" : "black");
            for (const auto& n : sides[s].classes) std::printf(" %llu", static_cast<unsigned long long>(n.load()));
            std::printf(" %d", sides[s].longest.load());
            if (sides[s].errors) std::printf(" ERRORS %llu", static_cast<unsigned long long>(sides[s].errors.load()));
        }
        if (!out.empty()) {
            const auto begin = std::chrono::steady_clock::now();
            TableSpec spec;
            spec.variant = std::string(V::name);
            spec.board_size = N;
            spec.material = c;
            spec.positions_per_side = values->positions_per_side;
            const GoverningCount& g = values->count;
            const RuleRecord rules = rule_record<typename V::draw_rules>(g, literal);
            const WrittenTable w = write_rule_table(out / std::string(V::name), spec, rules, rule_file_source(*values));
            rul_bytes += w.bytes;
            write_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
            std::printf(" | .rul %llu bytes", static_cast<unsigned long long>(w.bytes));
        }
        std::printf("\n");
        std::fflush(stdout);
        held.add(values);
    }
    std::printf("solved %llu positions in %.1f s; %zu materials refused\n",
                static_cast<unsigned long long>(total_positions), total_seconds, refused.size());
    if (!out.empty())
        std::printf(".rul files: %llu bytes, %.1f positions a byte, written in %.1f s\n",
                    static_cast<unsigned long long>(rul_bytes),
                    static_cast<double>(total_positions) / static_cast<double>(rul_bytes), write_seconds);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: rule_study VARIANT PIECES DIR [literal]\n");
        return 2;
    }
    try {
        bool literal = false;
        std::filesystem::path out;
        for (int i = 4; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "literal")
                literal = true;
            else if (a.rfind("write=", 0) == 0)
                out = a.substr(6);
            else
                throw std::invalid_argument("unknown argument '" + a + "': use literal or write=OUT");
        }
        return draughts::with_variant(argv[1], [&]<class V>() { return study<V>(std::stoi(argv[2]), argv[3], literal, out); });
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rule_study: %s\n", e.what());
        return 1;
    }
}
