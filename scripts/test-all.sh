#!/usr/bin/env bash
# The one test command (README: `npm test`): lint, build, unit tests, engine tests, then
# end-to-end tests in a real n8n that loads the built package. Fails on the first error.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n=== %s ===\n' "$*"; }

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  step "install dependencies"
  npm ci --no-audit --no-fund
fi

step "lint"
npm run --silent lint

step "type-check (sources and tests)"
npx tsc --noEmit -p tsconfig.json

step "build"
npm run --silent build

step "unit and engine tests (jest)"
[ -n "${RH_TEST_REDIS_URL:-}" ] || echo "RH_TEST_REDIS_URL not set: the Redis store tests are reported as skipped (.ci/run starts a Redis)"
npx jest --ci

step "end-to-end tests in real n8n"
# The browser tests drive the editor with Debian's Chromium and playwright-core (installed outside
# the repo, in the cache); without Chromium they are reported as skipped, unless RH_REQUIRE_BROWSER=1.
if browser_env="$(bash scripts/browser-tools.sh ensure --no-apt)"; then
  while IFS= read -r line; do export "$line"; done <<< "$browser_env"
else
  echo "no browser: the editor tests are reported as skipped (.ci/run installs Debian's chromium)"
fi
bash test/e2e/run.sh
