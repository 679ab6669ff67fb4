#!/usr/bin/env bash
# A throwaway Redis Cluster (three masters, no replicas) for the Redis store's cluster tests
# (test/unit/state/redis-store.test.ts), from Debian's redis-server like redis-test-server.sh.
#
#   scripts/redis-cluster-test-server.sh start   prints RH_TEST_REDIS_CLUSTER_NODES=127.0.0.1:P1,...
#   scripts/redis-cluster-test-server.sh stop    stops the three (by their PIDs) and removes the dir
# RH_REDIS_CLUSTER_TEST_DIR moves the state dir (default $TMPDIR/n8n-nodes-resilient-http-redis-cluster).
set -euo pipefail

state_dir="${RH_REDIS_CLUSTER_TEST_DIR:-${TMPDIR:-/tmp}/n8n-nodes-resilient-http-redis-cluster}"
server_name=redis-cluster
source "$(dirname "$0")/test-server-lib.sh"

start() {
  if [ -f "$state_dir/env" ] && redis-cli -p "$(cut -d, -f1 "$state_dir/env" | sed 's/.*://')" ping >/dev/null 2>&1; then
    cat "$state_dir/env"
    return 0
  fi
  command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 || apt_install redis-server
  rm -rf "$state_dir"
  mkdir -p "$state_dir"
  local nodes=() port
  for _ in 1 2 3; do
    port="$(free_port)"
    mkdir -p "$state_dir/$port"
    redis-server --port "$port" --bind 127.0.0.1 --cluster-enabled yes --cluster-config-file nodes.conf \
      --save '' --appendonly no --dir "$state_dir/$port" --daemonize yes \
      --pidfile "$state_dir/$port/redis.pid" --logfile "$state_dir/$port/redis.log" >&2
    nodes+=("127.0.0.1:$port")
  done
  for node in "${nodes[@]}"; do
    for _ in $(seq 1 50); do
      redis-cli -p "${node##*:}" ping 2>/dev/null | grep -q PONG && break
      sleep 0.1
    done
  done
  redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >&2
  for _ in $(seq 1 100); do
    redis-cli -p "${nodes[0]##*:}" cluster info 2>/dev/null | grep -q 'cluster_state:ok' && break
    sleep 0.1
  done
  local list
  list="$(IFS=,; echo "${nodes[*]}")"
  echo "RH_TEST_REDIS_CLUSTER_NODES=$list" > "$state_dir/env"
  log "Redis Cluster on $list"
  cat "$state_dir/env"
}

stop() {
  local pids=() pid pidfile
  for pidfile in "$state_dir"/*/redis.pid; do
    [ -f "$pidfile" ] || continue
    pid="$(cat "$pidfile")"
    kill "$pid" 2>/dev/null && pids+=("$pid")
  done
  # a node writes its nodes.conf as it shuts down: the dir is removed once all three have exited
  # (removed at once, CI saw rm fail on a folder a node was still writing into), SIGKILL after 5 s
  for pid in "${pids[@]}"; do await_exit "$pid" 50; done
  [ "${#pids[@]}" = 0 ] || log "stopped the cluster's nodes (pids ${pids[*]})"
  rm -rf "$state_dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
