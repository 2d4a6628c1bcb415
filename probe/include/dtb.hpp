// dtb.hpp: the C++ interface of libdtb-probe (docs/probing.md). The variant is
// chosen at run time and positions are dtb_position (square sets in PDN
// numbering, dtb.h); engines built on dtb's own draughts/ types can use
// probe/prober.hpp, templated on the variant, instead.
//
// Errors are exceptions: dtb::TableError (missing, wrong, truncated or
// corrupted table, with the file's name), dtb::PositionError (a position no
// table can hold), std::invalid_argument (unknown variant, malformed FEN);
// under the draw rules also dtb::CountError (a count that cannot be, naming
// it) and dtb::RulesRefused (a material no rule table is built for).
// One Tablebase may be used from many threads at once.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dtb.h"
#include "probe/block_cache.hpp"
#include "probe/errors.hpp"
#include "probe/material.hpp"
#include "probe/rule_value.hpp"
#include "probe/value.hpp"

namespace dtb {

// The version of the library that is running, "MAJOR.MINOR.PATCH" (dtb_version()).
std::string_view version() noexcept;

class Tablebase {
public:
    struct BestMove {
        dtb_move move;
        Value value;  // of the position before the move
    };

    // The tables of `variant` in DIR/variant; each table opens on first use.
    Tablebase(std::string_view variant, const std::filesystem::path& dir,
              std::size_t cache_bytes = DTB_DEFAULT_CACHE_BYTES);
    Tablebase(Tablebase&&) noexcept;
    Tablebase& operator=(Tablebase&&) noexcept;
    ~Tablebase();

    const std::string& variant() const noexcept;
    int board_size() const noexcept;
    // The canonical materials whose tables are in the directory.
    const std::vector<Material>& materials() const noexcept;

    dtb_position parse_fen(std::string_view fen) const;
    std::string to_fen(const dtb_position& p) const;

    Wdl wdl(const dtb_position& p) const;
    Value value(const dtb_position& p) const;
    // None when the side to move has no legal move.
    std::optional<BestMove> best_move(const dtb_position& p) const;
    // Perfect play to the end of a won or lost game; for a draw, one move.
    std::vector<dtb_move> best_line(const dtb_position& p) const;

    // Under the move-count draw rules (docs/rules.md), from the .rul tables
    // beside the plain ones: the value at the counts of the game in
    // progress (a count not given starts now).
    RuleValue rule_value(const dtb_position& p, const RuleCounts& counts = {}) const;
    struct RuleBestMove {
        dtb_move move;
        RuleCounts counts;  // after the move
        RuleValue after;    // of the position after it, for its side to move
    };
    // The move that keeps the value under the rules (a win inside the
    // count); none when there is no legal move or the count has drawn the game.
    std::optional<RuleBestMove> rule_best_move(const dtb_position& p, const RuleCounts& counts = {}) const;

    BlockCache::Stats cache_stats() const;

    class Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace dtb
