#!/usr/bin/env python3
"""Prints the answers run.py recorded as one table per kind: a row per tick
(data age) and target, a column per range; each cell lists the jobs whose
label (k_<job>) or value (<job>) the answer held. Usage: table.py answers.jsonl [kind...]"""

import json
import sys
import time

KINDS = ["labels", "values", "series", "detected"]


def jobs(kind, answer):
    if isinstance(answer, str):
        return "ERR"
    if kind in ("labels", "detected"):
        return ",".join(a[2:] for a in answer if a.startswith("k_")) or "-"
    return ",".join(answer) or "-"


def main():
    path, kinds = sys.argv[1], sys.argv[2:] or KINDS
    recs = [json.loads(l) for l in open(path)]
    ranges, rows, states = [], {}, {}
    for r in recs:
        if "answer" in r:
            if r["range"] not in ranges:
                ranges.append(r["range"])
            rows.setdefault((r["tick"], r["target"]), {"wall": r["wall"]})[r["range"]] = r["answer"]
        elif "state" in r:
            s = r["state"]
            states[(r["tick"], r["target"])] = "mem=%s files=%d" % (s["memory_streams"], len(s["files"]))
    for kind in kinds:
        print("## " + kind)
        print("| tick | wall (UTC) | target | " + " | ".join(ranges) + " | state |")
        print("|---" * (len(ranges) + 4) + "|")
        for (tick, target), row in sorted(rows.items()):
            cells = [jobs(kind, row[rg][kind]) if rg in row else "" for rg in ranges]
            wall = time.strftime("%H:%M:%S", time.gmtime(row["wall"]))
            print("| %d | %s | %s | %s | %s |" % (tick, wall, target, " | ".join(cells), states.get((tick, target), "")))
        print()


if __name__ == "__main__":
    main()
