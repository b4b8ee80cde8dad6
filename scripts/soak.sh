#!/usr/bin/env bash
# make soak: vloki on the embedded engine with its default configuration,
# seeded, then every workload mixed at SOAK_CLIENTS (200) clients for
# SOAK_DURATION (5m) with SOAK_PUSH_RATE (500) lines a second pushed
# alongside and counted back; stops vloki by PID. Fails on a lost
# acknowledged line.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
work=$(mktemp -d "${TMPDIR:-/tmp}/vloki-soak.XXXXXX")
pid=""
cleanup() { [[ -n $pid ]] && kill "$pid" 2>/dev/null && while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done; rm -rf "$work"; }
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
CGO_ENABLED=0 go build -o "$work/vloki" ./cmd/vloki
CGO_ENABLED=0 go build -o "$work/vloki-bench" ./cmd/vloki-bench
"$work/vloki" -server.http-listen-address=127.0.0.1 -server.http-listen-port="$port" -storage.path="$work/data" \
  -limits.ingestion-rate-mb=0 -log.level=warn >"$work/vloki.log" 2>&1 &
pid=$!
for _ in $(seq 1 240); do curl -sf "http://127.0.0.1:$port/ready" >/dev/null && break; sleep 0.25; done
now=$(($(date +%s) - 900))
target="vloki=http://127.0.0.1:$port,pid=$pid"
"$work/vloki-bench" seed -now "$now" -lines "${SOAK_LINES:-725000}" -target "$target"
"$work/vloki-bench" soak -now "$now" -clients "${SOAK_CLIENTS:-200}" -duration "${SOAK_DURATION:-5m}" \
  -push-rate "${SOAK_PUSH_RATE:-500}" -target "$target"
