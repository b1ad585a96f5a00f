#!/usr/bin/env bash
# Unpacks promtool and the Prometheus server from Debian's prometheus package, and the Pushgateway from its
# prometheus-pushgateway package, into a cache folder without installing either package (no service is
# installed or started), and prints the folder. The metrics and deploy-kit tests check the exposition
# format and the alert rules with promtool, push to the Pushgateway, and have the server scrape a `run`.
# Usage: scripts/install-prometheus.sh [DIR]   (default: $LOYALTY_CACHE/prometheus, else ~/.cache/loyalty-sync/prometheus)
set -euo pipefail
home="${1:-${LOYALTY_CACHE:-$HOME/.cache/loyalty-sync}/prometheus}"
tools=(promtool prometheus pushgateway)
unpacked() {
  for tool in "${tools[@]}"; do [ -x "$home/$tool" ] || return 1; done
}
if unpacked; then
  echo "$home"
  exit 0
fi
if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
  echo "install-prometheus.sh: apt-get and dpkg are not available here; install promtool and prometheus (Prometheus 2.x) and the Pushgateway (1.x), and put them at $home/promtool, $home/prometheus and $home/pushgateway." >&2
  exit 1
fi
mkdir -p "$home"
work="$(mktemp -d "$home/.fetch-XXXXXX")"
trap 'rm -rf "$work"' EXIT
# As root, apt would hand the download to its _apt user, who cannot write a folder under $HOME.
get() { (cd "$work" && apt-get -o APT::Sandbox::User=root download prometheus prometheus-pushgateway >/dev/null); }
if ! get 2>/dev/null; then
  # A fresh container has no package lists.
  apt-get update >/dev/null
  get
fi
for deb in "$work"/*.deb; do dpkg -x "$deb" "$work/root"; done
mv "$work/root/usr/bin/promtool" "$work/root/usr/bin/prometheus" "$home/"
mv "$work/root/usr/bin/prometheus-pushgateway" "$home/pushgateway"
echo "install-prometheus.sh: promtool, prometheus and pushgateway unpacked into $home" >&2
echo "$home"
