#include "builder/driver/material_job.hpp"

#include <csignal>
#include <cstdlib>

namespace dtb {

TableSpec table_spec(const BuildOptions& o, int board_size, const Material& m, std::uint64_t per_side,
                     std::uint32_t max_code) {
    TableSpec spec;
    spec.variant = o.variant;
    spec.board_size = board_size;
    spec.material = m;
    spec.positions_per_side = per_side;
    spec.block_shift = o.block_shift;
    spec.wld_compression_level = o.wld_compression_level;
    spec.dtw_compression_level = o.dtw_compression_level;
    spec.provenance = make_provenance(o.options);
    spec.max_code = max_code;
    return spec;
}

ValueSource value_source(const SolvedValues& values) {
    return [&values](std::uint64_t first, std::span<std::uint32_t> out) {
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i] = values.has_capture(first + i) ? dont_care : values.code(first + i);
    };
}

ManifestEntry count_values(const SolvedValues& v) {
    const ValueCounts c = count_wdl(v.codes.size(), [&](std::size_t i) { return value_of_dtw_code(v.codes[i]); });
    ManifestEntry e;
    e.material = v.material;
    e.positions = v.codes.size();
    e.wins = c.wins;
    e.draws = c.draws;
    e.losses = c.losses;
    e.longest_win = c.longest;
    return e;
}

void record_files(ManifestEntry& entry, const WrittenTables& written) {
    entry.wld_bytes = written.wld_bytes;
    entry.dtw_bytes = written.dtw_bytes;
    entry.wld_checksum = written.wld_checksum;
    entry.dtw_checksum = written.dtw_checksum;
}


void maybe_kill_after_write(const std::string& name) {
    const char* target = std::getenv("DTB_TEST_KILL_AFTER_WRITE");
    if (target && name == target) std::raise(SIGKILL);
}

void maybe_kill_after_write(const Material& m) { maybe_kill_after_write(m.name()); }

}  // namespace dtb
