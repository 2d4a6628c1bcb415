// `dtb info`: what a material is made of before anything is built: positions
// per side to move, men configurations, potential levels and the materials it
// leads to (docs/design.md, "Materials, index, symmetry", "Solver").
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

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
};

template <int N>
MaterialInfo describe(const Material& m) {
    const Index<N> index(m);
    return {m, index.size(), index.men_configurations(), PotentialLevels<N>(m).levels().size(), successors(m)};
}

nlohmann::json to_json(std::string_view variant, const MaterialInfo& info) {
    std::vector<std::string> names;
    for (const Material& s : info.successors) names.push_back(s.name());
    return {{"variant", variant},
            {"material", info.material.name()},
            {"positions_per_side", info.positions_per_side},
            {"men_configurations", info.men_configurations},
            {"potential_levels", info.potential_levels},
            {"successors", names}};
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
        const MaterialInfo info = describe<n>(m);
        if (o.json) {
            fmt::print("{}\n", to_json(V::name, info).dump());
            return;
        }
        fmt::print("{} {} ({}x{} board)\n", V::name, m.name(), n, n);
        if (!m.is_canonical()) fmt::print("stored as: {} (colours swapped, board turned)\n", m.canonical().name());
        fmt::print("positions per side to move: {}\nmen configurations: {}\npotential levels: {}\nleads to: {}\n",
                   info.positions_per_side, info.men_configurations, info.potential_levels, successor_list(info));
        return;
    }
    std::vector<MaterialInfo> infos;
    for (const Material& m : canonical_materials(o.pieces)) infos.push_back(describe<n>(m));
    if (o.json) {
        nlohmann::json array = nlohmann::json::array();
        for (const auto& info : infos) array.push_back(to_json(V::name, info));
        fmt::print("{}\n", array.dump());
        return;
    }
    fmt::print("{} materials of {} pieces ({}x{} board)\n", V::name, o.pieces, n, n);
    fmt::print("{:<14} {:>20} {:>16} {:>7}  {}\n", "material", "positions/side", "men configs", "levels", "leads to");
    std::uint64_t total = 0, men = 0;
    for (const auto& info : infos) {
        fmt::print("{:<14} {:>20} {:>16} {:>7}  {}\n", info.material.name(), info.positions_per_side,
                   info.men_configurations, info.potential_levels, successor_list(info));
        total += info.positions_per_side;
        men += info.men_configurations;
    }
    fmt::print("total: {} materials, {} positions per side to move, {} men configurations\n", infos.size(), total,
               men);
}

}  // namespace

void run_info(const InfoOptions& o) {
    draughts::with_variant(o.variant, [&]<class V>() { info_in<V>(o); });
}

}  // namespace dtb::cli
