#!/usr/bin/env bash
# make bench-capacity: how vloki's throughput scales, on one machine, from
# one replica to two on one VictoriaLogs, and from a single VictoriaLogs
# node to a cluster of two storage nodes (one front serving vlinsert and
# vlselect). Every vloki runs cold (no results cache, no coalescing): the
# figures are what the replicas compute. Starts everything on loopback,
# seeds each storage once, runs the workloads, writes
# $BENCH_OUT/report.{md,json} (bench-results/capacity), stops everything by PID.
#
# Knobs: BENCH_DURATION (6s a step), BENCH_CLIENTS (10,50), BENCH_WORKLOADS
# (small,heavy,long_range), BENCH_LINES (725000), BENCH_OUT.
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"
out=${BENCH_OUT:-bench-results/capacity}

start_vl() { # name port extra-flags...
  local name=$1 port=$2; shift 2
  "$vlbin" -httpListenAddr=127.0.0.1:$port -storageDataPath="$work/$name" -retentionPeriod=100y \
    -loggerLevel=ERROR "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
  wait_ready "http://127.0.0.1:$port/health"
}
start_vloki() { # name port backend-url
  local name=$1 port=$2
  "$work/vloki" -server.http-listen-address=127.0.0.1 -server.http-listen-port="$port" -backend.url="$3" \
    -frontend.cache-results=false -frontend.coalesce=false -backend.sole-writer=off -limits.ingestion-rate-mb=0 -log.level=warn \
    >"$work/$name.log" 2>&1 &
  pids+=($!)
  wait_ready "http://127.0.0.1:$port/ready"
}

vl=$(free_port); start_vl single "$vl"; vl_pid=${pids[-1]}
s1=$(free_port); start_vl storage-1 "$s1"; s1_pid=${pids[-1]}
s2=$(free_port); start_vl storage-2 "$s2"; s2_pid=${pids[-1]}
front=$(free_port); start_vl front "$front" -storageNode=127.0.0.1:$s1,127.0.0.1:$s2; front_pid=${pids[-1]}
a=$(free_port); start_vloki vloki-a "$a" "http://127.0.0.1:$vl"; a_pid=${pids[-1]}
b=$(free_port); start_vloki vloki-b "$b" "http://127.0.0.1:$vl"; b_pid=${pids[-1]}
c=$(free_port); start_vloki vloki-c "$c" "http://127.0.0.1:$front"; c_pid=${pids[-1]}
d=$(free_port); start_vloki vloki-d "$d" "http://127.0.0.1:$front"; d_pid=${pids[-1]}

now=$(($(date +%s) - 900))
"$work/vloki-bench" seed -now "$now" -lines "${BENCH_LINES:-725000}" \
  -target "single=http://127.0.0.1:$a" -target "cluster=http://127.0.0.1:$c"
"$work/vloki-bench" run -now "$now" -duration "${BENCH_DURATION:-6s}" -clients "${BENCH_CLIENTS:-10,50}" \
  -workloads "${BENCH_WORKLOADS:-small,heavy,long_range}" -out "$out" -verify none \
  -target "1-replica-single-node=http://127.0.0.1:$a,pid=$a_pid+$vl_pid" \
  -target "2-replicas-single-node=http://127.0.0.1:$a|http://127.0.0.1:$b,pid=$a_pid+$b_pid+$vl_pid" \
  -target "1-replica-cluster=http://127.0.0.1:$c,pid=$c_pid+$front_pid+$s1_pid+$s2_pid" \
  -target "2-replicas-cluster=http://127.0.0.1:$c|http://127.0.0.1:$d,pid=$c_pid+$d_pid+$front_pid+$s1_pid+$s2_pid"
echo "report: $out/report.md" >&2
