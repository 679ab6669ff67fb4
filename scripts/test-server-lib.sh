# Sourced by scripts/redis-test-server.sh, scripts/postgres-test-server.sh and
# scripts/redis-cluster-test-server.sh: the parts of a throwaway test server that do not depend on
# which server it is. The caller sets `state_dir` and `server_name` (the log prefix and the word its
# process's command line holds), and defines `start` (which writes pid, port and env into state_dir).

log() { echo "[$server_name-test-server] $*" >&2; }

# The PID of the server this state dir started, when it still runs.
running_pid() {
  local pid
  [ -f "$state_dir/pid" ] || return 1
  pid="$(cat "$state_dir/pid")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "$server_name" || return 1
  echo "$pid"
}

# apt_install PACKAGE: Debian's package, as root or through sudo.
apt_install() {
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { log "$1 is missing and neither root nor sudo is available"; exit 1; }
    sudo="sudo"
  fi
  log "installing Debian's $1 (apt-get)"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$1" >&2
}

free_port() {
  node -e "const s = require('net').createServer(); s.listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); });"
}

# await_exit PID TENTHS: waits up to TENTHS tenths of a second for PID to exit, then SIGKILL.
await_exit() {
  for _ in $(seq 1 "$2"); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$1" 2>/dev/null || true
}

# stop_server SIGNAL TENTHS: sends SIGNAL, waits up to TENTHS tenths of a second, then SIGKILL.
stop_server() {
  local pid
  if pid="$(running_pid)"; then
    kill "-$1" "$pid"
    await_exit "$pid" "$2"
    log "stopped $server_name (pid $pid)"
  fi
  rm -rf "$state_dir"
}

# test_server_main "$@" STOP_SIGNAL STOP_TENTHS: the start|stop|url command line.
test_server_main() {
  case "${1:-}" in
    start) start ;;
    stop) stop_server "$2" "$3" ;;
    url) running_pid >/dev/null && cat "$state_dir/env" ;;
    *) echo "usage: $0 start|stop|url" >&2; exit 2 ;;
  esac
}
