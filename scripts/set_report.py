#!/usr/bin/env python3
"""A built set in Markdown (docs/results.md): per material its positions,
the wins, draws and losses with White to move, the longest win with White to
move and a position of it, from the set's manifest and the JSON of
`dtb stats --json` (one object per line, as scripts/set_stats.sh writes it;
materials without one are listed with the manifest's figures, both sides to
move, and marked so).

    scripts/set_report.py DIR/VARIANT/manifest.json STATS.jsonl > set.md
"""
import json
import sys


def read_stats(path):
    """The objects of a JSON-lines file of `dtb stats --json`, by material."""
    stats = {}
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            s = json.loads(line)
            stats[s["material"]] = s
    return stats


def main(manifest_path, stats_path):
    tables = json.load(open(manifest_path))["tables"]
    stats = read_stats(stats_path)
    rows = sorted(tables, key=lambda e: (sum(c != "v" for c in e["material"]), e["material"]))
    print("| material | positions in the table | White to move: wins | draws | losses | longest win (plies) | for example |")
    print("|---|---|---|---|---|---|---|")
    missing = 0
    for e in rows:
        s = stats.get(e["material"])
        if s:
            w = s["white_to_move"]
            print(f"| {e['material']} | {e['positions']:,} | {w['win']:,} | {w['draw']:,} | {w['loss']:,} "
                  f"| {w['max_dtw_win']} | {w.get('example_max_win', '')} |")
        else:
            missing += 1
            print(f"| {e['material']} | {e['positions']:,} | {e['wins']:,}* | {e['draws']:,}* | {e['losses']:,}* "
                  f"| {e['longest_win']}* | |")
    if missing:
        print(f"\n\\* {missing} materials: both sides to move, from the manifest (`dtb stats` not yet run on them).")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
