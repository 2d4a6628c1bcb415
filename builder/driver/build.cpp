#include "builder/driver/build_of.hpp"

#include "draughts/variant.hpp"

namespace dtb {

std::uint64_t default_memory_bytes() { return physical_memory() / 3; }

std::vector<Material> materials_up_to(int pieces) {
    std::vector<Material> result;
    for (int n = 2; n <= pieces; ++n) {
        const auto some = canonical_materials(n);
        result.insert(result.end(), some.begin(), some.end());
    }
    return result;
}

template BuildReport build_tables_of<draughts::American>(const BuildOptions&);
template BuildReport build_tables_of<draughts::Brazilian>(const BuildOptions&);
template BuildReport build_tables_of<draughts::International>(const BuildOptions&);
template BuildReport build_tables_of<draughts::Canadian>(const BuildOptions&);
template BuildReport build_tables_of<draughts::Russian>(const BuildOptions&);

BuildReport build_tables(const BuildOptions& options) {
    return draughts::with_variant(options.variant, [&]<class V>() { return build_tables_of<V>(options); });
}

}  // namespace dtb
