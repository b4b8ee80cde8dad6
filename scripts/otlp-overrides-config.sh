#!/usr/bin/env bash
# Prints the parity oracle's Loki config with the otlp_config of
# TestOTLPOverridesMatchLoki (internal/testing/integration/testdata/otlp_overrides.yaml)
# added to its limits_config, for make otlp-record.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
overrides="$here/internal/testing/integration/testdata/otlp_overrides.yaml"
awk -v overrides="$overrides" '{print} /^limits_config:/ {
  print "  otlp_config:"
  while ((getline line < overrides) > 0) if (line !~ /^#/) print "    " line
}' "$here/parity/loki-config.yaml"
