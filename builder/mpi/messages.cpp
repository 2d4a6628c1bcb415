#include "builder/mpi/messages.hpp"

#include <nlohmann/json.hpp>

namespace dtb::mpi {

std::string to_text(const Assignment& a) {
    nlohmann::json whole = nlohmann::json::object(), shares = nlohmann::json::object();
    for (const auto& [m, rank] : a.holders.whole) whole[m.name()] = rank;
    for (const auto& [m, ranks] : a.holders.shares) shares[m.name()] = ranks;
    const auto names = [](const std::vector<Material>& materials) {
        std::vector<std::string> out;
        for (const Material& m : materials) out.push_back(m.name());
        return out;
    };
    return nlohmann::json{{"unit", a.unit},   {"material", a.material.name()}, {"rules", a.rules},
                          {"pack", a.pack},   {"team", a.team},                {"team_id", a.team_id},
                          {"holders", whole}, {"shares", shares},              {"unread", names(a.unread)},
                          {"unread_rules", names(a.unread_rules)}}
        .dump();
}

Assignment assignment_from_text(std::string_view text) {
    const nlohmann::json j = nlohmann::json::parse(text);
    Assignment a;
    a.unit = j.at("unit").get<int>();
    a.material = Material::parse(j.at("material").get<std::string>());
    a.rules = j.at("rules").get<bool>();
    a.pack = j.at("pack").get<bool>();
    a.team = j.at("team").get<std::vector<int>>();
    a.team_id = j.at("team_id").get<int>();
    for (const auto& item : j.at("holders").items())
        a.holders.whole[Material::parse(item.key())] = item.value().get<int>();
    for (const auto& item : j.at("shares").items())
        a.holders.shares[Material::parse(item.key())] = item.value().get<std::vector<int>>();
    for (const std::string& name : j.at("unread").get<std::vector<std::string>>())
        a.unread.push_back(Material::parse(name));
    for (const std::string& name : j.at("unread_rules").get<std::vector<std::string>>())
        a.unread_rules.push_back(Material::parse(name));
    return a;
}

std::string to_text(const Done& d) {
    return nlohmann::json{{"unit", d.unit},
                          {"entry", d.entry ? nlohmann::json(to_json(*d.entry)) : nlohmann::json(nullptr)}}
        .dump();
}

Done done_from_text(std::string_view text) {
    const nlohmann::json j = nlohmann::json::parse(text);
    Done d;
    d.unit = j.at("unit").get<int>();
    if (!j.at("entry").is_null()) d.entry = entry_from_json(j.at("entry").get<std::string>());
    return d;
}

}  // namespace dtb::mpi
