#!/usr/bin/env bash
# Prometheus' own tools for the metrics tests: promtool (its parser and linter: `promtool check
# metrics`) and the prometheus server (test/e2e/metrics.e2e.mjs scrapes the example workflow's
# webhook with it), both from Debian's package `prometheus`.
#
#   scripts/promtool.sh ensure   installs the package when promtool or prometheus is missing
#                                (apt-get, as root or through sudo); prints RH_PROMTOOL=... and
#                                RH_PROMETHEUS=... lines on stdout
#   scripts/promtool.sh check    prints the same lines when both are there; exits 1 (with the
#                                reason on stderr) when one is missing, installs nothing
set -euo pipefail
log() { echo "[promtool] $*" >&2; }

path_of() { command -v "$1" 2>/dev/null || true; }

print_env() {
  echo "RH_PROMTOOL=$(path_of promtool)"
  echo "RH_PROMETHEUS=$(path_of prometheus)"
}

check() {
  [ -n "$(path_of promtool)" ] || { log "no promtool: install Debian's package (apt-get install prometheus)"; return 1; }
  [ -n "$(path_of prometheus)" ] || { log "no prometheus: install Debian's package (apt-get install prometheus)"; return 1; }
}

ensure() {
  if ! check 2>/dev/null; then
    local sudo=""
    if [ "$(id -u)" != 0 ]; then
      command -v sudo >/dev/null 2>&1 || { log "prometheus is missing and neither root nor sudo is available: apt-get install prometheus"; exit 1; }
      sudo=sudo
    fi
    log "installing Debian's prometheus (apt-get)"
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends prometheus >&2
  fi
  check
}

case "${1:-}" in
  ensure) ensure && print_env ;;
  check) check && print_env ;;
  *) echo "usage: scripts/promtool.sh ensure|check" >&2; exit 2 ;;
esac
