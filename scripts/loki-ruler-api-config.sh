#!/usr/bin/env bash
# Prints the parity oracle's Loki config made a writable ruler for make
# ruler-api-record: tenants on (auth_enabled), rules in a filesystem
# bucket (Loki v3.7.8's writable store needs ruler_storage, read only
# with storage_config.use_thanos_objstore, which also moves the chunks to
# object_store), and a 1s poll_interval so that the ruler lists a change
# within seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sed 's/^auth_enabled: false$/auth_enabled: true/' "$here/parity/loki-config.yaml"
cat <<'YAML'

storage_config:
  use_thanos_objstore: true
  object_store:
    filesystem:
      dir: ${LOKI_DATA}/objects

ruler_storage:
  backend: filesystem
  filesystem:
    dir: ${LOKI_DATA}/rules-store

ruler:
  poll_interval: 1s
  rule_path: ${LOKI_DATA}/rules-temp
YAML
