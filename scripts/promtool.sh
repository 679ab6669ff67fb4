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
# apt_install, shared with the test servers' scripts (which also define a log of their own: ours after it)
source "$(dirname "$0")/test-server-lib.sh"
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
  check 2>/dev/null || apt_install prometheus
  check
}

case "${1:-}" in
  ensure) ensure && print_env ;;
  check) check && print_env ;;
  *) echo "usage: scripts/promtool.sh ensure|check" >&2; exit 2 ;;
esac
