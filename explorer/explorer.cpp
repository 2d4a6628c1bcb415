#include "explorer/explorer.hpp"

#include <algorithm>
#include <future>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "draughts/movegen.hpp"
#include "draughts/notation.hpp"
#include "draughts/variant.hpp"
#include "explorer/material_stats.hpp"
#include "probe/errors.hpp"
#include "probe/prober.hpp"
#include "probe/rule_prober.hpp"

namespace dtb::explorer {

namespace {

using Json = nlohmann::ordered_json;

// A request that cannot be answered: the status, what to tell the visitor,
// and what to tell the operator (the server's log) when there is more to say.
struct Refusal : std::runtime_error {
    Refusal(int status, const std::string& what, std::string log = {})
        : std::runtime_error(what), status(status), log(std::move(log)) {}
    int status;
    std::string log;
};

Json value_json(Json j, Value v) {
    j["value"] = v.wdl == Wdl::win ? "win" : v.wdl == Wdl::loss ? "loss" : "draw";
    j["plies"] = v.wdl == Wdl::draw ? Json() : Json(v.plies);
    return j;
}

// Runs `answer`, turning what it throws into the reply the API gives: the
// visitor is told what is wrong with the request or that the server lacks a
// table; the files, their faults and the commands that build them go to the
// operator's log.
template <class F>
Reply guarded(F&& answer) {
    const auto refuse = [](int status, const std::string& what, std::string log = {}) {
        return Reply{status, Json{{"error", what}}, std::move(log)};
    };
    try {
        return Reply{200, answer(), {}};
    } catch (const Refusal& e) {
        return refuse(e.status, e.what(), e.log);
    } catch (const TableError& e) {
        const std::string table = e.file().filename().string();
        if (e.kind() == TableErrorKind::missing)
            return refuse(404, "this server has no table of " + e.file().stem().string() +
                                   (e.file().extension() == ".rul" ? " under the draw rules" : ""),
                          e.what());
        return refuse(500, "a table of this server cannot be read (" + table + ": " + std::string(to_string(e.kind())) +
                               "); its operator's log says more",
                      e.what());
    } catch (const RulesRefused& e) {  // a material without rule tables
        return refuse(400, e.what());
    } catch (const std::invalid_argument& e) {  // FEN, position, material, variant
        return refuse(400, e.what());
    } catch (const std::exception& e) {
        return refuse(500, "the server failed on this request; its operator's log says why", e.what());
    }
}

// A value under the rules (RuleValue) with the counts it was taken at.
Json rule_json(const RuleValue& r, const RuleCounts& counts) {
    Json j = value_json({{"counts", to_string(counts)}}, Value{r.wdl, r.wdl == Wdl::draw ? 0 : r.distance.plies});
    j["class"] = to_string(r.rule_class);
    j["distance"] = value_json(Json::object(), r.distance);
    j["plies_left"] = r.plies_left;
    j["rule"] = r.article;
    if (!r.road_article.empty()) j["road_rule"] = r.road_article;
    return j;
}

}  // namespace

struct Explorer::Variant {
    virtual ~Variant() = default;
    virtual Json probe(std::string_view fen, const std::optional<std::string>& counts) const = 0;
    virtual Json stats(const Material& m, bool rules) const = 0;
    virtual Json describe() const = 0;
};

namespace {

template <class V>
class VariantOf final : public Explorer::Variant {
public:
    static constexpr int N = V::board_size;
    using Position = draughts::Position<N>;

    explicit VariantOf(const std::filesystem::path& dir) : prober_(dir), rules_(prober_) {}

    Json probe(std::string_view fen, const std::optional<std::string>& count_text) const override {
        const Position p = draughts::parse_fen<N>(fen);
        const Value value = prober_.value(p);
        // Under the rules: the value at the counts given, and each move's
        // counts after it and value there (none once the count has drawn the game).
        std::optional<RuleCounts> counts;
        std::optional<RuleValue> ruled;
        if (count_text) {
            counts = parse_counts(*count_text);
            ruled = rules_.value(p, *counts);
        }
        struct Entry {
            Value before;  // for the side to move in p
            Json json;
        };
        std::vector<Entry> entries;
        if (p.pieces(p.side_to_move) != 0) {
            draughts::MoveList<N> moves;
            draughts::generate_moves<V>(p, moves);
            for (const auto& m : moves) {
                Position child = p;
                draughts::make_move(child, m);
                const Value after = prober_.value(child);
                Json json = value_json({{"move", draughts::move_to_text<V>(p, m)}, {"fen", draughts::to_fen(child)}},
                                       after);
                if (ruled && ruled->plies_left > 0) {
                    const RuleCounts next = rules_.counts_after(p, m, *counts);
                    json["rules"] = rule_json(rules_.value(child, next), next);
                }
                entries.push_back({before_move(after), std::move(json)});
            }
        }
        std::stable_sort(entries.begin(), entries.end(),
                         [](const Entry& a, const Entry& b) { return preferred(a.before, b.before); });
        Json moves = Json::array();
        for (Entry& e : entries) moves.push_back(std::move(e.json));
        Json j = value_json({{"variant", V::name}, {"fen", draughts::to_fen(p)}}, value);
        if (ruled) j["rules"] = rule_json(*ruled, *counts);
        j["moves"] = std::move(moves);
        return j;
    }

    Json stats(const Material& m, bool rules) const override {
        if (prober_.tables().find(m).slot < 0)
            throw Refusal(404, "this server has no table of " + m.canonical().name(),
                          "no table of " + m.canonical().name() + " in " + prober_.tables().directory().string() +
                              " (build it with " + prober_.tables().build_command(m) + ")");
        const std::string key = (rules ? "rules " : "") + m.name();
        std::shared_future<Json> result;
        std::promise<Json> mine;
        {
            const std::lock_guard lock(mutex_);
            auto [at, inserted] = stats_.try_emplace(key);
            if (inserted) at->second = mine.get_future().share();
            else result = at->second;
        }
        if (result.valid()) return result.get();  // computed, or being computed by another request
        try {
            Json j = rules ? rule_stats_json<N>(V::name, rule_material_stats(prober_, rules_, m))
                           : stats_json<N>(V::name, material_stats(prober_, m), true);
            mine.set_value(j);
            return j;
        } catch (...) {
            mine.set_exception(std::current_exception());
            const std::lock_guard lock(mutex_);
            stats_.erase(key);  // asked again, it is tried again
            throw;
        }
    }

    Json describe() const override {
        Json materials = Json::array();
        for (const Material& m : prober_.tables().materials()) materials.push_back(m.name());
        return {{"name", V::name},
                {"board_size", N},
                {"first_to_move", V::first_to_move == draughts::Color::white ? "white" : "black"},
                {"materials", std::move(materials)},
                {"counts", counts()}};
    }

    // The counts of the game the variant's draw rules keep (docs/rules.md):
    // [{"name" (K, E, T), "meaning", "rules": [{"limit" (plies), "article"}]}].
    static Json counts() {
        using Rules = typename V::draw_rules;
        const auto count = [](const char* name, const char* meaning, const auto& rules) {
            Json list = Json::array();
            for (const auto& r : rules) list.push_back({{"limit", r.limit}, {"article", r.article}});
            return Json{{"name", name}, {"meaning", meaning}, {"rules", std::move(list)}};
        };
        Json all = Json::array();
        all.push_back(count("K", "plies since the last man move or capture", std::array{Rules::kings_only}));
        if (!Rules::lone_king.empty())
            all.push_back(count("E", "plies since the current ending of one king against a few pieces arose",
                                Rules::lone_king));
        if (!Rules::main_road.empty())
            all.push_back(count("T", "plies since the lone king first stood alone on the main road (the long diagonal)",
                                Rules::main_road));
        return all;
    }

private:
    Prober<V> prober_;
    RuleProber<V> rules_;
    mutable std::mutex mutex_;
    mutable std::map<std::string, std::shared_future<Json>> stats_;
};

constexpr const char* variant_names[] = {"american", "brazilian", "international", "canadian", "russian"};

}  // namespace

Explorer::Explorer(const std::filesystem::path& dir) : dir_(dir) {
    for (const char* name : variant_names) {
        std::error_code error;
        if (!std::filesystem::is_directory(dir / name, error)) continue;
        draughts::with_variant(name, [&]<class V>() { variants_.emplace(name, std::make_unique<VariantOf<V>>(dir)); });
    }
    if (variants_.empty())
        throw std::runtime_error("no tables in " + dir.string() +
                                 ": it should hold a folder per variant (american, brazilian, international, canadian, "
                                 "russian), as dtb build --dir makes");
}

Explorer::~Explorer() = default;

std::vector<std::string> Explorer::variants() const {
    std::vector<std::string> names;
    for (const auto& [name, v] : variants_) names.push_back(name);
    return names;
}

const Explorer::Variant* Explorer::find(std::string_view variant) const {
    // The canonical name (english and checkers are american); an unknown one throws.
    const std::string_view name = draughts::with_variant(variant, []<class V>() { return V::name; });
    const auto at = variants_.find(name);
    if (at == variants_.end())
        throw Refusal(404, fmt::format("this server has no tables of variant {} (it has {})", name,
                                       fmt::join(variants(), ", ")),
                      "no tables of variant " + std::string(name) + " in " + dir_.string() +
                          " (build those of up to 4 pieces with " + build_command(name, dir_, "--pieces 4") + ")");
    return at->second.get();
}

Reply Explorer::probe(std::string_view variant, std::string_view fen, const std::optional<std::string>& counts) const {
    return guarded([&] { return find(variant)->probe(fen, counts); });
}

Reply Explorer::stats(std::string_view variant, std::string_view material, bool rules) const {
    return guarded([&] { return find(variant)->stats(Material::parse(material), rules); });
}

Reply Explorer::variant_list() const {
    return guarded([&] {
        Json list = Json::array();
        for (const auto& [name, v] : variants_) list.push_back(v->describe());
        return Json{{"variants", std::move(list)}};
    });
}

}  // namespace dtb::explorer
