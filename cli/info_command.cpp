// `dtb info`: what a material is made of before anything is built: positions
// per side to move, men configurations, potential levels, the materials it
// leads to, and the least memory one process solves it in (docs/design.md,
// "Materials, index, symmetry", "Solver", "Levels in memory").
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "builder/driver/material_job.hpp"
#include "cli/commands.hpp"
#include "draughts/variant.hpp"
#include "probe/index.hpp"
#include "probe/potential.hpp"

namespace dtb::cli {

namespace {

struct MaterialInfo {
    Material material;
    std::uint64_t positions_per_side;
    std::uint64_t men_configurations;
    std::size_t potential_levels;
    std::vector<Material> successors;
    WorkingSet working;  // one big pair at a time, whole or by levels: the least `dtb build --memory`
};

template <class V>
MaterialInfo describe(const Material& m) {
    constexpr int N = V::board_size;
    const Index<N> index(m);
    return {m,
            index.size(),
            index.men_configurations(),
            PotentialLevels<N>(m).levels().size(),
            successors(m),
            plain_working_set<V>(m.canonical(), 1, 0, SolverOptions{})};
}

bool by_levels(const WorkingSet& w) { return w.options.levels_from_positions == 0; }

// A working set as people read it: MiB (or bytes below one), and how it is held.
std::string working_text(const WorkingSet& w) {
    const std::string size = w.bytes < (1 << 20) ? fmt::format("{} bytes", w.bytes)
                                                 : fmt::format("{:.1f} MiB", mib_rounded_up(w.bytes));
    return size + (by_levels(w) ? " (a level at a time)" : " (whole)");
}

nlohmann::json to_json(std::string_view variant, const MaterialInfo& info) {
    std::vector<std::string> names;
    for (const Material& s : info.successors) names.push_back(s.name());
    return {{"variant", variant},
            {"material", info.material.name()},
            {"positions_per_side", info.positions_per_side},
            {"men_configurations", info.men_configurations},
            {"potential_levels", info.potential_levels},
            {"successors", names},
            {"working_set_bytes", info.working.bytes},
            {"working_set_by_levels", by_levels(info.working)}};
}

std::string successor_list(const MaterialInfo& info) {
    std::string text;
    for (const Material& s : info.successors) {
        if (!text.empty()) text += ' ';
        text += s.name();
    }
    return text.empty() ? "-" : text;
}

template <class V>
void info_in(const InfoOptions& o) {
    constexpr int n = V::board_size;
    if (!o.material.empty()) {
        const Material m = Material::parse(o.material);
        const MaterialInfo info = describe<V>(m);
        if (o.json) {
            fmt::print("{}\n", to_json(V::name, info).dump());
            return;
        }
        fmt::print("{} {} ({}x{} board)\n", V::name, m.name(), n, n);
        if (!m.is_canonical()) fmt::print("stored as: {} (colours swapped, board turned)\n", m.canonical().name());
        fmt::print("positions per side to move: {}\nmen configurations: {}\npotential levels: {}\nleads to: {}\n",
                   info.positions_per_side, info.men_configurations, info.potential_levels, successor_list(info));
        fmt::print("working set: {}, the least dtb build --memory for it\n", working_text(info.working));
        return;
    }
    std::vector<MaterialInfo> infos;
    for (const Material& m : canonical_materials(o.pieces)) infos.push_back(describe<V>(m));
    if (o.json) {
        nlohmann::json array = nlohmann::json::array();
        for (const auto& info : infos) array.push_back(to_json(V::name, info));
        fmt::print("{}\n", array.dump());
        return;
    }
    fmt::print("{} materials of {} pieces ({}x{} board)\n", V::name, o.pieces, n, n);
    fmt::print("{:<14} {:>20} {:>16} {:>7} {:>16}  {}\n", "material", "positions/side", "men configs", "levels",
               "working set MiB", "leads to");
    std::uint64_t total = 0, men = 0;
    const MaterialInfo* largest = nullptr;
    for (const auto& info : infos) {
        fmt::print("{:<14} {:>20} {:>16} {:>7} {:>14.1f}{:>2}  {}\n", info.material.name(), info.positions_per_side,
                   info.men_configurations, info.potential_levels,
                   mib_rounded_up(info.working.bytes), by_levels(info.working) ? " L" : "",
                   successor_list(info));
        total += info.positions_per_side;
        men += info.men_configurations;
        if (!largest || info.working.bytes > largest->working.bytes) largest = &info;
    }
    fmt::print("total: {} materials, {} positions per side to move, {} men configurations (L: a level at a time)\n",
               infos.size(), total, men);
    if (largest)
        fmt::print("largest working set: {}, {}: the least dtb build --memory for these materials\n",
                   working_text(largest->working), largest->material.name());
}

}  // namespace

void run_info(const InfoOptions& o) {
    draughts::with_variant(o.variant, [&]<class V>() { info_in<V>(o); });
}

}  // namespace dtb::cli
