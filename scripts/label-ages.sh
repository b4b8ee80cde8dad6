#!/usr/bin/env bash
# Label answers as data ages (docs/loki-label-index.md): starts two fresh Lokis
# v3.7.8 (scripts/label-ages/loki-parity.yaml: the parity oracle's settings;
# loki-defaults.yaml: Loki's default querier/ingester lookbacks), both with a
# 6m chunk idle period, and a vloki on the embedded engine; pushes the same
# streams into all three and asks each, once a minute for LABEL_AGES_MINUTES,
# label names, values, series and detected labels over the last 5m … 24h.
# Answers go to LABEL_AGES_OUT (JSON lines; scripts/label-ages/table.py reads
# them). Builds Loki (AGPL): needs VLOKI_BUILD_LOKI=1; not part of make test.
set -euo pipefail
[[ ${VLOKI_BUILD_LOKI:-} == 1 ]] || { echo "label-ages: set VLOKI_BUILD_LOKI=1 (builds Loki)" >&2; exit 1; }
here=$(cd "$(dirname "$0")/.." && pwd)
out=${LABEL_AGES_OUT:-$(mktemp "${TMPDIR:-/tmp}/label-ages.XXXXXX.jsonl")}
minutes=${LABEL_AGES_MINUTES:-48}
work=$(mktemp -d "${TMPDIR:-/tmp}/label-ages.XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

eval "$(LOKI_CONFIG=$here/scripts/label-ages/loki-parity.yaml "$here/scripts/loki-run.sh")"
pids+=("$LOKI_PID"); parity_url=$LOKI_URL parity_data=$LOKI_DATA
eval "$(LOKI_CONFIG=$here/scripts/label-ages/loki-defaults.yaml "$here/scripts/loki-run.sh")"
pids+=("$LOKI_PID"); defaults_url=$LOKI_URL defaults_data=$LOKI_DATA

(cd "$here" && go build -o "$work/vloki" ./cmd/vloki)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
"$work/vloki" -server.http-listen-address=127.0.0.1 -server.http-listen-port="$port" \
  -storage.path="$work/vl" >"$work/vloki.log" 2>&1 &
pids+=("$!")
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$port/ready" >/dev/null && break; sleep 0.5; done

echo "label-ages: answers to $out (Lokis: $parity_data $defaults_data; vloki: $work)" >&2
python3 "$here/scripts/label-ages/run.py" --minutes "$minutes" --out "$out" \
  --target "loki-parity=$parity_url=$parity_data" \
  --target "loki-defaults=$defaults_url=$defaults_data" \
  --target "vloki=http://127.0.0.1:$port"
