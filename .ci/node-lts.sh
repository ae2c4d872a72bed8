#!/usr/bin/env bash
# Prints the path of a Node.js <major> binary installed from the npm registry's `node` package
# (its preinstall script installs the platform package `node-<os>-<arch>`, whose tarball ships the
# binary; no other network). Cached per major under ${NODE_LTS_CACHE:-$TMPDIR/chain-indexer-node-lts}
# and reused while it runs; remove the directory to take the newest release of that line.
#   bash .ci/node-lts.sh 22   →   /tmp/chain-indexer-node-lts/22/node_modules/node/bin/node
set -euo pipefail
major="${1:?usage: node-lts.sh <major>}"
dir="${NODE_LTS_CACHE:-${TMPDIR:-/tmp}/chain-indexer-node-lts}/$major"
bin="$dir/node_modules/node/bin/node"
if ! "$bin" -v >/dev/null 2>&1; then
  rm -rf "$dir" && mkdir -p "$dir"
  # npm 11 runs a dependency's install script only when allowScripts approves it.
  printf '{ "private": true, "allowScripts": { "node": true } }\n' >"$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "node@$major" >&2)
fi
v="$("$bin" -v)"
case "$v" in
  "v$major".*) echo "$bin" ;;
  *) echo "node-lts: $bin is $v, not Node $major" >&2; exit 1 ;;
esac
