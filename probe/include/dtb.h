/* dtb.h: the C interface of libdtb-probe, the draughts endgame tablebase
 * prober (docs/probing.md). Usable from C, C++ and any language with a C
 * foreign-function interface.
 *
 * Squares are numbered as in PDN (1 at the top left dark square as White sees
 * the board, up to 32, 50 or 72). A set of squares is two 64-bit words: bit
 * s-1 of words[0] is square s for s <= 64, bit s-65 of words[1] is square s
 * for s > 64.
 *
 * Values are for the side to move: win, draw or loss, and the distance to the
 * end of the game in plies (odd for a win, even for a loss, 0 for a draw).
 *
 * Every function returns DTB_OK or an error status; dtb_last_error() then
 * gives a message naming the problem (and the file) for the calling thread.
 * A dtb_tablebase may be used from many threads at once. */
#ifndef DTB_H
#define DTB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dtb_status {
    DTB_OK = 0,
    DTB_MISSING_TABLE = 1,     /* a table needed is not in the directory */
    DTB_WRONG_TABLE = 2,       /* a file of another variant, material or kind, or not a table */
    DTB_UNSUPPORTED_TABLE = 3, /* written by a later version of dtb */
    DTB_TRUNCATED_TABLE = 4,
    DTB_CORRUPTED_TABLE = 5,   /* a checksum or a structural check failed */
    DTB_IO_ERROR = 6,
    DTB_INVALID_ARGUMENT = 7,  /* unknown variant, malformed FEN, null pointer */
    DTB_ILLEGAL_POSITION = 8,  /* a position no table can hold */
    DTB_OUT_OF_MEMORY = 9,
    DTB_INTERNAL_ERROR = 10,
    DTB_INVALID_COUNT = 11,    /* a count of the game that cannot be, or that the position does not have */
    DTB_RULES_REFUSED = 12     /* a material whose value under the draw rules needs two counts: no table */
} dtb_status;

typedef enum dtb_wdl { DTB_LOSS = -1, DTB_DRAW = 0, DTB_WIN = 1 } dtb_wdl;

typedef struct dtb_position {
    uint64_t white[2]; /* White's pieces (men and kings) */
    uint64_t black[2];
    uint64_t kings[2]; /* which of the pieces are kings */
    int white_to_move; /* 1: White to move, 0: Black to move */
} dtb_position;

typedef struct dtb_value {
    int wdl;   /* a dtb_wdl */
    int plies; /* distance to the end in plies; 0 for a draw */
} dtb_value;

typedef struct dtb_move {
    int from;            /* PDN square numbers */
    int to;
    uint64_t captured[2]; /* the squares of the pieces taken */
    int promotes;        /* 1 if a man is crowned */
    char text[256];      /* the move in PDN: 32-28, 28x19 or the full path when needed */
} dtb_move;

/* The counts of a game in progress under the move-count draw rules
 * (docs/rules.md), in plies; DTB_COUNT_UNSET: the count starts now. */
#define DTB_COUNT_UNSET (-1)
typedef struct dtb_counts {
    int kings_only; /* K: since the last man move or capture */
    int ending;     /* E: since the current lone-king ending arose */
    int road;       /* T: Russian, since the lone king first stood alone on the main road in it */
} dtb_counts;

/* The value under the rules against the plain value. */
typedef enum dtb_rule_class {
    DTB_CLASS_LOSS = -2,
    DTB_CLASS_BLESSED_LOSS = -1, /* lost with perfect play, drawn by the count */
    DTB_CLASS_DRAW = 0,
    DTB_CLASS_CURSED_WIN = 1,    /* won with perfect play, drawn by the count */
    DTB_CLASS_WIN = 2
} dtb_rule_class;

typedef struct dtb_rule_value {
    int wdl;              /* a dtb_wdl: under the rules, at the counts given */
    int rule_class;       /* a dtb_rule_class */
    dtb_value distance;   /* the rule distance: won (lost) while at most plies_left */
    int plies_left;       /* left on the governing count */
    const char* article;      /* the rule of the governing count (static storage) */
    const char* road_article; /* Russian 7.2.7 when the main-road count runs too, else "" */
    dtb_value dtw;        /* the plain value */
} dtb_rule_value;

typedef struct dtb_tablebase dtb_tablebase;

/* Default memory limit of the block cache: 64 MiB. */
#define DTB_DEFAULT_CACHE_BYTES ((size_t)64 << 20)

/* Opens the tables of `variant` (american, brazilian, international,
 * canadian, russian) in DIR/variant. Tables are opened on first use.
 * cache_bytes limits the decompressed blocks kept (0: the default). */
dtb_status dtb_open(const char* variant, const char* dir, size_t cache_bytes, dtb_tablebase** out);
void dtb_close(dtb_tablebase* tb);

/* The board size of the variant (8, 10 or 12) and its number of squares. */
int dtb_board_size(const dtb_tablebase* tb);

/* Reads a PDN FEN such as "W:W31,32,K45:B1,2,K3" into a position. */
dtb_status dtb_parse_fen(const dtb_tablebase* tb, const char* fen, dtb_position* out);
/* Writes the FEN of a position; `size` bytes at most, with the final zero. */
dtb_status dtb_to_fen(const dtb_tablebase* tb, const dtb_position* position, char* out, size_t size);

/* Win, draw or loss only: reads the smaller .wld tables when they are there. */
dtb_status dtb_probe_wdl(const dtb_tablebase* tb, const dtb_position* position, dtb_wdl* out);
/* Win, draw or loss and the distance (the .dtw tables). */
dtb_status dtb_probe_dtw(const dtb_tablebase* tb, const dtb_position* position, dtb_value* out);

/* The best move (quickest win, a draw, slowest loss) and the value of the
 * position. *has_move is 0 when the side to move has no legal move (a loss
 * in 0), and `move` is then untouched. */
dtb_status dtb_best_move(const dtb_tablebase* tb, const dtb_position* position, dtb_move* move, int* has_move,
                         dtb_value* value);

/* The moves of perfect play to the end of a won or lost game (a draw: one
 * move that keeps it), written into moves[0..capacity-1]; *count is the
 * length of the line, which may exceed capacity. */
dtb_status dtb_best_line(const dtb_tablebase* tb, const dtb_position* position, dtb_move* moves, size_t capacity,
                         size_t* count);

/* Under the move-count draw rules, from the .rul tables: the value at the
 * counts of the game in progress (NULL: every count starts now). */
dtb_status dtb_probe_rules(const dtb_tablebase* tb, const dtb_position* position, const dtb_counts* counts,
                           dtb_rule_value* out);
/* The move that keeps the value under the rules (a win inside the count),
 * the counts after it and the value after it (for the side to move then).
 * *has_move is 0 when there is no legal move or the count has drawn the game. */
dtb_status dtb_best_move_rules(const dtb_tablebase* tb, const dtb_position* position, const dtb_counts* counts,
                               dtb_move* move, int* has_move, dtb_counts* counts_after, dtb_rule_value* after);

/* The message of the last error of the calling thread ("" after success). */
const char* dtb_last_error(void);
/* A short name of a status: "missing table", "corrupted table", ... */
const char* dtb_status_name(dtb_status status);

/* The version of the library that is running, "MAJOR.MINOR.PATCH" (static
 * storage). Programs built against another major version may not load it. */
const char* dtb_version(void);

#ifdef __cplusplus
}
#endif

#endif /* DTB_H */
