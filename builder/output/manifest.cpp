#include "builder/output/manifest.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <utility>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "builder/output/replaced_file.hpp"

namespace dtb {

namespace {

constexpr const char* format_name = "dtb-manifest";
constexpr int manifest_version = 1;

std::string hex(std::uint64_t v) { return fmt::format("{:016x}", v); }

std::uint64_t from_hex(const std::string& s) {
    std::size_t used = 0;
    const std::uint64_t v = std::stoull(s, &used, 16);
    if (used != s.size() || s.size() != 16) throw std::invalid_argument("not 16 hexadecimal digits: " + s);
    return v;
}

ManifestEntry parse_entry(const nlohmann::json& t) {
    ManifestEntry e;
    e.material = Material::parse(t.at("material").get<std::string>());
    if (!e.material.is_canonical()) throw std::invalid_argument(e.material.name() + " is not canonical");
    e.positions = t.at("positions").get<std::uint64_t>();
    e.wld_bytes = t.at("wld").at("bytes").get<std::uint64_t>();
    e.wld_checksum = from_hex(t.at("wld").at("checksum").get<std::string>());
    e.dtw_bytes = t.at("dtw").at("bytes").get<std::uint64_t>();
    e.dtw_checksum = from_hex(t.at("dtw").at("checksum").get<std::string>());
    e.wins = t.at("wins").get<std::uint64_t>();
    e.draws = t.at("draws").get<std::uint64_t>();
    e.losses = t.at("losses").get<std::uint64_t>();
    e.longest_win = t.at("longest_win").is_null() ? -1 : t.at("longest_win").get<int>();
    e.seconds = t.at("seconds").get<double>();
    if (t.contains("rul")) {
        const nlohmann::json& r = t.at("rul");
        RuleEntry rules;
        rules.bytes = r.at("bytes").get<std::uint64_t>();
        rules.checksum = from_hex(r.at("checksum").get<std::string>());
        rules.profile = r.at("profile").get<std::string>();
        rules.limit = r.at("limit").get<int>();
        rules.road_limit = r.at("road_limit").get<int>();
        rules.literal_road = r.at("literal_road").get<bool>();
        rules.wins = r.at("wins").get<std::uint64_t>();
        rules.draws = r.at("draws").get<std::uint64_t>();
        rules.losses = r.at("losses").get<std::uint64_t>();
        rules.longest_win = r.at("longest_win").is_null() ? -1 : r.at("longest_win").get<int>();
        rules.seconds = r.at("seconds").get<double>();
        e.rules = rules;
    }
    return e;
}

nlohmann::ordered_json optional_plies(int plies) {
    return plies < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(plies);
}

nlohmann::ordered_json entry_json(const ManifestEntry& e) {
    const std::string name = e.material.name();
    nlohmann::ordered_json j = {{"material", name},
            {"positions", e.positions},
            {"wld", {{"file", name + ".wld"}, {"bytes", e.wld_bytes}, {"checksum", hex(e.wld_checksum)}}},
            {"dtw", {{"file", name + ".dtw"}, {"bytes", e.dtw_bytes}, {"checksum", hex(e.dtw_checksum)}}},
            {"wins", e.wins},
            {"draws", e.draws},
            {"losses", e.losses},
            {"longest_win", optional_plies(e.longest_win)},
            {"seconds", e.seconds}};
    if (const auto& r = e.rules)
        j["rul"] = {{"file", name + ".rul"},  {"bytes", r->bytes},
                    {"checksum", hex(r->checksum)}, {"profile", r->profile},
                    {"limit", r->limit},           {"road_limit", r->road_limit},
                    {"literal_road", r->literal_road}, {"wins", r->wins},
                    {"draws", r->draws},           {"losses", r->losses},
                    {"longest_win", optional_plies(r->longest_win)}, {"seconds", r->seconds}};
    return j;
}

}  // namespace

std::string to_json(const ManifestEntry& e) { return entry_json(e).dump(); }

ManifestEntry entry_from_json(std::string_view text) {
    try {
        return parse_entry(nlohmann::json::parse(text));
    } catch (const std::exception& e) {
        throw std::invalid_argument(std::string("not a manifest entry (") + e.what() + ")");
    }
}

Manifest Manifest::load(const std::filesystem::path& file, const std::string& variant) {
    Manifest m;
    m.variant_ = variant;
    std::ifstream in(file);
    if (!in) {
        if (!std::filesystem::exists(file)) return m;
        throw std::runtime_error("cannot read " + file.string() + ": " + std::strerror(errno));
    }
    try {
        const nlohmann::json j = nlohmann::json::parse(in);
        if (j.at("format") != format_name || j.at("version") != manifest_version)
            throw std::invalid_argument("not a version 1 dtb manifest");
        if (j.at("variant") != variant)
            throw std::invalid_argument("it lists " + j.at("variant").get<std::string>() + " tables, not " + variant);
        for (const auto& t : j.at("tables")) m.put(parse_entry(t));
    } catch (const std::exception& e) {  // json errors, MaterialError, the checks above
        throw std::runtime_error("the manifest " + file.string() + " is damaged (" + e.what() +
                                 "): remove it and run dtb build again; tables whose files hold are rebuilt, "
                                 "the manifest with them");
    }
    return m;
}

const ManifestEntry* Manifest::find(const Material& m) const {
    const auto it = entries_.find(m.name());
    return it == entries_.end() ? nullptr : &it->second;
}

void Manifest::save(const std::filesystem::path& file) const {
    nlohmann::ordered_json tables = nlohmann::ordered_json::array();
    for (const auto& [name, e] : entries_) tables.push_back(entry_json(e));
    const nlohmann::ordered_json j = {
        {"format", format_name}, {"version", manifest_version}, {"variant", variant_}, {"tables", tables}};
    replace_file(file, j.dump(1) + "\n");
}

}  // namespace dtb
