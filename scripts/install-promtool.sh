#!/usr/bin/env bash
# Unpacks promtool from Debian's prometheus package into a cache folder, without installing the package
# (no service is installed or started), and prints the binary's path. The metrics and deploy-kit tests
# check the exposition format and the alert rules with it.
# Usage: scripts/install-promtool.sh [DIR]   (default: $LOYALTY_CACHE/promtool, else ~/.cache/loyalty-sync/promtool)
set -euo pipefail
home="${1:-${LOYALTY_CACHE:-$HOME/.cache/loyalty-sync}/promtool}"
bin="$home/promtool"
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
  echo "install-promtool.sh: apt-get and dpkg are not available here; install promtool (Prometheus 2.x) and put it at $bin." >&2
  exit 1
fi
mkdir -p "$home"
work="$(mktemp -d "$home/.fetch-XXXXXX")"
trap 'rm -rf "$work"' EXIT
# As root, apt would hand the download to its _apt user, who cannot write a folder under $HOME.
get() { (cd "$work" && apt-get -o APT::Sandbox::User=root download prometheus >/dev/null); }
if ! get 2>/dev/null; then
  # A fresh container has no package lists.
  apt-get update >/dev/null
  get
fi
dpkg -x "$work"/prometheus_*.deb "$work/root"
mv "$work/root/usr/bin/promtool" "$bin"
echo "install-promtool.sh: promtool unpacked into $home" >&2
echo "$bin"
