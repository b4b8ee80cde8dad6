#!/usr/bin/env bash
# Builds a command of Loki v3.7.8 from the Go module proxy — loki itself
# (the parity oracle) or loki-canary (its end-to-end checker) — and caches
# the binary. Loki is AGPL: it is built and run beside vloki, never
# imported or copied into it, and only by opt-in targets outside make test
# (which refuses it: VLOKI_NO_LOKI=1).
#
#   scripts/loki-build.sh               # prints loki's path
#   scripts/loki-build.sh loki-canary   # prints loki-canary's path
set -euo pipefail

# make test sets VLOKI_NO_LOKI=1: nothing it runs may build Loki.
if [[ ${VLOKI_NO_LOKI:-} == 1 ]]; then
  echo "loki-build: refused (VLOKI_NO_LOKI=1): make test builds no AGPL module; only the recording and checking targets (make parity-record, canary-check, canary-record, …) build Loki" >&2
  exit 1
fi

cmd=${1:-loki}
case $cmd in loki | loki-canary) ;; *) echo "loki-build: unknown command $cmd" >&2; exit 2 ;; esac
version=v3.7.8
cache=${VLOKI_CACHE:-$HOME/.cache/vloki}
out=$cache/loki-$version/$cmd
if [[ -x $out ]]; then
  echo "$out"
  exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.loki-build.lock"
flock 9
if [[ -x $out ]]; then
  echo "$out"
  exit 0
fi

src=$cache/loki-src-$version
if [[ ! -f $src/.complete ]]; then
  dir=$(go mod download -json "github.com/grafana/loki/v3@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [[ -d $dir ]] || { echo "loki-build: module download failed" >&2; exit 1; }
  rm -rf "$src"
  mkdir -p "$src"
  cp -R "$dir/." "$src/"
  chmod -R u+w "$src"
  # The module zip lacks pkg/push; take it from the proxy instead.
  sed -i '\#replace github.com/grafana/loki/pkg/push => ./pkg/push#d' "$src/go.mod"
  touch "$src/.complete"
fi

mkdir -p "$(dirname "$out")"
(cd "$src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -o "$out.tmp" "./cmd/$cmd") >&2
mv "$out.tmp" "$out"
echo "$out"
