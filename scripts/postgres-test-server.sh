#!/usr/bin/env bash
# A throwaway PostgreSQL server for the queue-mode end-to-end test (test/e2e/queue-mode.e2e.mjs:
# n8n's main and workers need a database they all reach; SQLite is one process's file).
#
#   scripts/postgres-test-server.sh start   installs Debian's postgresql when missing (apt-get),
#                                           initdb + postgres in a temp dir (run as the `postgres`
#                                           OS user when started by root: postgres refuses root),
#                                           on a free port of 127.0.0.1, trust auth, no fsync;
#                                           creates the role and database `n8n` (the role may
#                                           create databases) and prints
#                                           RH_TEST_PG_URL=postgres://n8n:n8n@127.0.0.1:PORT/n8n
#   scripts/postgres-test-server.sh stop    stops it (by its PID) and removes its dir
#   scripts/postgres-test-server.sh url     prints the line again when it runs
#
# Use (a failed start stops a `set -e` script; `export "$(...)"` alone would hide the failure):
#        trap 'bash scripts/postgres-test-server.sh stop' EXIT
#        pg_env="$(bash scripts/postgres-test-server.sh start)"
#        export "$pg_env"
# stdout carries only the RH_TEST_PG_URL line; progress goes to stderr. A second `start` while one
# runs prints the running one's line. RH_PG_TEST_DIR moves the state dir (default
# $TMPDIR/n8n-nodes-resilient-http-postgres; the `postgres` user must be able to reach it): pid,
# port, env, postgres.log, data/, the Unix socket.
set -euo pipefail

state_dir="${RH_PG_TEST_DIR:-${TMPDIR:-/tmp}/n8n-nodes-resilient-http-postgres}"
server_name=postgres
source "$(dirname "$0")/test-server-lib.sh"

# The newest installed major version's binaries (Debian keeps them off PATH).
pg_bin() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  [ -n "$dir" ] && [ -x "$dir/postgres" ] && [ -x "$dir/initdb" ] && echo "$dir"
}

# As root: run as the `postgres` OS user (created by Debian's package). Otherwise as ourselves.
as_pg() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

install_postgres() {
  pg_bin >/dev/null && return 0
  apt_install postgresql
  pg_bin >/dev/null || { log "no /usr/lib/postgresql/*/bin/postgres after installing postgresql"; exit 1; }
}

start() {
  if running_pid >/dev/null; then
    cat "$state_dir/env"
    return 0
  fi
  install_postgres
  local bin
  bin="$(pg_bin)"
  rm -rf "$state_dir"
  mkdir -p "$state_dir"
  chmod 700 "$state_dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$state_dir"
  if ! as_pg test -w "$state_dir"; then
    log "the postgres user cannot write $state_dir (a parent dir is closed to it): set RH_PG_TEST_DIR, e.g. under /tmp"
    exit 1
  fi
  # Trust on loopback only (listen_addresses below); no WAL sync: a test database, thrown away.
  as_pg "$bin/initdb" -D "$state_dir/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$state_dir/initdb.log" 2>&1 \
    || { log "initdb failed:"; tail -n 20 "$state_dir/initdb.log" >&2; exit 1; }
  local attempt port pid
  for attempt in 1 2 3; do
    port="$(free_port)"
    # pg_ctl -w returns once the server accepts connections; postgres (the postmaster) keeps running
    # in the background, its PID in data/postmaster.pid.
    if as_pg "$bin/pg_ctl" -D "$state_dir/data" -l "$state_dir/postgres.log" -s -w -t 30 start \
        -o "-p $port -c listen_addresses=127.0.0.1 -k $state_dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100" >&2; then
      pid="$(head -n 1 "$state_dir/data/postmaster.pid")"
      echo "$pid" > "$state_dir/pid"
      echo "$port" > "$state_dir/port"
      as_pg "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt \
        -c "CREATE ROLE n8n LOGIN CREATEDB PASSWORD 'n8n'" -c "CREATE DATABASE n8n OWNER n8n" >&2
      echo "RH_TEST_PG_URL=postgres://n8n:n8n@127.0.0.1:$port/n8n" > "$state_dir/env"
      log "postgres $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (pid $pid), database n8n"
      cat "$state_dir/env"
      return 0
    fi
    log "postgres did not start on port $port (attempt $attempt):"
    tail -n 5 "$state_dir/postgres.log" >&2 2>/dev/null || true
    [ -f "$state_dir/data/postmaster.pid" ] && kill -KILL "$(head -n 1 "$state_dir/data/postmaster.pid")" 2>/dev/null || true
    sleep 0.5
  done
  exit 1
}

# SIGINT: postgres's "fast shutdown" (ends sessions, no waiting for clients)
test_server_main "${1:-}" INT 100
