#!/usr/bin/env bash
# The one test command (README: `npm test`): lint, build, unit tests, engine tests, real-time tests, then
# end-to-end tests in a real n8n that loads the built package. Fails on the first error.
#
# On a new machine Node 24 and n8n are installed first (scripts/install-n8n.sh, minutes: about
# 3 GB unpacked): that runs in the background while the checks, the unit tests and the engine
# tests, none of which needs the installed n8n, run. The install is mostly download and disk: the
# engine tests took as long beside it as alone (177 s against 182 s, 2 cores), and running them
# there takes their minutes off the path to the end-to-end tests, which wait for the install.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n=== %s ===\n' "$*"; }
work_dir="$(mktemp -d)"
install_pid=""
cleanup() {
  # The install runs in its own process group (setsid below): stopping only its shell left npm
  # writing into the cache while a failed run's caller deleted it ("Directory not empty").
  if [ -n "$install_pid" ]; then
    kill -- -"$install_pid" 2>/dev/null || true
    wait "$install_pid" 2>/dev/null || true
  fi
  rm -rf "$work_dir"
}
trap cleanup EXIT

step "Node 24 and n8n for the end-to-end tests: installing in the background (log: $work_dir/install-n8n.log)"
install_started=$(date +%s)
setsid bash scripts/install-n8n.sh > "$work_dir/install-n8n.log" 2>&1 &
install_pid=$!

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  step "install dependencies"
  npm ci --no-audit --no-fund
fi

# Lint, type-check and build read the sources and write nothing the others read: side by side on
# the machine's cores (each alone leaves one core idle), each one's output printed whole after.
step "lint, type-check (sources and tests) and build, side by side"
checks_dir="$work_dir/checks"
mkdir -p "$checks_dir"
checks=()
check() { # name command...: runs in the background, its output and exit status kept under its name
  local name="$1"; shift
  checks+=("$name")
  ( "$@" > "$checks_dir/$name.log" 2>&1; echo $? > "$checks_dir/$name.rc" ) &
}
check lint npm run --silent lint
check type-check npx tsc --noEmit -p tsconfig.json
check build npm run --silent build
for job in $(jobs -p); do [ "$job" = "$install_pid" ] || wait "$job" || true; done
failed=0
for check in "${checks[@]}"; do
  rc="$(cat "$checks_dir/$check.rc" 2>/dev/null || echo 1)"
  echo "--- $check: exit $rc"
  cat "$checks_dir/$check.log"
  [ "$rc" = 0 ] || failed=1
done
[ "$failed" = 0 ] || { echo "lint, type-check or build failed (above)"; exit 1; }

step "unit tests (jest)"
[ -n "${RH_TEST_REDIS_URL:-}" ] || echo "RH_TEST_REDIS_URL not set: the Redis store tests are reported as skipped (.ci/run starts a Redis)"
npx jest --ci --selectProjects unit

step "engine tests (jest)"
npx jest --ci --selectProjects engine

# The few tests that time something real (a Redis's TTLs, pub/sub, a refused socket), apart from
# the unit and engine tests, which run on injected clocks (docs/testing.md)
step "real-time tests (jest)"
npx jest --ci --selectProjects realtime

step "waiting for the install of Node 24 and n8n"
install_status=0
wait "$install_pid" || install_status=$?
install_pid=""
cat "$work_dir/install-n8n.log"
echo "(install and check of Node 24 and n8n: exit $install_status, $(( $(date +%s) - install_started )) s in the background)"
[ "$install_status" = 0 ] || exit "$install_status"

step "end-to-end tests in real n8n"
# The browser tests drive the editor with Debian's Chromium and playwright-core (installed outside
# the repo, in the cache); without Chromium they are reported as skipped, unless RH_REQUIRE_BROWSER=1.
if browser_env="$(bash scripts/browser-tools.sh ensure --no-apt)"; then
  while IFS= read -r line; do export "$line"; done <<< "$browser_env"
else
  echo "no browser: the editor tests are reported as skipped (.ci/run installs Debian's chromium)"
fi
bash test/e2e/run.sh
