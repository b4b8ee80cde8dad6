#!/usr/bin/env bash
# Installs the real servers the tests run (Debian packages), when missing:
# memcached and redis-server for the shared results cache, Alertmanager
# for the ruler's notifications. Idempotent.
set -euo pipefail
missing=()
command -v memcached >/dev/null 2>&1 || missing+=(memcached)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v flock >/dev/null 2>&1 || missing+=(util-linux)
[[ -x /usr/bin/prometheus-alertmanager ]] || missing+=(prometheus-alertmanager)
((${#missing[@]})) || exit 0

echo "test-deps: installing ${missing[*]}" >&2
sudo=""
[[ $(id -u) == 0 ]] || sudo=sudo
# The packages' own services must not start (Alertmanager would hold
# :9093 and gossip on :9094): invoke-rc.d and deb-systemd-invoke obey
# policy-rc.d's 101, "action forbidden".
policy=/usr/sbin/policy-rc.d
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod 755 "$policy"
  trap '$sudo rm -f "$policy"' EXIT
fi
$sudo apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
# Where systemd runs, keep Alertmanager's unit off for good.
if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null 2>&1; then
  $sudo systemctl disable --now prometheus-alertmanager >/dev/null 2>&1 || true
fi
