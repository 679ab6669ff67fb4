#!/usr/bin/env bash
# Makes real n8n load this repo's built package from a user folder.
#
#   scripts/link-package.sh USER_FOLDER            dev mode: copy package.json + dist/
#   scripts/link-package.sh USER_FOLDER --tarball  `npm pack`, then install the tarball the way
#                                                  n8n's own community-package installer does
#   scripts/link-package.sh USER_FOLDER --tarball=FILE   same, with an already packed tarball
#
# n8n scans $N8N_USER_FOLDER/.n8n/nodes/node_modules/n8n-nodes-* at start (every command:
# start, execute, import). Node types are then "<package name>.<node name>".
#
# How `require('n8n-workflow')` resolves (checked on n8n 2.41.1, see test/e2e/README.md):
# n8n never installs peer dependencies. Its installer extracts the tarball, deletes
# peer/dev/optional dependencies from package.json and runs `npm install` for the regular ones.
# At boot n8n puts its own module paths on NODE_PATH, so a community package's
# require('n8n-workflow') falls through to n8n's own copy - unless a node_modules/n8n-workflow
# is found first while walking up from the package's real path. That is why dev mode copies
# instead of symlinking: a symlink's real path is inside this repo, so Node would load the
# repo's devDependency copy, a second n8n-workflow instance (`instanceof NodeApiError` is then
# false for errors thrown by n8n-core). For a user folder inside a tree that has
# node_modules/n8n-workflow (like .n8n-local/ in this repo) we also put a symlink
# .n8n/nodes/node_modules/n8n-workflow -> n8n's own copy, so the same instance is found first.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# RH_PACKAGE_DIR: another package folder to link (used to try the script on a probe package).
repo="$(cd "${RH_PACKAGE_DIR:-$here/..}" && pwd)"
source "$here/n8n-env.sh"

usage() { echo "usage: $0 USER_FOLDER [--tarball[=FILE]]" >&2; exit 2; }
[ $# -ge 1 ] || usage
user_folder="$1"; shift
mode=dev; tarball=""
for arg in "$@"; do
  case "$arg" in
    --tarball) mode=tarball ;;
    --tarball=*) mode=tarball; tarball="${arg#--tarball=}" ;;
    *) usage ;;
  esac
done

mkdir -p "$user_folder"
user_folder="$(cd "$user_folder" && pwd)"
nodes_dir="$user_folder/.n8n/nodes"
pkg_name="$(node -p "require('$repo/package.json').name")"
pkg_version="$(node -p "require('$repo/package.json').version")"
target="$nodes_dir/node_modules/$pkg_name"
log() { echo "[link-package] $*" >&2; }

# Every file package.json's "n8n" section points at must exist in the given folder.
check_entries() {
  node -e '
    const path = require("path"), fs = require("fs");
    const dir = process.argv[1];
    const n8n = require(path.join(dir, "package.json")).n8n || {};
    const files = [...(n8n.nodes || []), ...(n8n.credentials || [])];
    if (!files.length) { console.error("package.json has no n8n.nodes"); process.exit(1); }
    const missing = files.filter((f) => !fs.existsSync(path.join(dir, f)));
    if (missing.length) { console.error("missing: " + missing.join(", ")); process.exit(1); }
  ' "$1"
}

if [ ! -d "$repo/dist" ] || ! check_entries "$repo" 2>/dev/null; then
  check_entries "$repo" || true
  log "build output is missing: run 'npm run build' first"
  exit 1
fi

mkdir -p "$nodes_dir/node_modules"
[ -f "$nodes_dir/package.json" ] || echo '{"name":"installed-nodes","private":true,"dependencies":{}}' > "$nodes_dir/package.json"
rm -rf "$target"
mkdir -p "$(dirname "$target")"

if [ "$mode" = dev ]; then
  mkdir -p "$target"
  cp "$repo/package.json" "$target/package.json"
  cp -R "$repo/dist" "$target/dist"
  log "copied $pkg_name (package.json + dist/) into $target"
else
  if [ -z "$tarball" ]; then
    pack_dir="$(mktemp -d)"
    trap 'rm -rf "$pack_dir"' EXIT
    (cd "$repo" && npm pack --silent --pack-destination "$pack_dir" >/dev/null)
    tarball="$(ls "$pack_dir"/*.tgz)"
  fi
  [ -f "$tarball" ] || { log "no tarball at $tarball"; exit 1; }
  tarball="$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")"
  # Same steps as n8n 2.41.1 CommunityPackagesService.downloadPackage().
  mkdir -p "$target"
  tar -xzf "$tarball" -C "$target" --strip-components=1
  node -e '
    const fs = require("fs"), file = process.argv[1];
    const { devDependencies, peerDependencies, optionalDependencies, ...pkg } = JSON.parse(fs.readFileSync(file, "utf8"));
    fs.writeFileSync(file, JSON.stringify(pkg, null, 2));
  ' "$target/package.json"
  if ! check_entries "$target"; then
    log "the tarball lacks files that package.json's n8n section names (check \"files\")"
    exit 1
  fi
  if node -e 'process.exit(Object.keys(require(process.argv[1]).dependencies || {}).length ? 0 : 1)' "$target/package.json"; then
    (cd "$target" && npm install --audit=false --fund=false --bin-links=false --install-strategy=shallow \
      --ignore-scripts=true --package-lock=false --omit=dev --loglevel=error >/dev/null)
  fi
  if [ -e "$target/node_modules/n8n-workflow" ]; then
    log "the package installed its own n8n-workflow: declare it in peerDependencies only (n8n provides it)"
    exit 1
  fi
  log "installed $(basename "$tarball") into $target"
fi

node -e '
  const fs = require("fs"), [file, name, version] = process.argv.slice(1);
  const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
  pkg.dependencies = { ...(pkg.dependencies || {}), [name]: version };
  fs.writeFileSync(file, JSON.stringify(pkg, null, 2));
' "$nodes_dir/package.json" "$pkg_name" "$pkg_version"

# Would walking up from the package reach some other node_modules/n8n-workflow before NODE_PATH?
shim="$nodes_dir/node_modules/n8n-workflow"
rm -f "$shim" 2>/dev/null || true
foreign=""
d="$nodes_dir"
while [ "$d" != "/" ]; do
  d="$(dirname "$d")"
  if [ -e "$d/node_modules/n8n-workflow/package.json" ]; then foreign="$d/node_modules/n8n-workflow"; break; fi
done
if [ -n "$foreign" ]; then
  [ -d "$N8N_HOME/node_modules/n8n-workflow" ] || { log "n8n is not installed: run scripts/install-n8n.sh"; exit 1; }
  ln -s "$N8N_HOME/node_modules/n8n-workflow" "$shim"
  log "user folder is below $foreign: linked n8n's own n8n-workflow into .n8n/nodes/node_modules"
  if [ "$mode" = tarball ]; then
    log "warning: a user folder outside any node_modules tree is a truer install test (undeclared dependencies may resolve from $(dirname "$foreign"))"
  fi
fi
