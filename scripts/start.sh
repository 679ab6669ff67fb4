#!/usr/bin/env bash
# `npm start`: runs this package in a real n8n on http://127.0.0.1:5678, with the example
# workflows imported and the demo API they call (scripts/demo-api.js) on http://127.0.0.1:8787,
# in the foreground. Ctrl-C, or SIGTERM to this script or to `npm start`, stops all of it.
#
# On a fresh machine it first installs what is missing: the repo's dependencies, then Node 24 and
# n8n (scripts/install-n8n.sh, about 5 minutes the first time, cached in
# ~/.cache/n8n-nodes-resilient-http). Later runs skip every step that is already done.
#
# Steps: npm ci (if node_modules/ is missing) -> install-n8n.sh -> npm run build (if sources are
# newer than dist/) -> copy the package into the user folder .n8n-local/ -> import workflows/*.json
# (when they or the demo port changed) and publish the ones with a webhook or a schedule -> demo API
# -> n8n start.
#
# n8n 2.x shows an owner sign-up page on a fresh instance. To skip it, the owner is created from
# environment variables (N8N_INSTANCE_OWNER_MANAGED_BY_ENV) with a local-only login printed below.
#
# Environment: N8N_PORT (5678), N8N_RUNNERS_BROKER_PORT (port + 1), RH_DEMO_PORT (8787: the demo
# API; the imported examples point at it), RH_USER_FOLDER (.n8n-local), RH_OWNER_EMAIL /
# RH_OWNER_PASSWORD (the login), RH_SKIP_BUILD=1, RH_WORKFLOWS_DIR (workflows).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
source scripts/n8n-env.sh

port="${N8N_PORT:-5678}"
broker_port="${N8N_RUNNERS_BROKER_PORT:-$((port + 1))}"
demo_port="${RH_DEMO_PORT:-8787}"
user_folder="${RH_USER_FOLDER:-$repo/.n8n-local}"
owner_email="${RH_OWNER_EMAIL:-admin@example.com}"
owner_password="${RH_OWNER_PASSWORD:-ResilientHttp-local1}"
# bcrypt of the default password (n8n takes a hash, never the password itself).
default_hash='$2a$10$gCkXwqu7ffIrG6UVIfyeT.byPkAxlKdlJwaCdX404DWjOfGwOSFAu'
# The demo API's URL the example workflows are written with (and n8n's, in their notes): rewritten
# on import when RH_DEMO_PORT or N8N_PORT differ.
examples_base_url='http://127.0.0.1:8787'
demo_url="http://127.0.0.1:$demo_port"
started=$(date +%s)
say() { echo "[start] $*"; }
step_no=0
step() { step_no=$((step_no + 1)); say "step $step_no/6: $* ($(( $(date +%s) - started )) s)"; }

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for p in "$port:N8N_PORT (n8n; is it already running?)" "$broker_port:N8N_RUNNERS_BROKER_PORT (n8n's task runners)" "$demo_port:RH_DEMO_PORT (the demo API)"; do
  if port_in_use "${p%%:*}"; then
    say "port ${p%%:*} is already in use: set ${p#*:} to use another one."
    exit 1
  fi
done

# 1. The repo's own dependencies (the build needs them).
step "the repo's dependencies"
if [ ! -d node_modules ]; then
  say "installing them (npm ci, about a minute)"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
fi

# 2. Node 24 and n8n, pinned, outside the repo.
step "Node 24 and n8n $N8N_VERSION"
bash scripts/install-n8n.sh

# 3. Build when dist/ is missing or older than any source.
step "build"
entry="$(node -p "(require('./package.json').n8n.nodes || [])[0] || ''")"
needs_build() {
  [ -n "$entry" ] && [ -f "$entry" ] || return 0
  [ -n "$(find nodes credentials package.json tsconfig.json tsconfig.build.json gulpfile.js \
      -newer "$entry" -type f 2>/dev/null | head -n 1)" ]
}
if [ "${RH_SKIP_BUILD:-}" != 1 ] && needs_build; then
  say "building (npm run build)"
  npm run --silent build
fi

# 4. Make n8n load the package.
step "install the package into $user_folder"
bash scripts/link-package.sh "$user_folder"

export PATH="$NODE24_BIN:$PATH"
export N8N_USER_FOLDER="$user_folder"
export DB_TYPE=sqlite
export N8N_PORT="$port"
export N8N_LISTEN_ADDRESS=127.0.0.1
export N8N_RUNNERS_BROKER_PORT="$broker_port"
export N8N_DIAGNOSTICS_ENABLED=false
export N8N_VERSION_NOTIFICATIONS_ENABLED=false
export N8N_TEMPLATES_ENABLED=false
export N8N_PERSONALIZATION_ENABLED=false
# the editor would fetch the verified community-node catalogue from the internet and log failures offline
export N8N_VERIFIED_PACKAGES_ENABLED=false
# A catalogue of MCP servers fetched from api.n8n.io at start: not needed here, and noisy offline.
export N8N_DISABLED_MODULES="${N8N_DISABLED_MODULES:-mcp-registry}"
# Plain http on loopback only: let every browser keep the session cookie.
export N8N_SECURE_COOKIE=false
export N8N_INSTANCE_OWNER_MANAGED_BY_ENV=true
export N8N_INSTANCE_OWNER_EMAIL="$owner_email"
export N8N_INSTANCE_OWNER_FIRST_NAME=Local
export N8N_INSTANCE_OWNER_LAST_NAME=Owner
if [ "$owner_password" = ResilientHttp-local1 ]; then
  export N8N_INSTANCE_OWNER_PASSWORD_HASH="$default_hash"
else
  N8N_INSTANCE_OWNER_PASSWORD_HASH="$(cd "$N8N_HOME" && node -e \
    'process.stdout.write(require("bcryptjs").hashSync(process.argv[1], 10))' "$owner_password")"
  export N8N_INSTANCE_OWNER_PASSWORD_HASH
fi
n8n() { "$NODE24_BIN/node" "$N8N_BIN" "$@"; }

# 5. Example workflows (each has a fixed id): import again only when the files or the demo port
#    changed, so edits made in the editor survive a restart. Workflows with a webhook or a
#    schedule are published, so that their production URL answers at once and schedules run.
step "example workflows"
shopt -s nullglob
workflows_dir="${RH_WORKFLOWS_DIR:-$repo/workflows}"
workflow_files=("$workflows_dir"/*.json)
if [ ${#workflow_files[@]} -gt 0 ]; then
  # the demo credentials the examples name (11: the OpenAI node's, whose Base URL is the demo API)
  demo_credentials="$repo/scripts/demo-credentials.json"
  sum="$( (sha256sum "${workflow_files[@]}" "$demo_credentials"; echo "demo $demo_url n8n $port") | sha256sum | cut -d' ' -f1)"
  stamp="$user_folder/.workflows-imported"
  if [ "$(cat "$stamp" 2>/dev/null || true)" != "$sum" ]; then
    say "importing ${#workflow_files[@]} workflow(s) from $workflows_dir (calling the demo API at $demo_url)"
    import_dir="$(mktemp -d)"
    trap 'rm -rf "$import_dir"' EXIT
    node -e '
      const fs = require("fs"), path = require("path");
      const [out, fromApi, toApi, fromN8n, toN8n, ...files] = process.argv.slice(1);
      const published = [];
      for (const file of files) {
        const text = fs.readFileSync(file, "utf8").split(fromApi).join(toApi).split(fromN8n).join(toN8n);
        fs.writeFileSync(path.join(out, path.basename(file)), text);
        const workflow = JSON.parse(text);
        // published: a webhook answers at its production URL, a schedule runs (example 07 replays every minute)
        if (workflow.nodes.some((n) => n.type === "n8n-nodes-base.webhook" || n.type === "n8n-nodes-base.scheduleTrigger")) published.push(workflow.id);
      }
      fs.writeFileSync(path.join(out, ".publish"), published.map((id) => id + "\n").join(""));
    ' "$import_dir" "$examples_base_url" "$demo_url" "http://127.0.0.1:5678" "http://127.0.0.1:$port" "${workflow_files[@]}"
    n8n import:workflow --separate --input="$import_dir" >"$user_folder/import.log" 2>&1 ||
      { cat "$user_folder/import.log"; say "workflow import failed"; exit 1; }
    # the credential points at the demo API too; n8n encrypts it with this user folder's key
    sed "s#$examples_base_url#$demo_url#g" "$demo_credentials" > "$import_dir/demo-credentials.json"
    n8n import:credentials --input="$import_dir/demo-credentials.json" >>"$user_folder/import.log" 2>&1 ||
      { cat "$user_folder/import.log"; say "importing the demo credentials failed"; exit 1; }
    while read -r id; do
      [ -n "$id" ] || continue
      n8n publish:workflow --id="$id" >>"$user_folder/import.log" 2>&1 ||
        { cat "$user_folder/import.log"; say "publishing workflow $id failed"; exit 1; }
    done < "$import_dir/.publish"
    rm -rf "$import_dir"
    trap - EXIT
    echo "$sum" > "$stamp"
  else
    say "already imported (delete $stamp to import them again)"
  fi
fi

# 6. The demo API and n8n, each in its own process group; whatever ends first (Ctrl-C, SIGTERM,
#    either process exiting) stops both, and this script waits until they are gone.
step "start the demo API and n8n"
demo_pid=""
n8n_pid=""
stopping=0
stop_all() {
  [ "$stopping" = 1 ] && return
  stopping=1
  trap - INT TERM HUP
  local pid
  for pid in $n8n_pid $demo_pid; do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
  # n8n shuts down gracefully within a few seconds; whatever still runs after 20 s is killed
  for _ in $(seq 1 200); do
    local alive=0
    for pid in $n8n_pid $demo_pid; do kill -0 -- "-$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in $n8n_pid $demo_pid; do kill -KILL -- "-$pid" 2>/dev/null || true; done
}
on_signal() { say "stopping n8n and the demo API"; stop_all; exit 0; }
trap on_signal INT TERM HUP
trap stop_all EXIT

# guarded PID CMD...: runs CMD in a process group of its own, led by a small guard that stops
# CMD when the process PID is gone, so that nothing outlives this script, even when it is killed
# with SIGKILL (which no trap sees).
guarded() {
  setsid bash -c '
    watched=$1; shift
    "$@" & child=$!
    trap "kill -TERM $child 2>/dev/null" TERM INT HUP
    while kill -0 "$watched" 2>/dev/null && kill -0 "$child" 2>/dev/null; do sleep 1; done
    kill -TERM "$child" 2>/dev/null
    wait "$child"' guard "$$" "$@"
}

RH_DEMO_PORT="$demo_port" guarded node scripts/demo-api.js &
demo_pid=$!
log_file="$user_folder/n8n.log"
: > "$log_file"
# tee ignores Ctrl-C, so that n8n's shutdown messages still reach the terminal and the log
guarded "$NODE24_BIN/node" "$N8N_BIN" start > >(trap '' INT; exec tee -a "$log_file") 2>&1 &
n8n_pid=$!

# Ready: /healthz/readiness answers 200 and the published workflows' webhooks are registered
# (n8n answers readiness, and prints its editor URL, before it registers them).
(
  ready=0
  node scripts/webhooks-ready.js "http://127.0.0.1:$port" "${workflow_files[@]}" --pid "$n8n_pid" --pid "$demo_pid" || ready=$?
  case $ready in
    0) ;;
    2) say "the banner comes anyway: n8n itself is up" ;;
    *) exit 0 ;;
  esac
  cat <<EOF

  ==================================================================================
   n8n $N8N_VERSION with n8n-nodes-resilient-http is ready ($(( $(date +%s) - started )) s)
     Editor:    http://127.0.0.1:$port
     Sign in:   $owner_email  /  $owner_password   (local-only account)
     Examples:  Overview > the ten "Resilient HTTP" / "Backoff Delay" workflows; open one and
                click "Execute workflow". They call the demo API at $demo_url.
     Webhook:   curl -X POST http://127.0.0.1:$port/webhook/forward-events \\
                  -H 'content-type: application/json' -d '{"id":"ok-1","type":"invoice.paid"}'
     Data:      $user_folder   (delete it to start afresh)
   Ctrl-C stops n8n and the demo API.
  ==================================================================================

EOF
) &

# whichever of the two exits first ends the run (wait -n returns when one of them has exited)
status=0
wait -n "$n8n_pid" "$demo_pid" || status=$?
if [ "$stopping" = 0 ]; then
  if kill -0 "$n8n_pid" 2>/dev/null; then say "the demo API stopped (exit $status): stopping n8n"; else say "n8n stopped (exit $status)"; fi
fi
stop_all
exit "$status"
