#!/usr/bin/env bash
# make bench-scale: the Quickwit-vs-Loki benchmark's data and queries at
# scale (issue 30). For each phase it starts on loopback, fresh: vloki on
# its embedded engine, vloki on an external victoria-logs (single node,
# from the pinned module), vloki on a two-node VictoriaLogs cluster (two
# storage nodes and a front started with -storageNode; BENCH_SCALE_CLUSTER=0
# leaves it out), and a second victoria-logs asked the LogsQL twins; `vloki-bench scale` generates the dataset as it pushes it into
# each target alone (vloki through Loki's protobuf push, VictoriaLogs
# through its jsonline), counts it back, then times every query at 1 and
# 10 clients. The phase's processes are stopped by PID before the next.
#
# Phases (BENCH_SCALE_PHASES, default "quickwit hicard"; "loki" opt-in):
#   quickwit  100 streams over 30 days: the seven published queries and
#             needle searches for trace ids
#   hicard    25,600 streams (bucketed_hostname): its queries and metadata
#   loki      opt-in: the quickwit data and queries on a subset
#             (BENCH_SCALE_LOKI_LINES, 1,000,000) with Loki v3.7.8 as a
#             fourth target (scripts/loki-run.sh, parity/loki-config.yaml),
#             every answer of vloki compared with Loki's before the steps;
#             pushed by one pusher in time order (Loki refuses entries more
#             than an hour behind their stream's newest)
#   loki-hicard  opt-in: the hicard data and queries with Loki v3.7.8
#             beside, as the loki phase: BENCH_SCALE_LOKI_LINES over
#             BENCH_SCALE_LOKI_HICARD_DAYS (1: the 30 M run's density),
#             Loki's limit of 5,000 streams a tenant lifted
#   memory    opt-in: the quickwit data (BENCH_SCALE_LINES) into vloki and
#             vloki-ext in their default configuration (caches, kept
#             answers, coalescing on; pprof on), 50 clients with windows
#             shifted back by a random 0–2 h (never asked twice), every
#             query but the two full scans (BENCH_SCALE_MEMORY_WORKLOADS);
#             then each vloki's heap profile and /metrics, and the embedded
#             one restarted on its store: shutdown and start-up timed;
#             BENCH_SCALE_MEMORY_EXT=0 leaves vloki-ext out,
#             BENCH_SCALE_MEMORY_FLAGS adds flags to the embedded vloki
#   ingest    opt-in: ingestion only, each target alone, Loki v3.7.8 the
#             last, a second VictoriaLogs pushed in BENCH_SCALE_VIA's
#             format through its own endpoint for it (Loki's push with
#             message parsing off, or OTLP) beside the jsonline one:
#             BENCH_SCALE_INGEST_LINES (3,000,000) over
#             BENCH_SCALE_INGEST_DAYS (7) by BENCH_SCALE_PUSHERS, dense
#             enough that the pushers' batches in flight stay within
#             Loki's hour; BENCH_SCALE_INGEST_HOSTS=1 for 25,600 streams;
#             BENCH_SCALE_INGEST_CLIENTS=10: that many clients query each
#             target while it ingests (a region's logs and volume panels)
#
# BENCH_SCALE_VIA (proto) is how the vloki and Loki targets are pushed
# to: proto (Loki's protobuf+snappy), json (Loki's JSON) or otlp (OTLP/HTTP
# protobuf+gzip; the agent and region become service_name, cloud_region).
#
# Knobs: BENCH_SCALE_LINES (30000000), BENCH_SCALE_HICARD_LINES (the same),
# BENCH_SCALE_DAYS (30), BENCH_SCALE_CLIENTS (1,10), BENCH_SCALE_DURATION
# (10s a step), BENCH_SCALE_PUSHERS (4), BENCH_SCALE_OUT (bench-results/scale),
# BENCH_SCALE_EXT=0 leaves vloki on an external single node out of the
# quickwit, hicard, loki and ingest phases; BENCH_SCALE_NONEEDLES=1 adds
# the embedded vloki with its needle index off (vloki-noneedles), times
# only the needle searches (BENCH_SCALE_NONEEDLES_WORKLOADS) and compares
# vloki's answers with its.
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"
out=${BENCH_SCALE_OUT:-bench-results/scale}
lines=${BENCH_SCALE_LINES:-30000000}
mkdir -p "$out"

# Both vloki targets answer every request afresh (results cache, kept
# steps and spans, coalescing off), as bench-load's cold targets: the same
# query repeated is timed, not a cache hit. The embedded one keeps its
# default: vloki the sole writer of its storage, so its stream index
# (what was pushed, no answer) narrows plans and answers metadata; the
# external one is configured as where other agents may write too.
cold=(-frontend.cache-results=false -frontend.coalesce=false -limits.query-timeout=5m)
cold_ext=("${cold[@]}" -backend.sole-writer=off)
phase_pids=()

start_vl() { # name port [flags...]
  local name=$1 port=$2; shift 2
  "$vlbin" -httpListenAddr=127.0.0.1:$port -storageDataPath="$work/$name" -retentionPeriod=100y \
    -search.maxQueryDuration=5m -loggerLevel=ERROR "$@" >"$work/$name.log" 2>&1 &
  pids+=($!); phase_pids+=($!)
  wait_ready "http://127.0.0.1:$port/health"
}
start_vloki() { # name port flags...
  local name=$1 port=$2; shift 2
  "$work/vloki" -server.http-listen-address=127.0.0.1 -server.http-listen-port="$port" \
    -limits.ingestion-rate-mb=0 -log.level=warn "$@" >"$work/$name.log" 2>&1 &
  pids+=($!); phase_pids+=($!)
  wait_ready "http://127.0.0.1:$port/ready"
}
# stop_phase ends this phase's processes and forgets their PIDs, so the
# exit trap never signals a PID the system has since given to another.
stop_phase() {
  for p in "${phase_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${phase_pids[@]}"; do while kill -0 "$p" 2>/dev/null; do sleep 0.2; done; done
  local keep=() p q gone
  for p in "${pids[@]}"; do
    gone=0; for q in "${phase_pids[@]}"; do [[ $p == "$q" ]] && gone=1; done
    ((gone)) || keep+=("$p")
  done
  pids=("${keep[@]}"); phase_pids=()
}

# extra_targets are more targets of the phase (Loki in the loki phase).
extra_targets=()
run_phase() { # phase lines extra-flags...
  local phase=$1 n=$2; shift 2
  rm -rf "$work/emb" "$work/emb-noneedles" "$work/vl-ext" "$work/vl-direct" "$work/vl-own" "$work/vl-s0" "$work/vl-s1" "$work/vl-front"
  local p_vld p_emb
  p_vld=$(free_port); start_vl vl-direct "$p_vld"; local pid_vld=${pids[-1]}
  p_emb=$(free_port); start_vloki vloki "$p_emb" -storage.path="$work/emb" "${cold[@]}"; local pid_emb=${pids[-1]}
  local ext=()
  if [[ ${BENCH_SCALE_EXT:-1} == 1 ]]; then
    local p_vlx p_ext pid_vlx
    p_vlx=$(free_port); start_vl vl-ext "$p_vlx"; pid_vlx=${pids[-1]}
    p_ext=$(free_port); start_vloki vloki-ext "$p_ext" -backend.url="http://127.0.0.1:$p_vlx" "${cold_ext[@]}"
    ext=(-target "vloki-ext=http://127.0.0.1:$p_ext,pid=${pids[-1]}+$pid_vlx")
  fi
  local cluster=()
  if [[ ${BENCH_SCALE_CLUSTER:-1} == 1 ]]; then
    local p_s0 p_s1 p_front p_cl pid_s0 pid_s1 pid_front
    p_s0=$(free_port); start_vl vl-s0 "$p_s0"; pid_s0=${pids[-1]}
    p_s1=$(free_port); start_vl vl-s1 "$p_s1"; pid_s1=${pids[-1]}
    p_front=$(free_port); start_vl vl-front "$p_front" -storageNode="127.0.0.1:$p_s0,127.0.0.1:$p_s1"; pid_front=${pids[-1]}
    p_cl=$(free_port); start_vloki vloki-cluster "$p_cl" -backend.url="http://127.0.0.1:$p_front" "${cold_ext[@]}"
    cluster=(-target "vloki-cluster=http://127.0.0.1:$p_cl,pid=${pids[-1]}+$pid_front+$pid_s0+$pid_s1")
  fi
  local bare=() bare_flags=()
  if [[ ${BENCH_SCALE_NONEEDLES:-0} == 1 ]]; then # the embedded vloki again, its needle index off
    local p_bare; p_bare=$(free_port)
    start_vloki vloki-noneedles "$p_bare" -storage.path="$work/emb-noneedles" -frontend.needle-index-max-bytes=0 "${cold[@]}"
    bare=(-target "vloki-noneedles=http://127.0.0.1:$p_bare,pid=${pids[-1]}")
    bare_flags=(-verify vloki -reference vloki-noneedles -workloads "${BENCH_SCALE_NONEEDLES_WORKLOADS:-needle line filter,needle json trace_id,needle line filter volume}")
  fi
  local own=()
  if [[ $phase == ingest ]]; then # VictoriaLogs also through its own endpoint for the format
    local p_own; p_own=$(free_port); start_vl vl-own "$p_own"
    own=(-target "victorialogs-own=http://127.0.0.1:$p_own,ownendpoint,pid=${pids[-1]}")
  fi
  echo "phase $phase: $n lines" >&2
  # The phase's own flags ("$@") come last: they win over the defaults.
  "$work/vloki-bench" scale -now "$now" -lines "$n" -days "${BENCH_SCALE_DAYS:-30}" \
    -pushers "${BENCH_SCALE_PUSHERS:-4}" -via "${BENCH_SCALE_VIA:-proto}" -clients "${BENCH_SCALE_CLIENTS:-1,10}" -duration "${BENCH_SCALE_DURATION:-10s}" "$@" "${bare_flags[@]}" \
    -out "$out/$phase" \
    -target "vloki=http://127.0.0.1:$p_emb,pid=$pid_emb" \
    "${ext[@]}" "${cluster[@]}" "${bare[@]}" \
    -target "victorialogs=http://127.0.0.1:$p_vld,twins,pid=$pid_vld" "${own[@]}" "${extra_targets[@]}" >/dev/null
  disk "$phase" "$n" >>"$out/$phase/report.md"
  stop_phase
}

# disk appends each store's size on disk after the phase.
disk() { # phase lines
  local e d
  e=$(du -sb "$work/emb" | cut -f1); d=$(du -sb "$work/vl-direct" | cut -f1)
  echo
  echo "Disk after the phase (du -sb): vloki $e B, VictoriaLogs (jsonline) $d B; per line $((e / $2)) / $((d / $2)) B."
  if [[ -d $work/vl-ext ]]; then
    local x; x=$(du -sb "$work/vl-ext" | cut -f1)
    echo "vloki-ext's VictoriaLogs: $x B; per line $((x / $2)) B."
  fi
  if [[ -d $work/vl-own ]]; then
    local o; o=$(du -sb "$work/vl-own" | cut -f1)
    echo "VictoriaLogs through its own endpoint for the format: $o B; per line $((o / $2)) B."
  fi
  if [[ -d $work/vl-s0 ]]; then
    local s0 s1
    s0=$(du -sb "$work/vl-s0" | cut -f1); s1=$(du -sb "$work/vl-s1" | cut -f1)
    echo "The cluster's storage nodes: $s0 B and $s1 B; per line $(((s0 + s1) / $2)) B."
  fi
}

# run_loki_phase is a phase's data and queries on a subset (the quickwit
# phase's, or with -hosts the hicard phase's), with a fresh Loki v3.7.8
# beside the others (its data directory removed afterwards).
run_loki_phase() { # phase [extra vloki-bench flags...]
  local phase=$1; shift
  # Loki's 30 s HTTP write timeout and 1 m query timeout would cut the
  # month-long queries short; the others' timeouts are 5 m. Its 5,000
  # active streams a tenant would refuse the 25,600-stream data.
  eval "$(TMPDIR=$work LOKI_ARGS="-server.http-write-timeout=5m -querier.query-timeout=5m -ingester.max-global-streams-per-user=0" scripts/loki-run.sh)"
  pids+=("$LOKI_PID"); phase_pids+=("$LOKI_PID")
  extra_targets=(-target "loki=$LOKI_URL,pid=$LOKI_PID")
  run_phase "$phase" "${BENCH_SCALE_LOKI_LINES:-1000000}" -pushers 1 "$@"
  extra_targets=()
  rm -rf "$LOKI_DATA"
}

# run_ingest_phase times each target's ingestion alone, Loki's included.
run_ingest_phase() {
  # Loki's 5,000 active streams a tenant would refuse the 25,600-stream data.
  # Its data directory lies in $work, removed on exit whatever happens.
  eval "$(TMPDIR=$work LOKI_ARGS="-ingester.max-global-streams-per-user=0" scripts/loki-run.sh)"
  pids+=("$LOKI_PID"); phase_pids+=("$LOKI_PID")
  extra_targets=(-target "loki=$LOKI_URL,pid=$LOKI_PID")
  local hosts=()
  [[ ${BENCH_SCALE_INGEST_HOSTS:-0} == 1 ]] && hosts=(-hosts)
  local n=${BENCH_SCALE_INGEST_LINES:-3000000} l
  run_phase ingest "$n" -ingest-only -days "${BENCH_SCALE_INGEST_DAYS:-7}" -ingest-clients "${BENCH_SCALE_INGEST_CLIENTS:-0}" "${hosts[@]}"
  l=$(du -sb "$LOKI_DATA" | cut -f1)
  echo "Loki's data directory: $l B, $((l / n)) B a line." >>"$out/ingest/report.md"
  extra_targets=()
  rm -rf "$LOKI_DATA"
}

# run_memory_phase is issue 30's memory at scale: peak RSS in the default
# configuration beside VictoriaLogs alone answering the twins.
run_memory_phase() {
  local n=$lines dir=$out/memory
  rm -rf "$work/emb" "$work/emb-noneedles" "$work/vl-ext" "$work/vl-direct"
  local p_vlx p_vld p_emb p_ext q_emb q_ext pid_emb pid_ext pid_vlx pid_vld
  p_vlx=$(free_port); start_vl vl-ext "$p_vlx"; pid_vlx=${pids[-1]}
  p_vld=$(free_port); start_vl vl-direct "$p_vld"; pid_vld=${pids[-1]}
  p_emb=$(free_port) q_emb=$(free_port)
  # BENCH_SCALE_MEMORY_FLAGS: more flags for the embedded vloki (e.g.
  # -memory.gc-percent=100, Go's default, to compare with vloki's).
  # shellcheck disable=SC2086
  start_vloki vloki "$p_emb" -storage.path="$work/emb" -server.pprof-listen-address=127.0.0.1:"$q_emb" ${BENCH_SCALE_MEMORY_FLAGS:-}; pid_emb=${pids[-1]}
  # BENCH_SCALE_MEMORY_EXT=0 leaves vloki on an external VictoriaLogs out
  # (a third of the phase's ingestion time).
  local ext=() vlokis=("vloki $p_emb $q_emb")
  if [[ ${BENCH_SCALE_MEMORY_EXT:-1} == 1 ]]; then
    p_ext=$(free_port) q_ext=$(free_port)
    start_vloki vloki-ext "$p_ext" -backend.url="http://127.0.0.1:$p_vlx" -server.pprof-listen-address=127.0.0.1:"$q_ext"; pid_ext=${pids[-1]}
    ext=(-target "vloki-ext=http://127.0.0.1:$p_ext,pid=$pid_ext") vlokis+=("vloki-ext $p_ext $q_ext")
  fi
  echo "phase memory: $n lines" >&2
  # The full scans (the queen volume, the |= needle) leave them out by
  # default: 50 of them at once take the storage engine's query memory in
  # every target alike (5.2–5.7 GB each at 30 M lines) and longer than
  # the requests' timeout.
  local wl=${BENCH_SCALE_MEMORY_WORKLOADS:-qw term,qw datacenter,qw datacenter_with_term,qw logs_volume,qw datacenter_logs_volume,qw term_datacenter_logs_volume,needle json trace_id}
  "$work/vloki-bench" scale -now "$now" -lines "$n" -days "${BENCH_SCALE_DAYS:-30}" -pushers "${BENCH_SCALE_PUSHERS:-4}" \
    -clients "${BENCH_SCALE_CLIENTS:-50}" -duration "${BENCH_SCALE_DURATION:-15s}" -window shifted -workloads "$wl" -out "$dir" \
    -target "vloki=http://127.0.0.1:$p_emb,pid=$pid_emb" "${ext[@]}" \
    -target "victorialogs=http://127.0.0.1:$p_vld,twins,pid=$pid_vld" >/dev/null
  for t in "${vlokis[@]}"; do
    set -- $t
    curl -sf "http://127.0.0.1:$3/debug/pprof/heap?gc=1" >"$dir/$1.heap"
    curl -sf "http://127.0.0.1:$2/metrics" >"$dir/$1.metrics"
  done
  disk memory "$n" >>"$dir/report.md"
  restart_timed "$dir" "$pid_emb"
  stop_phase
}

# restart_timed stops the embedded vloki cleanly and starts it again on
# its store, appending how long each took and its RSS once ready.
restart_timed() { # dir pid
  local t0 t1 t2 p
  t0=$(date +%s.%N); kill "$2"; while kill -0 "$2" 2>/dev/null; do sleep 0.05; done; t1=$(date +%s.%N)
  p=$(free_port)
  "$work/vloki" -server.http-listen-address=127.0.0.1 -server.http-listen-port="$p" -storage.path="$work/emb" \
    -limits.ingestion-rate-mb=0 -log.level=warn >"$work/vloki-restart.log" 2>&1 &
  pids+=($!); phase_pids+=($!)
  until curl -sf "http://127.0.0.1:$p/ready" >/dev/null 2>&1; do kill -0 "${pids[-1]}" || return 1; sleep 0.05; done
  t2=$(date +%s.%N)
  local rss; rss=$(awk '/VmRSS/ {print $2}' "/proc/${pids[-1]}/status")
  awk -v a="$t0" -v b="$t1" -v c="$t2" -v r="$rss" 'BEGIN { printf "\nRestart of the embedded vloki on its store: shutdown %.1f s, start-up to ready %.1f s, RSS once ready %d MiB.\n", b - a, c - b, r / 1024 }' >>"$1/report.md"
}

# The data ends 15 minutes ago, as in bench-load.
now=${BENCH_NOW:-$(($(date +%s) - 900))}
for phase in ${BENCH_SCALE_PHASES:-quickwit hicard}; do
  case $phase in
    quickwit) run_phase quickwit "$lines" ;;
    hicard) run_phase hicard "${BENCH_SCALE_HICARD_LINES:-$lines}" -hosts ;;
    loki) run_loki_phase loki ;;
    loki-hicard) run_loki_phase loki-hicard -hosts -days "${BENCH_SCALE_LOKI_HICARD_DAYS:-1}" ;;
    ingest) run_ingest_phase ;;
    memory) run_memory_phase ;;
    *) echo "unknown phase $phase: want quickwit, hicard, loki, loki-hicard, ingest or memory" >&2; exit 2 ;;
  esac
done
{
  echo "# Scale bench, $(date -u +'%Y-%m-%d %H:%M UTC')"
  for phase in ${BENCH_SCALE_PHASES:-quickwit hicard}; do
    echo; echo "## $phase"; echo; cat "$out/$phase/report.md"
  done
} >"$out/report.md"
echo "report: $out/report.md" >&2
