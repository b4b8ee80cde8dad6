#!/usr/bin/env python3
"""Derives the replay test's data (internal/testing/integration/testdata/
label_ages_loki.jsonl.gz, TestLabelAgesMatchLoki) from run.py's recorded
answers: the pushes (wall time, streams and entry times as run.py's
schedule made them, t0 the first push as model.py takes it) and the two
Lokis' label names, values and detected labels at every tick.
Usage: testdata.py out.jsonl.gz evidence/2026-11-26-push.jsonl.gz evidence/2026-11-26-watch.jsonl.gz"""

import gzip
import json
import sys

from model import SEC, load

TARGETS = ("loki-parity", "loki-defaults")


def entries(job, wall, t0):
    ns = int(t0 * SEC)
    fixed = {
        "now": [ns - (60 - 15 * i) * SEC for i in range(5)],
        "old": [ns - (90 * 60 - 30 * i) * SEC for i in range(5)],
        "yday": [ns - (26 * 3600 - 30 * i) * SEC for i in range(5)],
        "late": [ns + (20 * 60 - 20 + 10 * i) * SEC for i in range(3)],
    }
    return fixed.get(job) or [int(wall * SEC)]


def main():
    out, paths = sys.argv[1], sys.argv[2:]
    recs = sorted(load(paths), key=lambda r: r["wall"])
    pushes = [r for r in recs if "pushed" in r and r["target"] == TARGETS[0]]
    t0 = min(r["wall"] for r in pushes)
    lines = []
    for r in recs:
        if "pushed" in r and r["target"] == TARGETS[0]:
            lines.append({"push": int(r["wall"] * SEC),
                          "streams": {j: entries(j, r["wall"], t0) for j in r["pushed"]}})
        elif "answer" in r and r["target"] in TARGETS:
            a = r["answer"]
            lines.append({"target": r["target"], "end": round(r["wall"] * SEC), "range": r["range"],
                          "labels": a["labels"], "values": a["values"], "detected": a["detected"]})
    with gzip.open(out, "wt") as f:
        for l in lines:
            f.write(json.dumps(l, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
