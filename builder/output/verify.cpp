#include "builder/output/verify.hpp"

#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/core.h>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include "draughts/variant.hpp"
#include "probe/prober.hpp"
#include "probe/rule_prober.hpp"

namespace dtb {

namespace {

// Every position g of table `slot` (both sides to move) without a capture,
// in parallel, given to `check(p, g)`, which describes p if its stored value
// disagrees with its moves (else an empty string). Returns how many
// disagree; one of them is described in `first`.
template <class V, class Check>
std::uint64_t disagreements(const Prober<V>& prober, int slot, std::string& first, Check&& check) {
    constexpr int N = V::board_size;
    const Material m = prober.tables().materials()[slot];
    const Index<N> own(m), mirror(m.mirrored());
    const std::uint64_t size = static_cast<std::uint64_t>(sides_of(m)) * own.size();
    std::atomic<std::uint64_t> wrong{0};
    std::mutex first_mutex;
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, size, 4096), [&](const tbb::blocked_range<std::uint64_t>& r) {
        for (std::uint64_t g = r.begin(); g != r.end(); ++g) {
            const draughts::Position<N> p = table_position(own, mirror, g);
            if (draughts::has_capture<V>(p)) continue;  // stored as a filler
            std::string wrong_here = check(p, g);
            if (wrong_here.empty() || wrong++ != 0) continue;
            const std::lock_guard lock(first_mutex);
            first = std::move(wrong_here);
        }
    });
    return wrong;
}

// The forward check of one table: every stored value (both files) of a
// position without a capture against the best over its moves. Returns the
// number of positions that disagree; the first is described in `first`.
template <class V>
std::uint64_t check_values(const Prober<V>& prober, int slot, std::string& first) {
    using Position = draughts::Position<V::board_size>;
    const TableSet& tables = prober.tables();
    const TableHeader& dtw = tables.file(slot, TableKind::dtw).header();
    return disagreements(prober, slot, first, [&](const Position& p, std::uint64_t g) {
        const Value best = prober.from_moves(p);
        const Wdl stored_wdl = prober.stored_wdl(p);
        // A .dtw of version 2 holds no draw and one side to move: the other
        // side is checked by its .wld, its distances being those its moves
        // into the stored side give.
        std::optional<Value> stored;
        if (!dtw.draws_left_out() || (stored_wdl != Wdl::draw && dtw.stores(g)))
            stored = value_of_dtw_code(tables.stored_dtw_code(slot, g));
        if ((!stored || *stored == best) && stored_wdl == best.wdl) return std::string();
        return fmt::format("{} (position {}): the .dtw file holds {}, the .wld file {}, its moves give {}",
                           draughts::to_fen(p), g, stored ? to_string(*stored) : std::string("no value"),
                           stored_wdl == Wdl::win ? "win" : stored_wdl == Wdl::loss ? "loss" : "draw", to_string(best));
    });
}

// The same check of a .rul table: every stored rule distance of a position
// without a capture against the one its moves give (RuleProber::searched);
// with a main road, each array under its own count, and positions with the
// lone king alone on the road before it holding their value after it.
template <class V>
std::uint64_t check_rule_values(const Prober<V>& prober, int slot, std::string& first) {
    using Position = draughts::Position<V::board_size>;
    const TableSet& tables = prober.tables();
    const RuleProber<V> rules(prober);
    const TableHeader& h = tables.file(slot, TableKind::rul).header();
    const bool literal = h.rules.literal_road != 0;
    const std::uint64_t size = h.positions() / static_cast<std::uint64_t>(h.rules.arrays());
    std::uint64_t wrong = 0;
    for (int array = 0; array < h.rules.arrays(); ++array) {
        const bool after_road = array == 1;
        std::string first_here;
        wrong += disagreements(prober, slot, first_here, [&](const Position& p, std::uint64_t g) {
            const bool on_road = !after_road && h.rules.road_limit > 0 && lone_king_on_road(p, literal);
            const Value expected = on_road ? rules.distance(p, true) : rules.searched(p, after_road);
            // Version 2 holds no draw of the .wld and may hold one side to
            // move: the other is checked against the .wld, which the rules
            // may turn into a draw but never into the other side's win.
            std::optional<Wdl> plain;
            if (h.draws_left_out()) plain = prober.stored_wdl(p);
            std::optional<Value> stored;
            if (!plain || (*plain != Wdl::draw && h.stores(array * size + g)))
                stored = value_of_rule_code(tables.stored_rule_code(slot, array * size + g));
            else if (*plain == Wdl::draw)
                stored = Value::draw();
            if (stored ? *stored == expected : expected.wdl == Wdl::draw || expected.wdl == *plain) return std::string();
            return fmt::format("{} (position {}{}): the .rul file holds {}{}, its moves give {}", draughts::to_fen(p), g,
                               after_road ? ", after the main road" : "",
                               stored ? to_string(*stored) : std::string("no value"),
                               !plain                 ? std::string()
                               : *plain == Wdl::win   ? std::string(", the .wld file win")
                               : *plain == Wdl::loss  ? std::string(", the .wld file loss")
                                                      : std::string(", the .wld file draw"),
                               to_string(expected));
        });
        if (first.empty()) first = std::move(first_here);
    }
    return wrong;
}

template <class V>
VerifyReport run_verify(const VerifyOptions& o, const std::function<void(const TableCheck&)>& each) {
    const Prober<V> prober(o.dir);
    const TableSet& tables = prober.tables();
    // Every file that looks like a table, so that a misnamed one is reported too.
    std::set<std::filesystem::path> files;
    if (o.material.empty()) {
        for (const auto& entry : std::filesystem::directory_iterator(tables.directory())) {
            const auto ext = entry.path().extension();
            if (ext == ".wld" || ext == ".dtw" || ext == ".rul") files.insert(entry.path());
        }
        if (files.empty())
            throw std::runtime_error("no tables (*.wld, *.dtw, *.rul) in " + tables.directory().string());
    } else {
        const Material m = Material::parse(o.material).canonical();
        for (TableKind kind : {TableKind::wld, TableKind::dtw}) files.insert(tables.path_of(m, kind));
        if (std::filesystem::exists(tables.path_of(m, TableKind::rul))) files.insert(tables.path_of(m, TableKind::rul));
    }
    int failed = 0;
    for (const auto& path : files) {
        try {
            const TableKind kind = path.extension() == ".wld"   ? TableKind::wld
                                   : path.extension() == ".dtw" ? TableKind::dtw
                                                                : TableKind::rul;
            const auto found = tables.find(Material::parse(path.stem().string()));
            if (found.slot < 0 || found.mirrored || tables.path_of(tables.materials()[found.slot], kind) != path) {
                if (std::filesystem::exists(path))
                    throw TableError(TableErrorKind::foreign, path, "the name is not a canonical material's table");
                throw TableError(TableErrorKind::missing, path, "no such file");
            }
            const TableFile& file = tables.file(found.slot, kind);
            file.verify();
            each({true, fmt::format("{} ({} blocks, {} positions)", path.string(), file.header().block_count(),
                                    file.header().positions())});
        } catch (const std::exception& e) {  // TableError, or MaterialError for a misnamed file
            ++failed;
            each({false, e.what()});
        }
    }
    std::uint64_t checked = 0;
    if (o.full && failed == 0) {
        std::optional<tbb::global_control> threads;
        if (o.threads > 0)
            threads.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(o.threads));
        for (int slot = 0; slot < static_cast<int>(tables.materials().size()); ++slot) {
            const Material& m = tables.materials()[slot];
            if (!o.material.empty() && m != Material::parse(o.material).canonical()) continue;
            for (const bool under_rules : {false, true}) {
                if (under_rules && !tables.has(slot, TableKind::rul)) continue;
                const std::string what = under_rules ? m.name() + ".rul" : m.name();
                std::string first;
                std::uint64_t wrong = 0;
                try {
                    wrong = under_rules ? check_rule_values(prober, slot, first) : check_values(prober, slot, first);
                } catch (const std::exception& e) {  // a table it leads to is missing or damaged
                    wrong = 1;
                    first = e.what();
                }
                checked += 1;
                if (wrong == 0) {
                    each({true, what + ": every value is the best over its moves"});
                } else {
                    ++failed;
                    each({false, fmt::format("{}: {} positions disagree with their moves; first {}", what, wrong, first)});
                }
            }
        }
    }
    return {files.size(), checked, failed};
}

}  // namespace

VerifyReport verify_tables(const std::string& variant, const VerifyOptions& options,
                           const std::function<void(const TableCheck&)>& each) {
    VerifyReport report;
    draughts::with_variant(variant, [&]<class V>() { report = run_verify<V>(options, each); });
    return report;
}

}  // namespace dtb
