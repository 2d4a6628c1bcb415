#include "builder/output/convert.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <stdexcept>
#include <span>
#include <vector>

#include "builder/output/manifest.hpp"
#include "builder/output/table_writer.hpp"
#include "draughts/movegen.hpp"
#include "draughts/variant.hpp"
#include "probe/errors.hpp"
#include "probe/index.hpp"
#include "probe/prober.hpp"
#include "probe/table_file.hpp"
#include "probe/wld_reader.hpp"
#include "probe/value.hpp"

namespace dtb {
namespace {

// The values of `file`, a table of version 1 (every position stored), as
// the writer takes them: the codes of its value arrays in turn (of a .wld,
// a code of each result), capture positions dont_care (the file holds
// fillers there).
template <class V>
ValueSource values_of(const TableFile& file) {
    constexpr int N = V::board_size;
    const TableHeader& h = file.header();
    const Index<N> own(h.material), mirror(h.material.mirrored());
    const std::uint64_t per_array = static_cast<std::uint64_t>(h.sides) * h.positions_per_side;
    return [&file, own, mirror, per_array](std::uint64_t first, std::span<std::uint32_t> out) {
        const TableHeader& h = file.header();
        std::vector<std::byte> raw;
        std::optional<std::uint64_t> loaded;
        for (std::size_t i = 0; i < out.size(); ++i) {
            const std::uint64_t g = first + i;
            const TableHeader::Place at = h.place_of(g);
            if (at.block != loaded) {
                raw.resize(h.block_bytes(at.block));
                file.read_block(at.block, raw);
                loaded = at.block;
            }
            const bool capture = draughts::has_capture<V>(table_position(own, mirror, g % per_array));
            const std::uint32_t v = value_at(raw, h.value_bits, at.k);
            // A .wld's result as a code of that result (value.hpp: even a win, odd a loss).
            const std::uint32_t code = h.kind != TableKind::wld ? v
                                       : v == wld_code(Wdl::win)  ? 2
                                       : v == wld_code(Wdl::loss) ? 1
                                       : v == wld_code(Wdl::draw) ? 0
                                                                  : throw TableError(TableErrorKind::corrupted, file.path(),
                                                                                     "position " + std::to_string(g) +
                                                                                         " holds the value never written");
            out[i] = capture ? dont_care : code;
        }
    };
}

// The results of a .wld of version 3 or 4 (placement order) as the writer
// takes them, read by table position g: through a WldReader in version 3,
// through `prober` in version 4, whose search finds the positions the
// file leaves out. Capture positions dont_care.
template <class V>
ValueSource paired_values_of(const TableFile& file, const Prober<V>& prober) {
    constexpr int N = V::board_size;
    const TableHeader& h = file.header();
    const Index<N> own(h.material), mirror(h.material.mirrored());
    return [&file, &prober, own, mirror](std::uint64_t first, std::span<std::uint32_t> out) {
        std::optional<WldReader> reader;
        if (!file.header().compact()) reader.emplace(file);
        for (std::size_t i = 0; i < out.size(); ++i) {
            const std::uint64_t g = first + i;
            const draughts::Position<N> p = table_position(own, mirror, g);
            if (draughts::has_capture<V>(p)) {
                out[i] = dont_care;
                continue;
            }
            const Wdl wdl = reader ? reader->wdl(g) : prober.wdl(p);
            // A result as a code of that result (value.hpp: even a win, odd a loss).
            out[i] = wdl == Wdl::win ? 2 : wdl == Wdl::loss ? 1 : 0;
        }
    };
}

// The table spec that writes `h`'s table again in the current format.
TableSpec spec_of(const TableHeader& h, const ConvertOptions& o) {
    TableSpec spec = table_spec_of(h);
    spec.dtw_compression_level = o.dtw_compression_level;
    spec.wld_compression_level = o.wld_compression_level;
    spec.rul_compression_level = o.rul_compression_level;
    // The width of the old file's values: a code of 8 bits stays one.
    spec.max_code = h.value_bits == 8 ? 255 : max_dtw_code;
    return spec;
}

template <class V>
ConvertReport run_convert(const ConvertOptions& o, const std::function<void(const ConvertedFile&)>& each) {
    const std::filesystem::path directory = o.dir / std::string(V::name);
    if (!std::filesystem::is_directory(directory))
        throw TableError(TableErrorKind::missing, directory,
                         "no tables directory (the tables of " + std::string(V::name) + " are in DIR/" +
                             std::string(V::name) + ": give the --dir of the build)");
    std::set<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
        const auto ext = entry.path().extension();
        if (ext != ".dtw" && ext != ".rul" && ext != ".wld") continue;
        if (!o.material.empty() && entry.path().stem() != Material::parse(o.material).canonical().name()) continue;
        files.insert(entry.path());
    }
    if (files.empty())
        throw TableError(TableErrorKind::missing, directory,
                         (o.material.empty() ? "no .wld, .dtw or .rul tables" : "no .wld, .dtw or .rul table of " + o.material) +
                             std::string(" to convert (dtb build writes them)"));
    const std::filesystem::path manifest_file = directory / Manifest::file_name;
    Manifest manifest = Manifest::load(manifest_file, std::string(V::name));
    const Prober<V> prober(o.dir);  // a compact .wld's positions left out
    ConvertReport report;
    for (const std::filesystem::path& path : files) {
        const TableKind kind = path.extension() == ".dtw" ? TableKind::dtw
                               : path.extension() == ".rul" ? TableKind::rul
                                                            : TableKind::wld;
        const Material m = Material::parse(path.stem().string());
        if (m != m.canonical())
            throw TableError(TableErrorKind::foreign, path, "the name is not a canonical material's table");
        ConvertedFile done{path, false, std::filesystem::file_size(path), 0};
        std::optional<TableFile> old(TableFile::open(path, {std::string_view(V::name), m, kind}));
        done.version_before = done.version_after = old->header().version;
        // The version to write, and whether the file has it already: a .dtw
        // or .rul of 2; a .wld of the one asked for, else of dtb build's or
        // newer (a compact one stays compact unless --full-wld asks).
        const std::uint32_t version = old->header().version;
        const std::uint32_t current = kind != TableKind::wld ? 2 : o.wld_version.value_or(TableSpec{}.wld_version);
        const bool kept = kind == TableKind::wld && o.wld_version ? version == current : version >= current;
        if (kept) {
            done.bytes_after = done.bytes_before;
            ++report.current;
            each(done);
            continue;
        }
        TableSpec spec = spec_of(old->header(), o);
        done.version_after = current;
        WrittenTable written;
        if (kind == TableKind::wld) {
            spec.wld_version = current;
            written = write_wld_table(directory, spec, version == 1 ? values_of<V>(*old) : paired_values_of<V>(*old, prober));
        } else {
            // Format 2 leaves the draws to the .wld, which must be there and whole.
            const std::filesystem::path wld = directory / table_file_name(m, TableKind::wld);
            try {
                (void)TableFile::open(wld, {std::string_view(V::name), m, TableKind::wld});
            } catch (const TableError& e) {
                throw std::runtime_error(std::string(e.what()) + " (a " + path.extension().string().substr(1) +
                                         " of format 2 leaves its draws to the .wld: put " + m.name() +
                                         ".wld beside it, or leave " + path.filename().string() + " in format 1)");
            }
            if (kind == TableKind::dtw) {
                spec.dtw_version = 2;
                written = write_dtw_table(directory, spec, values_of<V>(*old));
            } else {
                spec.rul_version = 2;
                written = write_rule_table(directory, spec, old->header().rules, values_of<V>(*old));
            }
        }
        old.reset();
        if (const ManifestEntry* listed = manifest.find(m)) {
            ManifestEntry e = *listed;
            if (kind == TableKind::wld) {
                e.wld_bytes = written.bytes;
                e.wld_checksum = written.checksum;
            } else if (kind == TableKind::dtw) {
                e.dtw_bytes = written.bytes;
                e.dtw_checksum = written.checksum;
            } else if (e.rules) {
                e.rules->bytes = written.bytes;
                e.rules->checksum = written.checksum;
            }
            manifest.put(e);
            manifest.save(manifest_file);
        }
        done.converted = true;
        done.bytes_after = written.bytes;
        ++report.converted;
        report.bytes_before += done.bytes_before;
        report.bytes_after += done.bytes_after;
        each(done);
    }
    return report;
}

}  // namespace

ConvertReport convert_tables(const std::string& variant, const ConvertOptions& options,
                             const std::function<void(const ConvertedFile&)>& each) {
    ConvertReport report;
    draughts::with_variant(variant, [&]<class V>() { report = run_convert<V>(options, each); });
    return report;
}

}  // namespace dtb
