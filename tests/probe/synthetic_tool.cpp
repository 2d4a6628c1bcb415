// A helper of the command-line tests (tests/cli/tables_cli.cmake), built on
// synthetic_tables.hpp:
//   synthetic_tool write VARIANT DIR MATERIAL...   tables of the materials and all they lead to, in DIR/VARIANT
//   synthetic_tool expect VARIANT FEN              the value the tables must give (win N, loss N, draw)
//   synthetic_tool stats VARIANT MATERIAL          counts per side to move, as `dtb stats` prints them
//   synthetic_tool flip FILE OFFSET                inverts one byte of a file
//   synthetic_tool alter VARIANT DIR MATERIAL      rewrites MATERIAL's tables, valid checksums and all, with
//                                                  the first stored win two plies longer
//   synthetic_tool rul VARIANT DIR MATERIAL [V]    a .rul of MATERIAL with codes made up (a fuzzing seed), of
//                                                  format version V (default 1; 2: the draws of the .wld in
//                                                  DIR, one side to move)
//   synthetic_tool true VARIANT DIR V MATERIAL...  the true tables (tests/probe/brute_force.hpp), .dtw of
//                                                  format V (1 or 2) with a .wld of format 1 or 3, or with
//                                                  V 4 a .dtw of format 2 and a compact .wld, of the
//                                                  materials and all they lead to
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "draughts/notation.hpp"
#include "draughts/variant.hpp"
#include "probe/prober.hpp"
#include "tests/probe/brute_force.hpp"
#include "tests/probe/synthetic_tables.hpp"

namespace {

using namespace dtb;

std::string text(const test::Score& s) {
    if (s.wdl == 0) return "draw";
    return (s.wdl > 0 ? "win " : "loss ") + std::to_string(s.plies);
}

template <class V>
void stats(const Material& m) {
    constexpr int N = V::board_size;
    const Index<N> own(m), mirror(m.mirrored());
    for (int side = 0; side < 2; ++side) {
        const Index<N>& index = side == 0 ? own : mirror;
        std::uint64_t win = 0, draw = 0, loss = 0, at_max = 0;
        int max_win = -1;
        std::string example;
        for (std::uint64_t i = 0; i < index.size(); ++i) {
            auto p = index.unrank(i);
            if (side == 1) p = p.flipped();
            const test::Score s = test::expected_score<V>(p);
            win += s.wdl > 0;
            draw += s.wdl == 0;
            loss += s.wdl < 0;
            if (s.wdl > 0 && s.plies > max_win) {
                max_win = s.plies;
                at_max = 0;
                example = draughts::to_fen(p);
            }
            at_max += s.wdl > 0 && s.plies == max_win;
        }
        std::printf("%s %llu %llu %llu %d %llu %s\n", side == 0 ? "white" : "black",
                    static_cast<unsigned long long>(win), static_cast<unsigned long long>(draw),
                    static_cast<unsigned long long>(loss), max_win, static_cast<unsigned long long>(at_max),
                    example.c_str());
    }
}

// A table whose files hold but whose values do not: only a check of the
// values against the moves (dtb verify --full) can tell.
template <class V>
void alter(const std::filesystem::path& dir, const Material& m) {
    const Prober<V> prober(dir);
    const TableSet& tables = prober.tables();
    const int slot = tables.find(m).slot;
    if (slot < 0) throw std::runtime_error("no table of " + m.name());
    const TableHeader& h = tables.file(slot, TableKind::dtw).header();
    const Index<V::board_size> own(m), mirror(m.mirrored());
    std::vector<std::uint32_t> codes(h.positions());
    for (std::uint64_t g = 0; g < codes.size(); ++g) {
        const draughts::Position<V::board_size> p = table_position(own, mirror, g);
        codes[g] = draughts::has_capture<V>(p) ? dont_care : dtw_code(prober.value(p));
    }
    // The first win of each side to move, so that the .dtw keeps one
    // whichever side it stores.
    const auto is_win = [](std::uint32_t c) { return c != dont_care && c != 0 && c % 2 == 0; };
    const auto half = codes.begin() + static_cast<std::ptrdiff_t>(h.positions_per_side);
    const auto won = std::find_if(codes.begin(), half, is_win);
    if (won == half) throw std::runtime_error(m.name() + " has no win to alter");
    *won += 2;
    if (const auto other = std::find_if(half, codes.end(), is_win); other != codes.end()) *other += 2;
    write_tables(tables.directory(), table_spec_of(h), [&](std::uint64_t first, std::span<std::uint32_t> out) {
        std::copy_n(codes.begin() + static_cast<std::ptrdiff_t>(first), out.size(), out.begin());
    });
    std::printf("altered position %llu of %s\n", static_cast<unsigned long long>(won - codes.begin()),
                m.name().c_str());
}

int run(const std::vector<std::string>& args) {
    const std::string& command = args.at(0);
    if (command == "flip") {
        std::fstream f(args.at(1), std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(std::stoll(args.at(2)));
        char c = 0;
        f.get(c);
        f.seekp(std::stoll(args.at(2)));
        f.put(static_cast<char>(~c));
        return f ? 0 : 1;
    }
    return draughts::with_variant(args.at(1), [&]<class V>() {
        if (command == "write") {
            std::vector<Material> targets;
            for (std::size_t i = 3; i < args.size(); ++i) targets.push_back(Material::parse(args[i]));
            const auto dir = std::filesystem::path(args.at(2)) / std::string(V::name);
            std::filesystem::create_directories(dir);
            for (const Material& m : build_order(targets)) test::write_synthetic_tables<V>(dir, m);
        } else if (command == "expect") {
            std::printf("%s\n", text(test::expected_score<V>(draughts::parse_fen<V::board_size>(args.at(2)))).c_str());
        } else if (command == "rul") {
            const Material m = Material::parse(args.at(3));
            const auto dir = std::filesystem::path(args.at(2)) / std::string(V::name);
            std::filesystem::create_directories(dir);
            const Index<V::board_size> own(m), mirror(m.mirrored());
            const RuleRecord rules{std::string(V::draw_rules::profile), 0, V::draw_rules::kings_only.limit, 0, 0};
            TableSpec spec = test::test_table_spec<V>(m, 10);
            spec.rul_version = args.size() > 4 ? static_cast<std::uint32_t>(std::stoul(args[4])) : 1;
            std::optional<Prober<V>> plain;  // format 2 leaves the .wld's draws to it: they must be draws
            if (spec.rul_version >= 2) plain.emplace(dir.parent_path());
            write_rule_table(dir, spec, rules, [&](std::uint64_t first, std::span<std::uint32_t> out) {
                for (std::size_t i = 0; i < out.size(); ++i) {
                    const auto p = table_position(own, mirror, first + i);
                    const bool capture = draughts::has_capture<V>(p);
                    out[i] = plain && capture                       ? dont_care
                             : plain && plain->wdl(p) == Wdl::draw ? rule_code(Value::draw())
                                                                   : test::synthetic_code(p) % 200;
                }
            });
        } else if (command == "true") {
            std::vector<Material> targets;
            for (std::size_t i = 4; i < args.size(); ++i) targets.push_back(Material::parse(args[i]));
            const auto version = static_cast<std::uint32_t>(std::stoul(args.at(3)));
            // 1: every file of format 1; 2: .dtw of format 2, .wld of 3; 4: the same with a compact .wld.
            test::write_true_tables(test::BruteForce<V>(targets), targets, args.at(2), version == 1 ? 1 : 2,
                                    version == 1 ? 1 : version == 4 ? 4 : 3);
        } else if (command == "alter") {
            alter<V>(args.at(2), Material::parse(args.at(3)));
        } else if (command == "stats") {
            stats<V>(Material::parse(args.at(2)));
        } else {
            return 2;
        }
        return 0;
    });
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "synthetic_tool: %s\n", e.what());
        return 1;
    }
}
