#!/usr/bin/env python3
"""Scores the rule of docs/loki-label-index.md against a Loki's recorded label
names (run.py's answers, gzipped or not): each stream is in memory until
`idle` seconds of wall time after its last push (chunk_idle_period plus the
flush check), then its chunk is in the head of the 15-minute wall period it
flushed in (queryable for that period and the next), in that period's file of
each UTC day from the period's end, and in the day's compacted file from
`merge-lag` seconds after the period's end. A unit gives all its streams when
its [min, max] entry time overlaps the range. Prints the cells that differ.
The entries' times are those run.py's schedule pushes."""

import argparse
import datetime
import gzip
import json

SEC = 1_000_000_000
PERIOD = 900
RANGES = {"5m": 300, "15m": 900, "40m": 2400, "1h": 3600, "3h": 10800, "24h": 86400}


def load(paths):
    out = []
    for p in paths:
        with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as f:
            out.extend(json.loads(line) for line in f)
    return out


class History:
    """What vloki knows as the writer: each stream's push wall times and entry times."""

    def __init__(self, recs, target):
        self.pushes = {}
        for r in recs:
            if "pushed" in r and r["target"] == target:
                for job in r["pushed"]:
                    self.pushes.setdefault(job, []).append(r["wall"])
        t0 = int(min(min(w) for w in self.pushes.values()) * SEC)
        self.fixed = {
            "now": [t0 - (60 - 15 * i) * SEC for i in range(5)],
            "old": [t0 - (90 * 60 - 30 * i) * SEC for i in range(5)],
            "yday": [t0 - (26 * 3600 - 30 * i) * SEC for i in range(5)],
            "late": [t0 + (20 * 60 - 20 + 10 * i) * SEC for i in range(3)],
        }

    def entries(self, job, now):
        if job in self.fixed:
            return self.fixed[job]
        return [int(w * SEC) for w in self.pushes[job] if w <= now]


def day(ns):
    return ns // (86400 * SEC)


def answer(h, now, rng, idle, lag):
    end = int(now * SEC)
    start = end - RANGES[rng] * SEC
    out, units = set(), {}
    for job, walls in h.pushes.items():
        walls = [w for w in walls if w <= now]
        if not walls:
            continue
        flushed = max(walls) + idle
        if now < flushed:
            out.add(job)
            continue
        period = int(flushed // PERIOD)
        rotated = (period + 1) * PERIOD
        for e in h.entries(job, now):
            if now < rotated + PERIOD:
                units.setdefault(("head", period), []).append((e, job))
            if rotated + lag <= now:
                units.setdefault(("day", day(e)), []).append((e, job))
            elif rotated <= now:
                units.setdefault(("file", period, day(e)), []).append((e, job))
    for es in units.values():
        if min(e for e, _ in es) < end and max(e for e, _ in es) >= start:
            out |= {j for _, j in es}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", default="loki-parity")
    ap.add_argument("--idle", type=float, default=6 * 60 + 10, help="chunk_idle_period + flush_check_period, seconds")
    ap.add_argument("--merge-lag", type=float, default=780, help="seconds from a period's end until its files are compacted and seen")
    ap.add_argument("answers", nargs="+")
    a = ap.parse_args()
    recs = load(a.answers)
    h = History(recs, a.target)
    cells = matched = 0
    for r in recs:
        if r.get("target") != a.target or "answer" not in r:
            continue
        loki = {n[2:] for n in r["answer"]["labels"] if n.startswith("k_")}
        got = answer(h, r["wall"], r["range"], a.idle, a.merge_lag)
        cells += 1
        matched += got == loki
        if got != loki:
            at = datetime.datetime.fromtimestamp(r["wall"], datetime.timezone.utc).strftime("%H:%M:%S")
            print(at, r["range"], "loki", sorted(loki), "rule", sorted(got))
    print("%s: %d of %d cells as the rule says" % (a.target, matched, cells))


if __name__ == "__main__":
    main()
