#!/usr/bin/env bash
# A throwaway Redis server for the Redis store's tests (test/unit/state/redis-store.test.ts).
#
#   scripts/redis-test-server.sh start   installs Debian's redis-server when missing (apt-get),
#                                        starts one on a free port of 127.0.0.1 (no persistence,
#                                        in a temp dir) and prints RH_TEST_REDIS_URL=redis://127.0.0.1:PORT
#   scripts/redis-test-server.sh stop    stops it (by its PID) and removes its dir
#   scripts/redis-test-server.sh url     prints the line again when it runs
#
# Use (a failed start stops a `set -e` script; `export "$(...)"` alone would hide the failure):
#        trap 'bash scripts/redis-test-server.sh stop' EXIT
#        redis_env="$(bash scripts/redis-test-server.sh start)"
#        export "$redis_env"
# stdout carries only the RH_TEST_REDIS_URL line; progress goes to stderr. A second `start` while
# one runs prints the running one's line. RH_REDIS_TEST_DIR moves the state dir (default
# $TMPDIR/n8n-nodes-resilient-http-redis): pid, port, env, redis.log.
set -euo pipefail

state_dir="${RH_REDIS_TEST_DIR:-${TMPDIR:-/tmp}/n8n-nodes-resilient-http-redis}"
server_name=redis
source "$(dirname "$0")/test-server-lib.sh"

install_redis() {
  command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 && return 0
  apt_install redis-server
}

start() {
  if running_pid >/dev/null; then
    cat "$state_dir/env"
    return 0
  fi
  install_redis
  rm -rf "$state_dir"
  mkdir -p "$state_dir"
  local attempt port pid
  for attempt in 1 2 3; do
    port="$(free_port)"
    # No persistence (no RDB snapshots, no AOF), local only, in its own dir.
    redis-server --port "$port" --bind 127.0.0.1 --protected-mode yes --save '' --appendonly no \
      --dir "$state_dir" --daemonize yes --pidfile "$state_dir/redis.pid" --logfile "$state_dir/redis.log" >&2
    for _ in $(seq 1 50); do
      if redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; then
        pid="$(cat "$state_dir/redis.pid")"
        echo "$pid" > "$state_dir/pid"
        echo "$port" > "$state_dir/port"
        echo "RH_TEST_REDIS_URL=redis://127.0.0.1:$port" > "$state_dir/env"
        log "redis-server $(redis-server --version | sed -n 's/.* v=\([^ ]*\).*/\1/p') on 127.0.0.1:$port (pid $pid)"
        cat "$state_dir/env"
        return 0
      fi
      sleep 0.1
    done
    log "redis-server did not answer on port $port (attempt $attempt):"
    tail -n 5 "$state_dir/redis.log" >&2 2>/dev/null || true
    [ -f "$state_dir/redis.pid" ] && kill "$(cat "$state_dir/redis.pid")" 2>/dev/null || true
  done
  exit 1
}

test_server_main "${1:-}" TERM 50
