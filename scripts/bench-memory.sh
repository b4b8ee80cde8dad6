#!/usr/bin/env bash
# make bench-memory: peak RSS of vloki in its default configuration under
# many clients, beside VictoriaLogs alone. Starts on loopback vloki on the
# embedded engine (vloki), vloki on an external victoria-logs that another
# agent writes into (vloki-ext: vloki's own process is what its row
# reports), and a second victoria-logs seeded with the same lines, asked
# the LogsQL twins (victorialogs: VictoriaLogs alone); seeds them, runs
# the workloads, and at the end writes each vloki's heap profile (after a
# collection) and /metrics beside the report. Stops everything by PID.
#
# Knobs: BENCH_CLIENTS (50), BENCH_WINDOW (shifted), BENCH_DURATION (15s),
# BENCH_WORKLOADS (all six), BENCH_LINES (725000), BENCH_OUT
# (bench-results/memory), BENCH_VLOKI_FLAGS (extra flags for both vloki).
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"
out=${BENCH_OUT:-bench-results/memory}
mkdir -p "$out"
extra=(${BENCH_VLOKI_FLAGS:-})

start_vl() { # dir port
  "$vlbin" -httpListenAddr=127.0.0.1:$2 -storageDataPath="$work/$1" -retentionPeriod=100y \
    -loggerLevel=ERROR -loki.disableMessageParsing >"$work/$1.log" 2>&1 &
  pids+=($!)
  wait_ready "http://127.0.0.1:$2/health"
}
start_vloki() { # name port pprof-port flags...
  local name=$1 port=$2 pprof=$3; shift 3
  "$work/vloki" -server.http-listen-address=127.0.0.1 -server.http-listen-port="$port" \
    -server.pprof-listen-address=127.0.0.1:"$pprof" -limits.ingestion-rate-mb=0 -log.level=warn "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
  wait_ready "http://127.0.0.1:$port/ready"
}

vl_port=$(free_port); start_vl vl "$vl_port"; vl_pid=${pids[-1]}
alone_port=$(free_port); start_vl alone "$alone_port"; alone_pid=${pids[-1]}
p_emb=$(free_port) q_emb=$(free_port)
start_vloki vloki "$p_emb" "$q_emb" -storage.path="$work/emb" "${extra[@]}"; pid_emb=${pids[-1]}
p_ext=$(free_port) q_ext=$(free_port)
start_vloki vloki-ext "$p_ext" "$q_ext" -backend.url="http://127.0.0.1:$vl_port" "${extra[@]}"; pid_ext=${pids[-1]}
# VictoriaLogs alone is seeded through a vloki stopped before the run.
p_seed=$(free_port) q_seed=$(free_port)
start_vloki seeder "$p_seed" "$q_seed" -backend.url="http://127.0.0.1:$alone_port" -frontend.cache-results=false -backend.sole-writer=off
seeder=${pids[-1]}

now=${BENCH_NOW:-$(($(date +%s) - 900))}
"$work/vloki-bench" seed -now "$now" -lines "${BENCH_LINES:-725000}" -target "vloki=http://127.0.0.1:$p_emb" \
  -target "vloki-ext=http://127.0.0.1:$p_ext" -target "seeder=http://127.0.0.1:$p_seed"
kill "$seeder"; while kill -0 "$seeder" 2>/dev/null; do sleep 0.2; done
"$work/vloki-bench" agent -url "http://127.0.0.1:$vl_port" -rate 100 -history 1h 2>"$work/agent.log" &
pids+=($!)
for _ in $(seq 600); do grep -q "writing live" "$work/agent.log" && break; kill -0 "${pids[-1]}" || break; sleep 0.5; done
grep -q "writing live" "$work/agent.log" || { cat "$work/agent.log" >&2; exit 1; }

"$work/vloki-bench" run -now "$now" -duration "${BENCH_DURATION:-15s}" -clients "${BENCH_CLIENTS:-50}" \
  -window "${BENCH_WINDOW:-shifted}" -window-seed 1 -verify none \
  -workloads "${BENCH_WORKLOADS:-small,heavy,long_range,compute,drilldown,refresh}" -out "$out" \
  -target "vloki=http://127.0.0.1:$p_emb,pid=$pid_emb" -target "vloki-ext=http://127.0.0.1:$p_ext,pid=$pid_ext" \
  -target "victorialogs=http://127.0.0.1:$alone_port,twins,pid=$alone_pid"
for t in "vloki $p_emb $q_emb" "vloki-ext $p_ext $q_ext"; do
  set -- $t
  curl -sf "http://127.0.0.1:$3/debug/pprof/heap?gc=1" >"$out/$1.heap"
  curl -sf "http://127.0.0.1:$2/metrics" >"$out/$1.metrics"
done
echo "report: $out/report.md; heap profiles and metrics: $out/vloki{,-ext}.{heap,metrics}" >&2
