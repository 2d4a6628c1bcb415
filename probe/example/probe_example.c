/* An engine-side example of the C API (dtb.h): opens the tables, probes a
 * position given as a FEN, prints its value, the best move and the best line.
 *
 *   probe_example VARIANT DIR FEN
 *
 * Built against the installed library by the test suite (tests/install). */
#include <dtb.h>
#include <stdio.h>

static void print_value(dtb_value v) {
    if (v.wdl == DTB_DRAW)
        printf("draw\n");
    else
        printf("%s %d\n", v.wdl == DTB_WIN ? "win" : "loss", v.plies);
}

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s VARIANT DIR FEN\n", argv[0]);
        return 2;
    }
    printf("libdtb-probe %s\n", dtb_version());
    dtb_tablebase* tb = NULL;
    dtb_status s = dtb_open(argv[1], argv[2], 16u << 20, &tb);
    if (s != DTB_OK) {
        fprintf(stderr, "%s: %s\n", dtb_status_name(s), dtb_last_error());
        return 1;
    }
    dtb_position position;
    dtb_wdl wdl;
    dtb_value value, after_best;
    dtb_move best;
    int has_move = 0;
    if ((s = dtb_parse_fen(tb, argv[3], &position)) != DTB_OK ||
        (s = dtb_probe_wdl(tb, &position, &wdl)) != DTB_OK ||
        (s = dtb_probe_dtw(tb, &position, &value)) != DTB_OK ||
        (s = dtb_best_move(tb, &position, &best, &has_move, &after_best)) != DTB_OK) {
        fprintf(stderr, "%s: %s\n", dtb_status_name(s), dtb_last_error());
        dtb_close(tb);
        return 1;
    }
    if (wdl != value.wdl) {
        fprintf(stderr, "the .wld and .dtw tables disagree\n");
        dtb_close(tb);
        return 1;
    }
    if (has_move) printf("best move: %s\n", best.text);
    print_value(value);
    dtb_close(tb);
    return 0;
}
