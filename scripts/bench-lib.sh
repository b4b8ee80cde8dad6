# Sourced by the load scripts (bench-load.sh, bench-capacity.sh): a work
# directory, processes stopped by PID on exit, free loopback ports, a
# readiness wait, and the victoria-logs, vloki and vloki-bench binaries
# ($vlbin, $work/vloki, $work/vloki-bench).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
work=$(mktemp -d "${TMPDIR:-/tmp}/vloki-bench.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do while kill -0 "$p" 2>/dev/null; do sleep 0.2; done; done
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_ready() { for _ in $(seq 1 240); do curl -sf "$1" >/dev/null 2>&1 && return 0; sleep 0.25; done; echo "not ready: $1" >&2; return 1; }

cache=${VLOKI_CACHE:-$HOME/.cache/vloki}
CGO_ENABLED=0 go build -o "$work/vloki" ./cmd/vloki
CGO_ENABLED=0 go build -o "$work/vloki-bench" ./cmd/vloki-bench
# The external VictoriaLogs: the newest supported release unless
# BENCH_VL_RELEASE names another (vlrelease.Releases).
vlbin=$("$work/vloki-bench" victoria-logs ${BENCH_VL_RELEASE:+-release "$BENCH_VL_RELEASE"})
