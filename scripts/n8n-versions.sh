#!/usr/bin/env bash
# Which n8n versions the package works on: runs the example workflows in each n8n version given
# (default: the pinned one, N8N_VERSION of scripts/n8n-env.sh) and prints one line per version,
# "n8n <version>: passed" or "failed". Not part of `npm test` or CI; see docs/development.md.
#
#   bash scripts/n8n-versions.sh [VERSION...]        e.g. bash scripts/n8n-versions.sh 2.41.1 <another>
#
# For each version, with N8N_VERSION set to it (scripts/n8n-env.sh then names its own folder,
# $RH_CACHE/n8n-<version>, beside the others, and the same Node 24):
#   1. scripts/install-n8n.sh installs that n8n into the cache and checks it (a cached, checked
#      install is reused; the first one downloads about 2.9 GB);
#   2. test/e2e/run.sh builds when dist/ is stale, packs the package, and runs
#      test/e2e/examples.e2e.mjs, whose harness installs the tarball into a fresh user folder of
#      that n8n (scripts/link-package.sh --tarball, as n8n's own installer does) and runs the
#      examples there with `n8n execute`.
# The output of each version goes to a log (RH_VERSIONS_LOGS, default a fresh temp folder), named
# on its line. Exit status 1 when any version failed, 2 on a usage error.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
source "$here/n8n-env.sh"

for arg in "$@"; do
  case "$arg" in
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    [0-9]*.[0-9]*.[0-9]*) ;;
    *) echo "usage: $0 [VERSION...] (a version such as 2.41.1, got \"$arg\")" >&2; exit 2 ;;
  esac
done
if [ $# -gt 0 ]; then versions=("$@"); else versions=("$N8N_VERSION"); fi

logs="${RH_VERSIONS_LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/n8n-versions.XXXXXX")}"
mkdir -p "$logs"
examples="test/e2e/examples.e2e.mjs"

results=()
status=0
for version in "${versions[@]}"; do
  log="$logs/n8n-$version.log"
  echo "[n8n-versions] n8n $version: installing (if not cached) and running $examples (log: $log)"
  if ! N8N_VERSION="$version" bash "$here/install-n8n.sh" >"$log" 2>&1; then
    line="n8n $version: failed (could not install it; see $log)"
    status=1
  elif (cd "$repo" && N8N_VERSION="$version" bash test/e2e/run.sh "$examples") >>"$log" 2>&1; then
    line="n8n $version: passed"
  else
    line="n8n $version: failed (the examples; see $log)"
    status=1
  fi
  echo "$line"
  results+=("$line")
done

echo
echo "[n8n-versions] $examples, $(date -u +%Y-%m-%dT%H:%M:%SZ), Node 24 $NODE24_VERSION, package $(node -p "require('$repo/package.json').version")"
printf '%s\n' "${results[@]}"
exit "$status"
