#!/usr/bin/env bash
# End-to-end tests in a real n8n (`npm run test:e2e`). Installs Node 24 + n8n when missing
# (cached), builds when dist/ is stale, packs the package once, then runs test/e2e/*.e2e.mjs
# with Node's test runner on the machine's Node. Extra arguments replace the file list:
#   bash test/e2e/run.sh test/e2e/tarball-loads.e2e.mjs
# Environment: E2E_CONCURRENCY (test files at once, default 2: most files spend their time waiting
# on real timers, and two at once keep the whole suite within CI's budget on 2 cores),
# RH_E2E_TMP (user folders; default a fresh $TMPDIR/n8n-nodes-resilient-http-e2e.XXXXXX per run,
# so that runs side by side never wipe each other's n8n folders; removed after a green run, kept
# for inspection after a red one).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
source scripts/n8n-env.sh

[ -d node_modules ] || npm ci
bash scripts/install-n8n.sh

entry="$(node -p "(require('./package.json').n8n.nodes || [])[0] || ''")"
if [ -z "$entry" ] || [ ! -f "$entry" ] || [ -n "$(find nodes credentials package.json tsconfig.json \
    tsconfig.build.json gulpfile.js -newer "$entry" -type f 2>/dev/null | head -n 1)" ]; then
  echo "[e2e] building"
  npm run --silent build
fi

if [ -z "${RH_E2E_TMP:-}" ]; then
  RH_E2E_TMP="$(mktemp -d "${TMPDIR:-/tmp}/n8n-nodes-resilient-http-e2e.XXXXXX")"
  own_tmp=1
else
  rm -rf "$RH_E2E_TMP"
  own_tmp=0
fi
export RH_E2E_TMP
mkdir -p "$RH_E2E_TMP/pack"
export RH_E2E_PIDFILE="$RH_E2E_TMP/pids"
export RH_E2E_TIMING_LOG="$RH_E2E_TMP/n8n-commands.tsv"
: > "$RH_E2E_PIDFILE"

# n8n processes the tests started and did not stop (a test process killed hard): their PIDs are
# in the PID file; each leads its own process group (n8n + its task runner).
cleanup() {
  local pid
  # after a green run the folder (and the PID file) is already gone: nothing left to stop
  [ -f "$RH_E2E_PIDFILE" ] || return 0
  while read -r pid; do
    [ -n "$pid" ] || continue
    if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q n8n; then
      echo "[e2e] killing leftover n8n process group $pid"
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    fi
  done < "$RH_E2E_PIDFILE"
}
trap cleanup EXIT

tarball="$(npm pack --silent --pack-destination "$RH_E2E_TMP/pack" | tail -n 1)"
export RH_E2E_TARBALL="$RH_E2E_TMP/pack/$tarball"

# The longest files start first, so that two lanes end together (longest-processing-time first);
# a file not named here runs after them. Durations from a full run on 2 cores, in seconds.
slowest_first=(
  dead-letter-replay # 220
  panel-defaults     # 210
  partial-failure    # 175
  npm-start          # 150
  long-wait          # 120
  failure-headlines  # 120
  queue-mode         # 115
  install-readme     # 110
  drop-in            # 105
  retry-execution    # 85
  dead-letter-week   # 85
  metrics            # 80
  docker-layout      # 75
  ai-tool-editor     # 70
  traffic-control-editor # 65
  traffic-control-names  # 95
  traffic-buckets    # 45
  ai-agent-tool      # 40
  guarded-openai     # 40
  data-table-cap     # 30
)
if [ $# -gt 0 ]; then
  files=("$@")
else
  files=()
  for name in "${slowest_first[@]}"; do [ -f "test/e2e/$name.e2e.mjs" ] && files+=("test/e2e/$name.e2e.mjs"); done
  for file in test/e2e/*.e2e.mjs; do
    case " ${files[*]} " in *" $file "*) ;; *) files+=("$file") ;; esac
  done
fi
started=$(date +%s)
status=0
node --test --test-concurrency="${E2E_CONCURRENCY:-2}" "${files[@]}" || status=$?
echo "[e2e] ${#files[@]} file(s) in $(( $(date +%s) - started )) s, exit $status (user folders: $RH_E2E_TMP)"
# where the time went: n8n commands (each boots n8n) per file, and server boots until ready
if [ -s "$RH_E2E_TIMING_LOG" ]; then
  awk -F'\t' '{ k++; all += $3 } END { printf "[e2e] %d n8n commands and server boots took %d s in all:\n", k, all / 1000 }' "$RH_E2E_TIMING_LOG"
  awk -F'\t' '{ n[$1]++; ms[$1] += $3 } END { for (f in n) printf "[e2e]   %-34s %3d commands %5d s\n", f, n[f], ms[f] / 1000 }' "$RH_E2E_TIMING_LOG" | sort -k5 -nr
fi
if [ "$status" = 0 ] && [ "$own_tmp" = 1 ]; then cleanup; rm -rf "$RH_E2E_TMP"; trap - EXIT; fi
exit "$status"
