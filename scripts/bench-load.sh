#!/usr/bin/env bash
# make bench-load: starts on loopback a victoria-logs process (from the
# pinned module), vloki on the embedded engine (cold: no results cache, no
# coalescing), the same with its frontend on (warm), vloki cold on the
# external victoria-logs, and Loki v3.7.8 when its binary is built
# (scripts/loki-build.sh; BENCH_LOKI=0 leaves it out, BENCH_LOKI=build
# builds it); seeds them all, runs the workloads and writes
# bench-results/report.{md,json}; stops everything it started by PID.
#
# Knobs: BENCH_DURATION (6s a step), BENCH_CLIENTS (10,50), BENCH_RATE (open
# loop instead), BENCH_WORKLOADS (all six), BENCH_LINES (725000),
# BENCH_OUT (bench-results), BENCH_EACH (workloads whose queries are also
# timed one at a time into each.md; BENCH_EACH_RUNS requests each, 15),
# BENCH_BASELINE (a git revision: vloki built from it runs beside, cold and
# warm on its own embedded engine, as targets base and base-warm — the
# same run measures a change, e.g. the embedded VictoriaLogs upgrade),
# BENCH_WINDOW (fixed|now|shifted|grafana: where each request's window
# sits, docs/performance.md; several, space-separated, run one after the
# other on the same data into $BENCH_OUT/<mode>/; BENCH_WINDOW_SEED seeds
# shifted), BENCH_VERIFY / BENCH_REFERENCE (the target whose answers are
# checked, vloki, and the one they must equal, loki), BENCH_AGENT_RATE
# (lines a second another agent writes straight into the external
# victoria-logs during the run, 100; 0: none) — vloki-ext (cold) and
# vloki-ext-warm (default configuration) read that VictoriaLogs;
# BENCH_AGENT_HISTORY (1h: the agent first writes this much past at its
# rate, as one running before the bench began; 0s: none); BENCH_WARMUP
# (0s: each workload fired at each target this long, unmeasured, before
# its step, with windows the step does not ask); BENCH_TWINS (1; 0 leaves
# out the targets that answer only twinned queries: vloki-twinq and
# victorialogs);
# BENCH_PAIR (0; 1 adds a second victoria-logs nobody else writes into,
# seeded through two vloki replicas that together are its only writers,
# -backend.sole-writer-peers, asked in turn as target vloki-pair; beside
# them two replicas in the default configuration on the same
# victoria-logs, vloki-pair-off; with BENCH_AGENT_RATE a second agent
# pushes its lines through the pair, in turn);
# BENCH_ROUNDS (1): the whole run repeated, into $BENCH_OUT[/<mode>]/round-<n>/,
# so targets measured one after another take turns (a before/after
# comparison reads the median of the rounds).
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"
out=${BENCH_OUT:-bench-results}

vl_port=$(free_port)
"$vlbin" -httpListenAddr=127.0.0.1:$vl_port -storageDataPath="$work/vl" -retentionPeriod=100y \
  -loggerLevel=ERROR -loki.disableMessageParsing >"$work/vl.log" 2>&1 &
pids+=($!); vl_pid=$!
wait_ready "http://127.0.0.1:$vl_port/health"

start_vloki() { # name port extra-flags...
  local name=$1 port=$2; shift 2
  "$work/vloki" -server.http-listen-address=127.0.0.1 -server.http-listen-port="$port" \
    -limits.ingestion-rate-mb=0 -log.level=warn "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
  wait_ready "http://127.0.0.1:$port/ready"
}
cold=(-frontend.cache-results=false -frontend.coalesce=false -backend.sole-writer=off)
p_emb=$(free_port); start_vloki vloki "$p_emb" -storage.path="$work/emb" "${cold[@]}"; pid_emb=${pids[-1]}
p_warm=$(free_port); start_vloki vloki-warm "$p_warm" -storage.path="$work/warm"; pid_warm=${pids[-1]}
p_ext=$(free_port); start_vloki vloki-ext "$p_ext" -backend.url="http://127.0.0.1:$vl_port" "${cold[@]}"; pid_ext=${pids[-1]}
# vloki in its default configuration on the external VictoriaLogs (not its
# sole writer: the agent below writes there too).
p_extw=$(free_port); start_vloki vloki-ext-warm "$p_extw" -backend.url="http://127.0.0.1:$vl_port"; pid_extw=${pids[-1]}

base_targets=()
if [[ -n ${BENCH_BASELINE:-} ]]; then
  git worktree add -q --detach "$work/base-src" "$BENCH_BASELINE"
  trap 'cleanup; git worktree remove --force "$work/base-src" 2>/dev/null || true' EXIT
  (cd "$work/base-src" && CGO_ENABLED=0 go build -o "$work/vloki-base" ./cmd/vloki)
  start_base() { # name port flags...
    local name=$1 port=$2; shift 2
    "$work/vloki-base" -server.http-listen-address=127.0.0.1 -server.http-listen-port="$port" \
      -limits.ingestion-rate-mb=0 -log.level=warn "$@" >"$work/$name.log" 2>&1 &
    pids+=($!)
    wait_ready "http://127.0.0.1:$port/ready"
  }
  p_base=$(free_port); start_base base "$p_base" -storage.path="$work/base" "${cold[@]}"
  base_targets+=(-target "base=http://127.0.0.1:$p_base,pid=${pids[-1]}")
  p_basew=$(free_port); start_base base-warm "$p_basew" -storage.path="$work/base-warm"
  base_targets+=(-target "base-warm=http://127.0.0.1:$p_basew,pid=${pids[-1]}")
fi
targets=(-target "vloki=http://127.0.0.1:$p_emb,pid=$pid_emb"
  -target "vloki-warm=http://127.0.0.1:$p_warm,pid=$pid_warm"
  -target "vloki-ext=http://127.0.0.1:$p_ext,pid=$pid_ext+$vl_pid")
targets+=("${base_targets[@]}")
seed_targets=("${targets[@]}")
# Seeded through vloki-ext: the same VictoriaLogs.
targets+=(-target "vloki-ext-warm=http://127.0.0.1:$p_extw,pid=$pid_extw+$vl_pid")
# vloki cold again, asked only the queries VictoriaLogs has twins of: the
# fair "÷ VictoriaLogs" (seeded through the vloki target above).
if [[ ${BENCH_TWINS:-1} != 0 ]]; then
  targets=("${targets[@]:0:2}" -target "vloki-twinq=http://127.0.0.1:$p_emb,twinqueries,pid=$pid_emb" "${targets[@]:2}")
fi
if [[ ${BENCH_PAIR:-0} == 1 ]]; then
  vl2_port=$(free_port)
  "$vlbin" -httpListenAddr=127.0.0.1:$vl2_port -storageDataPath="$work/vl2" -retentionPeriod=100y \
    -loggerLevel=ERROR -loki.disableMessageParsing >"$work/vl2.log" 2>&1 &
  pids+=($!); vl2_pid=$!
  wait_ready "http://127.0.0.1:$vl2_port/health"
  vl2=(-backend.url="http://127.0.0.1:$vl2_port")
  p_pa=$(free_port); p_pb=$(free_port)
  peers="http://127.0.0.1:$p_pa,http://127.0.0.1:$p_pb"
  start_vloki vloki-pair-a "$p_pa" "${vl2[@]}" -backend.sole-writer=on -backend.sole-writer-peers="$peers" -backend.sole-writer-self="http://127.0.0.1:$p_pa"
  pid_pa=${pids[-1]}
  start_vloki vloki-pair-b "$p_pb" "${vl2[@]}" -backend.sole-writer=on -backend.sole-writer-peers="$peers" -backend.sole-writer-self="http://127.0.0.1:$p_pb"
  pid_pb=${pids[-1]}
  p_oa=$(free_port); start_vloki vloki-pair-off-a "$p_oa" "${vl2[@]}"; pid_oa=${pids[-1]}
  p_ob=$(free_port); start_vloki vloki-pair-off-b "$p_ob" "${vl2[@]}"; pid_ob=${pids[-1]}
  pair="vloki-pair=http://127.0.0.1:$p_pa|http://127.0.0.1:$p_pb"
  seed_targets+=(-target "$pair")
  targets+=(-target "$pair,pid=$pid_pa+$pid_pb+$vl2_pid"
    -target "vloki-pair-off=http://127.0.0.1:$p_oa|http://127.0.0.1:$p_ob,pid=$pid_oa+$pid_ob+$vl2_pid")
fi
loki_bin=$cache/loki-v3.7.8/loki
if [[ ${BENCH_LOKI:-1} == build ]]; then loki_bin=$(scripts/loki-build.sh); fi
if [[ ${BENCH_LOKI:-1} != 0 && -x $loki_bin ]]; then
  eval "$(scripts/loki-run.sh)"
  pids+=("$LOKI_PID")
  targets+=(-target "loki=$LOKI_URL,pid=$LOKI_PID")
  seed_targets+=(-target "loki=$LOKI_URL")
  echo "Loki v3.7.8 at $LOKI_URL" >&2
else
  echo "Loki not built (scripts/loki-build.sh): running without it" >&2
fi
[[ ${BENCH_TWINS:-1} != 0 ]] && targets+=(-target "victorialogs=http://127.0.0.1:$vl_port,twins,pid=$vl_pid")

# The data ends 15 minutes ago, so every workload's range is older than
# the results cache's freshness window (10 min) and repeats can hit it.
now=${BENCH_NOW:-$(($(date +%s) - 900))}
"$work/vloki-bench" seed -now "$now" -lines "${BENCH_LINES:-725000}" "${seed_targets[@]}"
# start_agent LOG WHERE AGENT-FLAGS...: another agent writing at
# BENCH_AGENT_RATE, once it wrote its history.
start_agent() {
  local log=$work/$1 where=$2; shift 2
  "$work/vloki-bench" agent "$@" -rate "${BENCH_AGENT_RATE:-100}" -history "${BENCH_AGENT_HISTORY:-1h}" 2>"$log" &
  pids+=($!)
  for _ in $(seq 600); do grep -q "writing live" "$log" && break; kill -0 "${pids[-1]}" || break; sleep 0.5; done
  grep -q "writing live" "$log" || { cat "$log" >&2; exit 1; }
  echo "agent writing ${BENCH_AGENT_RATE:-100} lines/s $where" >&2
}
if (( ${BENCH_AGENT_RATE:-100} > 0 )); then
  start_agent agent.log "into the external VictoriaLogs" -url "http://127.0.0.1:$vl_port"
  if [[ ${BENCH_PAIR:-0} == 1 ]]; then
    # The same agent's lines through the pair, which then sees every write.
    start_agent agent-pair.log "through the pair" -loki "http://127.0.0.1:$p_pa|http://127.0.0.1:$p_pb"
  fi
fi
rate=()
[[ -n ${BENCH_RATE:-} ]] && rate=(-rate "$BENCH_RATE")
modes=(${BENCH_WINDOW:-fixed})
rounds=${BENCH_ROUNDS:-1}
for ((round = 1; round <= rounds; round++)); do
for mode in "${modes[@]}"; do
  mode_out=$out
  (( ${#modes[@]} > 1 )) && mode_out=$out/$mode
  (( rounds > 1 )) && mode_out=$mode_out/round-$round
  "$work/vloki-bench" run -now "$now" -duration "${BENCH_DURATION:-6s}" -clients "${BENCH_CLIENTS:-10,50}" \
    -window "$mode" -window-seed "${BENCH_WINDOW_SEED:-1}" -warmup "${BENCH_WARMUP:-0s}" -verify "${BENCH_VERIFY:-vloki}" -reference "${BENCH_REFERENCE:-loki}" \
    -workloads "${BENCH_WORKLOADS:-small,heavy,long_range,compute,drilldown,refresh}" -out "$mode_out" "${rate[@]}" "${targets[@]}"
  echo "report ($mode windows): $mode_out/report.md" >&2
done
done
if [[ ${BENCH_PAIR:-0} == 1 ]]; then
  # Whether the pair kept trusting each other (gaps: 1 each when they never lost touch).
  for p in "$p_pa" "$p_pb"; do
    curl -s "http://127.0.0.1:$p/metrics" | grep '^vloki_sole_writer_peers' | sed "s/^/127.0.0.1:$p /"
  done >"$out/pair-metrics.txt"
fi
if [[ -n ${BENCH_EACH:-} ]]; then
  # Every query of these workloads alone: vloki cold, vloki in its default
  # configuration without its results cache (stream index on), beside
  # VictoriaLogs' twins and Loki.
  each=(-target "vloki=http://127.0.0.1:$p_emb" -target "vloki-index=http://127.0.0.1:$p_warm,nocache"
    -target "victorialogs=http://127.0.0.1:$vl_port,twins")
  [[ -n ${LOKI_URL:-} ]] && each+=(-target "loki=$LOKI_URL")
  [[ -n ${p_base:-} ]] && each+=(-target "base=http://127.0.0.1:$p_base")
  "$work/vloki-bench" each -now "$now" -workloads "$BENCH_EACH" -runs "${BENCH_EACH_RUNS:-15}" "${each[@]}" >"$out/each.md"
  echo "per query: $out/each.md" >&2
fi
