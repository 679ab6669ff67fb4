#!/usr/bin/env bash
# `npm start`: runs this package in a real n8n on http://127.0.0.1:5678, in the foreground
# (Ctrl-C stops it). On a fresh machine it first installs what is missing: the repo's
# dependencies, then Node 24 and n8n (scripts/install-n8n.sh, several minutes, cached in
# ~/.cache/n8n-nodes-resilient-http). Later runs skip every step that is already done.
#
# Steps: npm ci (if node_modules/ is missing) -> install-n8n.sh -> npm run build (if sources
# are newer than dist/) -> copy the package into the user folder .n8n-local/ ->
# import workflows/*.json (when they changed) -> n8n start.
#
# n8n 2.x shows an owner sign-up page on a fresh instance. To skip it, the owner is created from
# environment variables (N8N_INSTANCE_OWNER_MANAGED_BY_ENV) with a local-only login printed below.
#
# Environment: N8N_PORT (5678), N8N_RUNNERS_BROKER_PORT (port + 1), RH_USER_FOLDER (.n8n-local),
# RH_OWNER_EMAIL / RH_OWNER_PASSWORD (the login), RH_SKIP_BUILD=1, RH_WORKFLOWS_DIR (workflows).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
source scripts/n8n-env.sh

port="${N8N_PORT:-5678}"
broker_port="${N8N_RUNNERS_BROKER_PORT:-$((port + 1))}"
user_folder="${RH_USER_FOLDER:-$repo/.n8n-local}"
owner_email="${RH_OWNER_EMAIL:-admin@example.com}"
owner_password="${RH_OWNER_PASSWORD:-ResilientHttp-local1}"
# bcrypt of the default password (n8n takes a hash, never the password itself).
default_hash='$2a$10$gCkXwqu7ffIrG6UVIfyeT.byPkAxlKdlJwaCdX404DWjOfGwOSFAu'
started=$(date +%s)
say() { echo "[start] $*"; }

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if port_in_use "$port"; then
  say "port $port is already in use (is n8n already running?). Set N8N_PORT to use another one."
  exit 1
fi

# 1. The repo's own dependencies (the build needs them).
if [ ! -d node_modules ]; then
  say "installing dependencies (npm ci)"
  if [ -f package-lock.json ]; then npm ci; else npm install; fi
fi

# 2. Node 24 and n8n, pinned, outside the repo.
bash scripts/install-n8n.sh

# 3. Build when dist/ is missing or older than any source.
entry="$(node -p "(require('./package.json').n8n.nodes || [])[0] || ''")"
needs_build() {
  [ -n "$entry" ] && [ -f "$entry" ] || return 0
  [ -n "$(find nodes credentials package.json tsconfig.json tsconfig.build.json gulpfile.js \
      -newer "$entry" -type f 2>/dev/null | head -n 1)" ]
}
if [ "${RH_SKIP_BUILD:-}" != 1 ] && needs_build; then
  say "building (npm run build)"
  npm run build
fi

# 4. Make n8n load the package.
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

# 5. Example workflows (each has a fixed id): import again only when the files changed, so
#    edits made in the editor survive a restart.
shopt -s nullglob
workflows_dir="${RH_WORKFLOWS_DIR:-$repo/workflows}"
workflow_files=("$workflows_dir"/*.json)
if [ ${#workflow_files[@]} -gt 0 ]; then
  sum="$(sha256sum "${workflow_files[@]}" | sha256sum | cut -d' ' -f1)"
  stamp="$user_folder/.workflows-imported"
  if [ "$(cat "$stamp" 2>/dev/null || true)" != "$sum" ]; then
    say "importing ${#workflow_files[@]} workflow(s) from $workflows_dir"
    n8n import:workflow --separate --input="$workflows_dir" >"$user_folder/import.log" 2>&1 ||
      { cat "$user_folder/import.log"; say "workflow import failed"; exit 1; }
    echo "$sum" > "$stamp"
  fi
fi

# 6. Run n8n in the foreground; print how to sign in once it is ready.
# Not through the n8n() function: that would fork a subshell, and $! must be n8n's own PID.
"$NODE24_BIN/node" "$N8N_BIN" start &
n8n_pid=$!
stop() { trap - INT TERM; kill -TERM "$n8n_pid" 2>/dev/null || true; wait "$n8n_pid" 2>/dev/null || true; exit 0; }
trap stop INT TERM
(
  node -e '
    const http = require("http"), [url, pid] = process.argv.slice(1);
    const alive = () => { try { process.kill(Number(pid), 0); return true; } catch { return false; } };
    const poll = () => {
      if (!alive()) process.exit(1);
      const req = http.get(url, (res) => { res.resume(); res.statusCode === 200 ? process.exit(0) : setTimeout(poll, 500); });
      req.on("error", () => setTimeout(poll, 500));
    };
    poll();
  ' "http://127.0.0.1:$port/healthz/readiness" "$n8n_pid" || exit 0
  cat <<EOF

  ==================================================================================
   n8n $N8N_VERSION with n8n-nodes-resilient-http is ready ($(( $(date +%s) - started )) s)
     Editor:   http://127.0.0.1:$port
     Sign in:  $owner_email  /  $owner_password   (local-only account)
     Data:     $user_folder   (delete it to start afresh)
   Ctrl-C stops n8n.
  ==================================================================================

EOF
) &
wait "$n8n_pid"
