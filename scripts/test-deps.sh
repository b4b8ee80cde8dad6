#!/usr/bin/env bash
# Installs the real servers the tests run (Debian packages), when missing:
# memcached and redis-server for the shared results cache. Idempotent.
set -euo pipefail
missing=()
command -v memcached >/dev/null 2>&1 || missing+=(memcached)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v flock >/dev/null 2>&1 || missing+=(util-linux)
if ((${#missing[@]})); then
  echo "test-deps: installing ${missing[*]}" >&2
  sudo=""
  [[ $(id -u) == 0 ]] || sudo=sudo
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
