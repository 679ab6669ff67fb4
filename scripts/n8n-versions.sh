#!/usr/bin/env bash
# Which n8n versions the package works on: installs each n8n version and runs the version checks
# there (the packed tarball loads and retries, the example workflows, the differential sample
# against that version's own HTTP Request), one line per version: "n8n <version>: passed" or "failed".
# The tested range is the versions with a lock in scripts/n8n-lock/ (the lowest is the floor,
# README: n8n versions); .ci/run runs the floor here at every commit (`npm test` runs the pinned n8n's
# full suite; CI's 30 minutes on 2 cores hold one more n8n install, not two). See
# docs/development.md#other-n8n-versions.
#
#   bash scripts/n8n-versions.sh [--record] [--others | --floor] [--install-only] [VERSION...]
#     no VERSION      every version of the tested range
#     --others        the tested range without the pinned version (N8N_VERSION of scripts/n8n-env.sh)
#     --floor         the oldest version of the range only (what CI runs)
#     --install-only  install (and check) each version, run nothing
#     --record        write the run's results to test/e2e/n8n-versions.json (the whole range only),
#                     from which `npm run readme:tested` writes the README's table
#
# For each version, with N8N_VERSION set to it (scripts/n8n-env.sh then names its own folder,
# $RH_CACHE/n8n-<version>, beside the others, and the same Node 24): scripts/install-n8n.sh installs
# that n8n from its lock and checks it (a cached, checked install is reused; a new one is installed
# as changes to another checked n8n of the cache, or unpacks about 2.9 GB), then test/e2e/run.sh runs the check files in it. The output of each version goes to a log
# (RH_VERSIONS_LOGS, default a fresh temp folder), named on its line. Exit status 1 when any version
# failed, 2 on a usage error.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
source "$here/n8n-env.sh"
pinned="$N8N_VERSION"

# what a version must pass: the tarball as n8n's installer puts it, the examples, the differential sample
check_files=(test/e2e/tarball-loads.e2e.mjs test/e2e/examples.e2e.mjs test/e2e/differential.e2e.mjs)
record_file="$repo/test/e2e/n8n-versions.json"

tested_range() { # the versions with a lock, oldest first
  local dir
  for dir in "$here"/n8n-lock/*/; do dir="${dir%/}"; echo "${dir##*/}"; done | sort -t. -k1,1n -k2,2n -k3,3n
}

record=0 others=0 floor=0 install_only=0 versions=()
for arg in "$@"; do
  case "$arg" in
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --record) record=1 ;;
    --others) others=1 ;;
    --floor) floor=1 ;;
    --install-only) install_only=1 ;;
    [0-9]*.[0-9]*.[0-9]*) versions+=("$arg") ;;
    *) echo "usage: $0 [--record] [--others | --floor] [--install-only] [VERSION...] (a version such as 2.41.1, got \"$arg\")" >&2; exit 2 ;;
  esac
done
if [ "${#versions[@]}" = 0 ] && [ "$floor" = 1 ]; then
  versions=("$(tested_range | head -n 1)")
elif [ "${#versions[@]}" = 0 ]; then
  while IFS= read -r version; do
    [ "$others" = 1 ] && [ "$version" = "$pinned" ] && continue
    versions+=("$version")
  done < <(tested_range)
fi
if [ "$record" = 1 ] && [ "${versions[*]}" != "$(tested_range | xargs)" ]; then
  echo "--record writes the whole tested range ($(tested_range | xargs)); this run has ${versions[*]}" >&2
  exit 2
fi

logs="${RH_VERSIONS_LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/n8n-versions.XXXXXX")}"
mkdir -p "$logs"
results=()
status=0
rows="$logs/results.tsv"
: > "$rows"
for version in "${versions[@]}"; do
  log="$logs/n8n-$version.log"
  started=$(date +%s)
  echo "[n8n-versions] n8n $version: installing (if not cached)$([ "$install_only" = 1 ] || echo " and running ${check_files[*]}") (log: $log)"
  if ! N8N_VERSION="$version" bash "$here/install-n8n.sh" >"$log" 2>&1; then
    line="n8n $version: failed (could not install it; see $log)"
    status=1
  elif [ "$install_only" = 1 ]; then
    line="n8n $version: installed"
  elif (cd "$repo" && N8N_VERSION="$version" bash test/e2e/run.sh "${check_files[@]}") >>"$log" 2>&1; then
    line="n8n $version: passed"
  else
    line="n8n $version: failed (see $log)"
    status=1
  fi
  # node --test's summary lines of this version's run: "# pass N", "# fail N"
  passed="$( (grep -E '^# pass [0-9]+$' "$log" || true) | tail -n 1 | awk '{ print $3 }')"
  failed="$( (grep -E '^# fail [0-9]+$' "$log" || true) | tail -n 1 | awk '{ print $3 }')"
  printf '%s\t%s\t%s\t%s\t%s\n' "$version" "${line#n8n $version: }" "${passed:-0}" "${failed:-0}" "$(( $(date +%s) - started ))" >> "$rows"
  echo "$line"
  # the failure itself, where the log may not outlive the run (CI's temp folder)
  case "$line" in *failed*) tail -n 60 "$log" | sed 's/^/    /' ;; esac
  results+=("$line")
done

echo
echo "[n8n-versions] ${check_files[*]}, $(date -u +%Y-%m-%dT%H:%M:%SZ), Node 24 $NODE24_VERSION, package $(node -p "require('$repo/package.json').version")"
printf '%s\n' "${results[@]}"

if [ "$record" = 1 ]; then
  ROWS="$rows" PINNED="$pinned" FLOOR="$(tested_range | head -n 1)" NODE24="$NODE24_VERSION" FILES="${check_files[*]}" node -e '
    const fs = require("fs");
    const versions = fs.readFileSync(process.env.ROWS, "utf8").trim().split("\n").map((line) => {
      const [version, result, passed, failed, seconds] = line.split("\t");
      return { version, pinned: version === process.env.PINNED, ci: version === process.env.PINNED || version === process.env.FLOOR, result: result.split(" ")[0], testsPassed: Number(passed), testsFailed: Number(failed), seconds: Number(seconds) };
    });
    const record = { ranAt: new Date().toISOString().replace(/\.\d+Z$/, "Z"), node: process.env.NODE24, package: require(process.argv[2] + "/package.json").version, files: process.env.FILES.split(" "), versions };
    fs.writeFileSync(process.argv[1], JSON.stringify(record, null, "\t") + "\n");
  ' "$record_file" "$repo"
  echo "[n8n-versions] recorded in ${record_file#"$repo"/} (the README's table: npm run readme:tested)"
fi
exit "$status"
