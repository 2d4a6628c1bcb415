// The explorer's answers (issue 16), apart from HTTP so that they can be
// tested and reused: the value of a position with every move and its value,
// and a material's statistics with its distances by number. One Explorer
// serves every variant whose tables are in its directory, from many threads
// at once (the probe library's cache is thread safe).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dtb::explorer {

// An answer: the HTTP status and the JSON body. A failed request has status
// 400 (404 for a table or variant that is not there, 500 for a fault) and
// body {"error": "..."}, a message for the visitor: it names no file of the
// server and no command. What the operator needs (the file, the error, the
// `dtb build` that makes a missing table) is in `log`, for the server's log.
struct Reply {
    int status = 200;
    nlohmann::ordered_json body;
    std::string log;  // empty when there is nothing for the operator
};

class Explorer {
public:
    // Opens the tables of every variant that has a folder in `dir`. Throws
    // std::runtime_error if there is none.
    explicit Explorer(const std::filesystem::path& dir);
    ~Explorer();
    Explorer(const Explorer&) = delete;
    Explorer& operator=(const Explorer&) = delete;

    // The variants served, by their names, and the directory.
    std::vector<std::string> variants() const;
    const std::filesystem::path& directory() const noexcept { return dir_; }

    // {"variant", "fen" (normalised), "value" ("win", "draw", "loss" for the
    // side to move), "plies" (null for a draw), "moves": [{"move", "fen",
    // "value", "plies"}, ...]}: every legal move, best first (the order of
    // move generation among equals), with the value of the position after it
    // for the side to move there. With `counts` ("K=12,E=3", "" for counts
    // from now), also under the move-count draw rules (docs/rules.md):
    // "rules": {"counts", "value", "plies", "class" (win, cursed win, draw,
    // blessed loss, loss), "distance": {"value", "plies"}, "plies_left",
    // "rule", "road_rule"}, and each move's "rules" with the counts after it
    // (none once the count has drawn the game).
    Reply probe(std::string_view variant, std::string_view fen,
                const std::optional<std::string>& counts = std::nullopt) const;

    // The object of `dtb stats --json` with each side's "histogram": {"win":
    // [[plies, positions], ...], "loss": [...]}; with `rules`, that of `dtb
    // stats --rules --json`. Computed once per material (every position
    // probed) and kept.
    Reply stats(std::string_view variant, std::string_view material, bool rules = false) const;

    // {"variants": [{"name", "board_size", "materials": [...]}]}: what is served.
    Reply variant_list() const;

    struct Variant;  // one variant's tables (explorer.cpp)

private:
    const Variant* find(std::string_view variant) const;

    std::filesystem::path dir_;
    std::map<std::string, std::unique_ptr<Variant>, std::less<>> variants_;
};

}  // namespace dtb::explorer
