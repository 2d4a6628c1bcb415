#!/usr/bin/env python3
"""A set's values under the move-count draw rules in Markdown (docs/results.md,
docs/sets/rules_*.md): per material and side to move the five classes with
the count from zero (every legal placement, capture positions with the value
of their best capture), the longest rule distance of a win and a position of
it, the governing count, and the .rul file's bytes; then the set's totals and
the materials where a rule changes a value at count zero. From the set's
manifest (written by `dtb build --rules`) and the JSON of `dtb stats --rules
--json`, one object per line.

    scripts/rule_set_report.py DIR/VARIANT/manifest.json RULE_STATS.jsonl > rules.md
"""
import json
import sys

from set_report import read_stats

CLASSES = ["win", "cursed_win", "draw", "blessed_loss", "loss"]


def main(manifest_path, stats_path):
    tables = {e["material"]: e for e in json.load(open(manifest_path))["tables"]}
    stats = read_stats(stats_path)
    names = sorted(stats, key=lambda m: (sum(c != "v" for c in m), m))
    print("| material | count (limit, plies) | side | win | cursed win | draw | blessed loss | loss "
          "| longest rule win | for example | .rul bytes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    totals = {side: [0] * 5 for side in ("white_to_move", "black_to_move")}
    changed, unchanged = [], []
    for m in names:
        s = stats[m]
        rule = f"{s['rule']['article'].split(' (')[0]} ({s['rule']['limit']})"
        if "road_article" in s["rule"]:
            rule += f", {s['rule']['road_article'].split(' (')[0]} ({s['rule']['road_limit']})"
        moved = 0
        for side in ("white_to_move", "black_to_move"):
            w = s[side]
            c = [w["classes"][k] for k in CLASSES]
            totals[side] = [a + b for a, b in zip(totals[side], c)]
            moved += c[1] + c[3]
            bytes_ = tables.get(m, {}).get("rul", {}).get("bytes", "")
            longest = w["longest_rule_win"] if w["longest_rule_win"] is not None else "none"
            print(f"| {m} | {rule} | {side.split('_')[0]} | " + " | ".join(f"{n:,}" for n in c) +
                  f" | {longest} | {w['example_longest'] or ''} | {bytes_:,} |" if bytes_ != "" else
                  f"| {m} | {rule} | {side.split('_')[0]} | " + " | ".join(f"{n:,}" for n in c) +
                  f" | {longest} | {w['example_longest'] or ''} | |")
        (changed if moved else unchanged).append((m, moved, tables.get(m, {}).get("longest_win"), s["rule"]["limit"]))
    print()
    for side in ("white_to_move", "black_to_move"):
        print(f"Totals, {side.replace('_', ' ')}: " + " / ".join(f"{n:,}" for n in totals[side]) +
              " (win / cursed win / draw / blessed loss / loss).")
        print()
    if changed:
        print("Materials where a rule changes a value with the count from zero (positions, both sides): " +
              ", ".join(f"{m} ({n:,})" for m, n, _, _ in sorted(changed, key=lambda x: -x[1])) + ".")
    else:
        print("No material where a rule changes a value with the count from zero.")
    print()
    short = [m for m, _, longest, limit in unchanged if longest is not None and longest <= limit]
    if short:
        print("Unchanged, with every plain win (both sides to move) no longer than the governing count: " + ", ".join(short) + ".")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
