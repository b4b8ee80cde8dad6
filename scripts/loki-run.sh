#!/usr/bin/env bash
# Starts the cached Loki oracle on free loopback ports with a fresh data
# directory and waits until it is ready. Prints LOKI_URL, LOKI_PID and
# LOKI_DATA as shell assignments; stop it with `kill $LOKI_PID`. LOKI_CONFIG
# replaces parity/loki-config.yaml; LOKI_ARGS are more flags (they win over
# the file's settings).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$("$here/scripts/loki-build.sh")

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
export LOKI_HTTP_PORT=$(free_port) LOKI_GRPC_PORT=$(free_port)
export LOKI_DATA=$(mktemp -d "${TMPDIR:-/tmp}/loki-oracle.XXXXXX")

# shellcheck disable=SC2086 # LOKI_ARGS is a list of flags
"$bin" -config.file="${LOKI_CONFIG:-$here/parity/loki-config.yaml}" -config.expand-env=true ${LOKI_ARGS:-} >"$LOKI_DATA/loki.log" 2>&1 &
pid=$!
url=http://127.0.0.1:$LOKI_HTTP_PORT
for _ in $(seq 1 240); do
  if [[ $(curl -s "$url/ready" || true) == ready ]]; then
    echo "LOKI_URL=$url"
    echo "LOKI_PID=$pid"
    echo "LOKI_DATA=$LOKI_DATA"
    exit 0
  fi
  kill -0 "$pid" 2>/dev/null || { echo "loki exited; see $LOKI_DATA/loki.log" >&2; tail -20 "$LOKI_DATA/loki.log" >&2; exit 1; }
  sleep 0.5
done
kill "$pid"
echo "loki not ready after 120s; see $LOKI_DATA/loki.log" >&2
exit 1
