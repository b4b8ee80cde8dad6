#!/usr/bin/env bash
# Builds Loki v3.7.8 from the Go module proxy, as the parity oracle, and
# caches the binary. Loki is AGPL: it is built and run beside vloki, never
# imported or copied into it.
#
#   scripts/loki-build.sh        # prints the binary's path
set -euo pipefail

version=v3.7.8
cache=${VLOKI_CACHE:-$HOME/.cache/vloki}
out=$cache/loki-$version/loki
if [[ -x $out ]]; then
  echo "$out"
  exit 0
fi

dir=$(go mod download -json "github.com/grafana/loki/v3@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[[ -d $dir ]] || { echo "loki-build: module download failed" >&2; exit 1; }

src=$cache/loki-src-$version
rm -rf "$src"
mkdir -p "$src" "$(dirname "$out")"
cp -R "$dir/." "$src/"
chmod -R u+w "$src"
# The module zip lacks pkg/push; take it from the proxy instead.
sed -i '\#replace github.com/grafana/loki/pkg/push => ./pkg/push#d' "$src/go.mod"

(cd "$src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -o "$out.tmp" ./cmd/loki) >&2
mv "$out.tmp" "$out"
echo "$out"
