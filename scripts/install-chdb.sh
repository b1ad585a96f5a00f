#!/usr/bin/env bash
# Installs chdb (ClickHouse in-process, built with delta-kernel-rs, Delta's own Rust kernel) from npm into a
# cache folder, not into the project's dependencies: the Delta tests open every table they write with it, as
# a warehouse's engine would; users of loyalty-sync never need it. Prints the folder of the chdb package.
# Its native library (@chdb/lib-<platform>, about 540 MB) is a Node-API addon, so one install serves Node 22
# and Node 24 alike; it exists for Linux x64/arm64 with glibc and for macOS.
# Usage: scripts/install-chdb.sh [DIR]   (default: $LOYALTY_CACHE/chdb/3.4.0, else ~/.cache/loyalty-sync/chdb/3.4.0)
set -euo pipefail
version=3.4.0
home="${1:-${LOYALTY_CACHE:-$HOME/.cache/loyalty-sync}/chdb/$version}"
package="$home/node_modules/chdb"
# The folder appears only by a rename once the package loaded, so a folder with the mark is whole.
if [ -f "$home/.complete" ]; then
  echo "$package"
  exit 0
fi
if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
  echo "install-chdb.sh: node and npm are not on PATH; run \`eval \"\$(bash scripts/install-node.sh 24)\"\` first." >&2
  exit 1
fi
parent="$(dirname "$home")"
mkdir -p "$parent"
work="$(mktemp -d "$parent/.fetch-XXXXXX")"
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
printf '{"private":true,"dependencies":{"chdb":"%s"}}\n' "$version" >"$work/package.json"
# chdb's own install script is empty (node -e ""): its addon comes prebuilt in the platform package.
if ! (cd "$work" && npm install --no-audit --no-fund --no-package-lock --ignore-scripts --loglevel=error >/dev/null); then
  echo "install-chdb.sh: npm could not install chdb@$version into $work (see npm's message above)." >&2
  exit 1
fi
if ! (cd / && node -e 'require(process.argv[1]).query("SELECT 1", "CSV")' "$work/node_modules/chdb") >/dev/null 2>"$work/load-error"; then
  echo "install-chdb.sh: chdb@$version installed but does not load on $(uname -sm) with Node $(node --version): $(tail -n 1 "$work/load-error"). Its native library exists for Linux x64/arm64 with glibc and for macOS." >&2
  exit 1
fi
rm -f "$work/load-error"
touch "$work/.complete"
# A half-written folder left by an interrupted run has no mark: it is replaced.
rm -rf "$home"
if ! mv "$work" "$home"; then
  echo "install-chdb.sh: could not move $work to $home." >&2
  exit 1
fi
echo "install-chdb.sh: chdb@$version installed into $home ($(du -sh "$home" | cut -f1))" >&2
echo "$package"
