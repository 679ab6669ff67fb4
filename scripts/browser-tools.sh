#!/usr/bin/env bash
# What the browser tests and scripts/screenshot.mjs drive the n8n editor with: Debian's Chromium
# and playwright-core, installed outside the repo (playwright-core is no dependency of the
# package, and no browser is ever downloaded: `npx playwright install` fails on this network).
#
#   scripts/browser-tools.sh ensure   installs what is missing: Debian's chromium (apt-get, as root
#                                     or through sudo) and playwright-core into the cache; prints
#                                     RH_CHROMIUM=... and RH_PLAYWRIGHT_CORE=... lines on stdout
#   scripts/browser-tools.sh ensure --no-apt
#                                     the same without apt-get: installs playwright-core only, and
#                                     exits 1 (with the reason) when Chromium is missing
#   scripts/browser-tools.sh check    prints the same lines when both are there; exits 1 (with the
#                                     reason on stderr) when one is missing, installs nothing
#
# Environment: RH_CACHE (see n8n-env.sh), CHROMIUM (default: the chromium on PATH).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/n8n-env.sh"

PLAYWRIGHT_CORE_VERSION="${PLAYWRIGHT_CORE_VERSION:-1.65.1}"
prefix="$RH_CACHE/playwright-core-$PLAYWRIGHT_CORE_VERSION"
module="$prefix/node_modules/playwright-core"
log() { echo "[browser-tools] $*" >&2; }

chromium_path() { command -v "${CHROMIUM:-chromium}" 2>/dev/null || true; }

print_env() {
  echo "RH_CHROMIUM=$(chromium_path)"
  echo "RH_PLAYWRIGHT_CORE=$module"
}

check() {
  [ -n "$(chromium_path)" ] || { log "no Chromium: install Debian's package (apt-get install chromium) or set CHROMIUM"; return 1; }
  [ -f "$module/package.json" ] || { log "playwright-core is not in $prefix: run scripts/browser-tools.sh ensure"; return 1; }
}

ensure() {
  if [ -z "$(chromium_path)" ] && [ "${1:-}" != --no-apt ]; then
    local sudo=""
    if [ "$(id -u)" != 0 ]; then
      command -v sudo >/dev/null 2>&1 || { log "Chromium is missing and neither root nor sudo is available: apt-get install chromium"; exit 1; }
      sudo=sudo
    fi
    log "installing Debian's chromium (apt-get, about a minute)"
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >&2
  fi
  if [ ! -f "$module/package.json" ]; then
    log "installing playwright-core $PLAYWRIGHT_CORE_VERSION into $prefix"
    mkdir -p "$prefix"
    echo '{"private":true}' > "$prefix/package.json"
    # --ignore-scripts: playwright-core's scripts would look for browsers; we bring our own
    (cd "$prefix" && env -u npm_config_ignore_scripts npm install --no-audit --no-fund --ignore-scripts \
      "playwright-core@$PLAYWRIGHT_CORE_VERSION" >"$prefix/install.log" 2>&1) ||
      { tail -n 20 "$prefix/install.log" >&2; log "npm could not install playwright-core"; exit 1; }
  fi
  check
}

case "${1:-}" in
  ensure) ensure "${2:-}"; print_env ;;
  check) check; print_env ;;
  *) echo "usage: $0 ensure|check" >&2; exit 2 ;;
esac
