#!/usr/bin/env python3
"""Label answers as data ages: pushes streams as agents do (entries near "now",
at known wall times) into every target, then asks each target label names,
values, series and detected labels over ranges ending at now, once a minute.
Writes one JSON line per answer (and per Loki state sample) to --out.

Targets are name=url pairs; a Loki target may add =datadir so its index files
and in-memory streams are sampled too. Driven by scripts/label-ages.sh."""

import argparse
import json
import os
import time
import urllib.parse
import urllib.request

RANGES = [("5m", 300), ("15m", 900), ("40m", 2400), ("1h", 3600), ("3h", 10800), ("24h", 86400)]
SEC = 1_000_000_000


def stream(job, entries):
    return {"stream": {"job": job, "k_" + job: "v"},
            "values": [[str(ts), "%s line %d" % (job, i)] for i, ts in enumerate(entries)]}


def schedule(t0):
    """(offset seconds after t0, streams) pushes; the live stream is added every tick."""
    ns = int(t0 * SEC)
    return [
        (0, [stream("now", [ns - (60 - 15 * i) * SEC for i in range(5)]),
             stream("old", [ns - (90 * 60 - 30 * i) * SEC for i in range(5)]),
             stream("yday", [ns - (26 * 3600 - 30 * i) * SEC for i in range(5)])]),
        (20 * 60, [stream("late", [ns + (20 * 60 - 20 + 10 * i) * SEC for i in range(3)])]),
    ]


def http(method, url, body=None):
    req = urllib.request.Request(url, data=body, method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def push(url, streams):
    code, body = http("POST", url + "/loki/api/v1/push", json.dumps({"streams": streams}).encode())
    if code != 204:
        raise SystemExit("push to %s: %d %s" % (url, code, body[:200]))


def get(url, path, params):
    code, body = http("GET", url + path + "?" + urllib.parse.urlencode(params, doseq=True))
    if code != 200:
        return {"error": "%d %s" % (code, body[:200].decode(errors="replace"))}
    return json.loads(body)


def ask(url, start, end):
    """The four answers over [start, end], reduced to what the experiment compares."""
    rng = {"start": str(start), "end": str(end)}
    out = {}
    r = get(url, "/loki/api/v1/labels", rng)
    out["labels"] = r.get("error") or sorted(r.get("data") or [])
    r = get(url, "/loki/api/v1/label/job/values", rng)
    out["values"] = r.get("error") or sorted(r.get("data") or [])
    r = get(url, "/loki/api/v1/series", dict(rng, **{"match[]": '{job=~".+"}'}))
    out["series"] = r.get("error") or sorted(s.get("job", "") for s in (r.get("data") or []))
    r = get(url, "/loki/api/v1/detected_labels", dict(rng, query='{job=~".+"}'))
    out["detected"] = r.get("error") or sorted(d["label"] for d in (r.get("detectedLabels") or []))
    return out


def loki_state(url, datadir):
    """Index files on disk and the ingester's in-memory streams."""
    files = []
    for root, _, names in os.walk(datadir):
        rel = os.path.relpath(root, datadir)
        if "tsdb" in rel or "compactor" in rel:
            files.extend(os.path.join(rel, n) for n in names)
    code, body = http("GET", url + "/metrics")
    mem = None
    for line in body.decode(errors="replace").splitlines():
        if line.startswith("loki_ingester_memory_streams{"):
            mem = float(line.rsplit(" ", 1)[1])
    return {"files": sorted(files), "memory_streams": mem}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", action="append", required=True, help="name=url[=lokidatadir]")
    ap.add_argument("--minutes", type=int, default=48)
    ap.add_argument("--out", required=True)
    ap.add_argument("--no-push", action="store_true", help="only ask (watch data an earlier run pushed age further)")
    a = ap.parse_args()
    targets = [t.split("=", 2) for t in a.target]
    t0 = time.time()
    plan = schedule(t0)
    with open(a.out, "a") as out:
        def emit(rec):
            out.write(json.dumps(rec, sort_keys=True) + "\n")
            out.flush()
        for tick in range(a.minutes + 1):
            due = t0 + tick * 60
            time.sleep(max(0, due - time.time()))
            now = time.time()
            streams = [s for off, ss in plan if tick * 60 <= off < (tick + 1) * 60 for s in ss]
            streams.append(stream("live", [int(now * SEC)]))
            for t in ([] if a.no_push else targets):
                push(t[1], streams)
                emit({"tick": tick, "wall": now, "target": t[0], "pushed": [s["stream"]["job"] for s in streams]})
            time.sleep(2)  # let vloki's read-your-writes and Loki's distributor settle
            end = int(time.time() * SEC)
            for t in targets:
                for name, secs in RANGES:
                    emit({"tick": tick, "wall": end / SEC, "target": t[0], "range": name,
                          "answer": ask(t[1], end - secs * SEC, end)})
                if len(t) > 2:
                    emit({"tick": tick, "wall": time.time(), "target": t[0], "state": loki_state(t[1], t[2])})


if __name__ == "__main__":
    main()
