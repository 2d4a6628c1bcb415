// The C interface (dtb.h) over dtb::Tablebase: every exception becomes a
// status and a message kept per thread.
#include <cstring>
#include <new>
#include <string>

#include "dtb.h"
#include "dtb.hpp"
#include "draughts/notation.hpp"
#include "draughts/variant.hpp"

struct dtb_tablebase {
    dtb::Tablebase tablebase;
};

namespace {

thread_local std::string last_error;

dtb_status status_of(dtb::TableErrorKind kind) noexcept {
    switch (kind) {
        case dtb::TableErrorKind::missing: return DTB_MISSING_TABLE;
        case dtb::TableErrorKind::foreign: return DTB_WRONG_TABLE;
        case dtb::TableErrorKind::unsupported: return DTB_UNSUPPORTED_TABLE;
        case dtb::TableErrorKind::truncated: return DTB_TRUNCATED_TABLE;
        case dtb::TableErrorKind::corrupted: return DTB_CORRUPTED_TABLE;
        case dtb::TableErrorKind::io: return DTB_IO_ERROR;
    }
    return DTB_INTERNAL_ERROR;
}

dtb_status fail(dtb_status status, const char* message) noexcept {
    try {
        last_error = message;
    } catch (...) {
    }
    return status;
}

// Runs f, turning exceptions into statuses.
template <class F>
dtb_status guarded(F&& f) noexcept {
    try {
        f();
        last_error.clear();
        return DTB_OK;
    } catch (const dtb::TableError& e) {
        return fail(status_of(e.kind()), e.what());
    } catch (const dtb::PositionError& e) {
        return fail(DTB_ILLEGAL_POSITION, e.what());
    } catch (const dtb::CountError& e) {
        return fail(DTB_INVALID_COUNT, e.what());
    } catch (const dtb::RulesRefused& e) {
        return fail(DTB_RULES_REFUSED, e.what());
    } catch (const std::invalid_argument& e) {  // unknown variant, malformed FEN
        return fail(DTB_INVALID_ARGUMENT, e.what());
    } catch (const std::bad_alloc&) {
        return fail(DTB_OUT_OF_MEMORY, "out of memory");
    } catch (const std::exception& e) {
        return fail(DTB_INTERNAL_ERROR, e.what());
    } catch (...) {
        return fail(DTB_INTERNAL_ERROR, "unknown error");
    }
}

bool missing(const void* p, const char* name, dtb_status& status) noexcept {
    if (p) return false;
    status = fail(DTB_INVALID_ARGUMENT, (std::string(name) + " is a null pointer").c_str());
    return true;
}

dtb_value to_c(dtb::Value v) noexcept { return {static_cast<int>(v.wdl), v.plies}; }

const char* to_c(std::string_view article) noexcept { return article.empty() ? "" : article.data(); }

dtb_rule_value to_c(const dtb::RuleValue& v) noexcept {
    return {static_cast<int>(v.wdl), static_cast<int>(v.rule_class), to_c(v.distance), v.plies_left, to_c(v.article),
            to_c(v.road_article), to_c(v.dtw)};
}

// DTB_COUNT_UNSET is "not given"; any other negative count is refused by the probe.
dtb::RuleCounts from_c(const dtb_counts* c) {
    dtb::RuleCounts counts;
    if (!c) return counts;
    const auto one = [](int v) { return v == DTB_COUNT_UNSET ? std::optional<int>() : std::optional<int>(v); };
    counts.kings_only = one(c->kings_only);
    counts.ending = one(c->ending);
    counts.road = one(c->road);
    return counts;
}

dtb_counts to_c(const dtb::RuleCounts& c) noexcept {
    return {c.kings_only.value_or(DTB_COUNT_UNSET), c.ending.value_or(DTB_COUNT_UNSET),
            c.road.value_or(DTB_COUNT_UNSET)};
}

}  // namespace

extern "C" {

dtb_status dtb_open(const char* variant, const char* dir, size_t cache_bytes, dtb_tablebase** out) {
    dtb_status status = DTB_OK;
    if (missing(variant, "variant", status) || missing(dir, "dir", status) || missing(out, "out", status))
        return status;
    *out = nullptr;
    return guarded([&] {
        *out = new dtb_tablebase{dtb::Tablebase(variant, dir, cache_bytes ? cache_bytes : DTB_DEFAULT_CACHE_BYTES)};
    });
}

void dtb_close(dtb_tablebase* tb) { delete tb; }

int dtb_board_size(const dtb_tablebase* tb) { return tb ? tb->tablebase.board_size() : 0; }

dtb_status dtb_parse_fen(const dtb_tablebase* tb, const char* fen, dtb_position* out) {
    dtb_status status = DTB_OK;
    if (missing(tb, "tb", status) || missing(fen, "fen", status) || missing(out, "out", status)) return status;
    return guarded([&] { *out = tb->tablebase.parse_fen(fen); });
}

dtb_status dtb_to_fen(const dtb_tablebase* tb, const dtb_position* position, char* out, size_t size) {
    dtb_status status = DTB_OK;
    if (missing(tb, "tb", status) || missing(position, "position", status) || missing(out, "out", status))
        return status;
    return guarded([&] {
        const std::string fen = tb->tablebase.to_fen(*position);
        if (fen.size() + 1 > size)
            throw std::invalid_argument("the FEN needs " + std::to_string(fen.size() + 1) + " bytes, the buffer has " +
                                        std::to_string(size));
        std::memcpy(out, fen.c_str(), fen.size() + 1);
    });
}

dtb_status dtb_probe_wdl(const dtb_tablebase* tb, const dtb_position* position, dtb_wdl* out) {
    dtb_status status = DTB_OK;
    if (missing(tb, "tb", status) || missing(position, "position", status) || missing(out, "out", status))
        return status;
    return guarded([&] { *out = static_cast<dtb_wdl>(tb->tablebase.wdl(*position)); });
}

dtb_status dtb_probe_dtw(const dtb_tablebase* tb, const dtb_position* position, dtb_value* out) {
    dtb_status status = DTB_OK;
    if (missing(tb, "tb", status) || missing(position, "position", status) || missing(out, "out", status))
        return status;
    return guarded([&] { *out = to_c(tb->tablebase.value(*position)); });
}

dtb_status dtb_best_move(const dtb_tablebase* tb, const dtb_position* position, dtb_move* move, int* has_move,
                         dtb_value* value) {
    dtb_status status = DTB_OK;
    if (missing(tb, "tb", status) || missing(position, "position", status) || missing(move, "move", status) ||
        missing(has_move, "has_move", status) || missing(value, "value", status))
        return status;
    return guarded([&] {
        const auto best = tb->tablebase.best_move(*position);
        *has_move = best.has_value();
        if (best) {
            *move = best->move;
            *value = to_c(best->value);
        } else {
            *value = to_c(dtb::Value::loss(0));
        }
    });
}

dtb_status dtb_best_line(const dtb_tablebase* tb, const dtb_position* position, dtb_move* moves, size_t capacity,
                         size_t* count) {
    dtb_status status = DTB_OK;
    if (missing(tb, "tb", status) || missing(position, "position", status) || missing(count, "count", status) ||
        (capacity > 0 && missing(moves, "moves", status)))
        return status;
    return guarded([&] {
        const auto line = tb->tablebase.best_line(*position);
        *count = line.size();
        for (std::size_t i = 0; i < line.size() && i < capacity; ++i) moves[i] = line[i];
    });
}

dtb_status dtb_probe_rules(const dtb_tablebase* tb, const dtb_position* position, const dtb_counts* counts,
                           dtb_rule_value* out) {
    dtb_status status = DTB_OK;
    if (missing(tb, "tb", status) || missing(position, "position", status) || missing(out, "out", status))
        return status;
    return guarded([&] { *out = to_c(tb->tablebase.rule_value(*position, from_c(counts))); });
}

dtb_status dtb_best_move_rules(const dtb_tablebase* tb, const dtb_position* position, const dtb_counts* counts,
                               dtb_move* move, int* has_move, dtb_counts* counts_after, dtb_rule_value* after) {
    dtb_status status = DTB_OK;
    if (missing(tb, "tb", status) || missing(position, "position", status) || missing(move, "move", status) ||
        missing(has_move, "has_move", status) || missing(counts_after, "counts_after", status) ||
        missing(after, "after", status))
        return status;
    return guarded([&] {
        const auto best = tb->tablebase.rule_best_move(*position, from_c(counts));
        *has_move = best.has_value();
        if (!best) return;
        *move = best->move;
        *counts_after = to_c(best->counts);
        *after = to_c(best->after);
    });
}

const char* dtb_last_error(void) { return last_error.c_str(); }

const char* dtb_status_name(dtb_status status) {
    switch (status) {
        case DTB_OK: return "ok";
        case DTB_MISSING_TABLE: return "missing table";
        case DTB_WRONG_TABLE: return "wrong table";
        case DTB_UNSUPPORTED_TABLE: return "unsupported table";
        case DTB_TRUNCATED_TABLE: return "truncated table";
        case DTB_CORRUPTED_TABLE: return "corrupted table";
        case DTB_IO_ERROR: return "unreadable table";
        case DTB_INVALID_ARGUMENT: return "invalid argument";
        case DTB_ILLEGAL_POSITION: return "illegal position";
        case DTB_OUT_OF_MEMORY: return "out of memory";
        case DTB_INTERNAL_ERROR: return "internal error";
        case DTB_INVALID_COUNT: return "invalid count";
        case DTB_RULES_REFUSED: return "rules refused";
    }
    return "unknown status";
}

const char* dtb_version(void) { return DTB_VERSION; }

}  // extern "C"

std::string_view dtb::version() noexcept { return DTB_VERSION; }
