// What a probe under the move-count draw rules takes and answers
// (docs/rules.md, docs/probing.md): the counts of a game in progress, and
// the value at those counts with its five-class label against the plain
// value. The variant-free half, shared by probe/rule_prober.hpp and dtb.hpp.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "probe/errors.hpp"
#include "probe/value.hpp"

namespace dtb {

// The counts of a game in progress, in plies. A count not given starts now
// (the position just arose), so the default is a fresh ending.
struct RuleCounts {
    std::optional<int> kings_only;  // K: since the last man move or capture
    std::optional<int> ending;      // E: since the current lone-king ending arose
    std::optional<int> road;        // T: Russian, since the lone king first stood alone on the main road in it
};

// "K=12,E=3,T=0" (any of them, in any order; empty: none given) as counts.
// Throws CountError naming the count, or std::invalid_argument for text that
// is not a list of counts.
inline RuleCounts parse_counts(std::string_view text) {
    RuleCounts counts;
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        if (item.size() < 3 || item[1] != '=')
            throw std::invalid_argument("count '" + std::string(item) +
                                        "' is not NAME=PLIES: give K=12,E=3,T=0 (K plies since the last man move or "
                                        "capture, E since the lone-king ending arose, T since the lone king stood on "
                                        "the main road)");
        std::optional<int>* into = item[0] == 'K' ? &counts.kings_only
                                   : item[0] == 'E' ? &counts.ending
                                   : item[0] == 'T' ? &counts.road
                                                    : nullptr;
        if (!into)
            throw std::invalid_argument("unknown count '" + std::string(1, item[0]) +
                                        "': the counts are K (kings only), E (the lone-king ending) and T (the main road)");
        if (*into) throw CountError(item[0], std::string(1, item[0]) + " is given twice");
        const std::string_view digits = item.substr(2);
        int v = 0;
        const bool negative = !digits.empty() && digits[0] == '-';
        const auto [end, error] = std::from_chars(digits.data() + negative, digits.data() + digits.size(), v);
        if (error != std::errc() || end != digits.data() + digits.size() || digits.size() == std::size_t(negative))
            throw CountError(item[0], std::string(item) + ": the count must be a whole number of plies");
        *into = negative ? -v : v;
    }
    return counts;
}

// "K=12,E=3" (the counts given), or "" for none.
inline std::string to_string(const RuleCounts& c) {
    std::string text;
    for (const auto& [name, v] : {std::pair{'K', c.kings_only}, {'E', c.ending}, {'T', c.road}})
        if (v) text += (text.empty() ? "" : ",") + std::string(1, name) + "=" + std::to_string(*v);
    return text;
}

// The value under the rules against the plain value (DTW's win, draw, loss).
enum class RuleClass : std::int8_t {
    loss = -2,
    blessed_loss = -1,  // lost with perfect play, drawn by the count
    draw = 0,
    cursed_win = 1,  // won with perfect play, drawn by the count
    win = 2,
};

constexpr std::string_view to_string(RuleClass c) noexcept {
    switch (c) {
        case RuleClass::loss: return "loss";
        case RuleClass::blessed_loss: return "blessed loss";
        case RuleClass::draw: return "draw";
        case RuleClass::cursed_win: return "cursed win";
        case RuleClass::win: return "win";
    }
    return "?";
}

constexpr RuleClass rule_class(Wdl plain, Wdl under_rules) noexcept {
    if (plain == Wdl::draw) return RuleClass::draw;
    if (plain == Wdl::win) return under_rules == Wdl::win ? RuleClass::win : RuleClass::cursed_win;
    return under_rules == Wdl::loss ? RuleClass::loss : RuleClass::blessed_loss;
}

struct RuleValue {
    Wdl wdl = Wdl::draw;  // under the rules, at the counts given
    RuleClass rule_class = RuleClass::draw;  // dtb_rule_value::rule_class in C
    // The rule distance: won (lost) while it is at most plies_left, else drawn;
    // a draw whatever the count.
    Value distance;
    int plies_left = 0;         // left on the governing count
    std::string_view article;   // the rule of the governing count
    std::string_view road_article;  // Russian 7.2.7 when the main-road count runs too; else empty
    Value dtw;                  // the plain value
};

}  // namespace dtb
