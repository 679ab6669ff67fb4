#!/usr/bin/env bash
# `npm run bench`: the benchmarks in two parts, one run id for both.
#   1. real n8n (test/bench/real-n8n.bench.mjs, through test/e2e/run.sh: n8n installed when
#      missing, dist/ built when stale, the package packed and installed like n8n does): webhook
#      executions in a real n8n server and in queue mode; writes .bench/real-n8n.json.
#      BENCH_REAL_N8N=0 skips it; queue mode uses RH_TEST_REDIS_URL and RH_TEST_PG_URL, or starts
#      its own Redis and PostgreSQL (scripts/*-test-server.sh, Debian's packages) and stops them.
#   2. the engine (jest -c jest.bench.config.js): the in-process scenarios; reads
#      .bench/real-n8n.json when its runId is this run's, and writes BENCHMARKS.md.
# Sizes are environment variables (test/bench/real-n8n-lib.mjs, test/bench/config.ts). Extra
# arguments go to jest. The exit status is the first part's failure, else the second's.
set -euo pipefail
cd "$(dirname "$0")/../.."

export BENCH_RUN_ID="${BENCH_RUN_ID:-bench-$(date -u +%Y%m%dT%H%M%SZ)-$$-$RANDOM}"
echo "[bench] run $BENCH_RUN_ID"
started=$(date +%s)

real_status=0
if [ "${BENCH_REAL_N8N:-1}" != 0 ]; then
  # queue mode needs Redis and PostgreSQL: this run's own throwaway servers unless given
  stop_servers=()
  trap 'for s in "${stop_servers[@]}"; do bash "scripts/$s-test-server.sh" stop; done' EXIT
  if [ -z "${RH_TEST_REDIS_URL:-}" ]; then
    export RH_REDIS_TEST_DIR="${RH_REDIS_TEST_DIR:-${TMPDIR:-/tmp}/n8n-nodes-resilient-http-bench-redis}"
    redis_env="$(bash scripts/redis-test-server.sh start)"; export "$redis_env"; stop_servers+=(redis)
  fi
  if [ -z "${RH_TEST_PG_URL:-}" ]; then
    export RH_PG_TEST_DIR="${RH_PG_TEST_DIR:-${TMPDIR:-/tmp}/n8n-nodes-resilient-http-bench-postgres}"
    pg_env="$(bash scripts/postgres-test-server.sh start)"; export "$pg_env"; stop_servers+=(postgres)
  fi
  bash test/e2e/run.sh test/bench/real-n8n.bench.mjs || real_status=$?
  echo "[bench] real-n8n part: exit $real_status after $(( $(date +%s) - started )) s"
else
  echo "[bench] real-n8n part skipped (BENCH_REAL_N8N=0)"
fi

# the Redis store's cost per request (issue 24): its own Redis server (Debian's redis-server), the
# node's stores from dist/; BENCH_REDIS_COST=0 skips it, BENCH_REDIS_COST_ARGS gives its sizes
if [ "${BENCH_REDIS_COST:-1}" != 0 ]; then
  npx tsc -p tsconfig.build.json && node test/bench/redis-cost.mjs ${BENCH_REDIS_COST_ARGS:-} || echo "[bench] Redis cost part failed (exit $?)"
fi

engine_started=$(date +%s)
engine_status=0
npx jest -c jest.bench.config.js --runInBand "$@" || engine_status=$?
echo "[bench] engine part: exit $engine_status after $(( $(date +%s) - engine_started )) s; whole bench $(( $(date +%s) - started )) s"
[ "$real_status" = 0 ] || exit "$real_status"
exit "$engine_status"
