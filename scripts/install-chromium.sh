#!/usr/bin/env bash
# Unpacks Debian's chromium, and the libraries it needs that this machine lacks, into a cache folder without
# installing any package (no root install), and prints the folder. The report test opens the page in it,
# headless. `$DIR/chromium` is a launcher that finds the unpacked libraries.
# Usage: scripts/install-chromium.sh [DIR]   (default: $LOYALTY_CACHE/chromium, else ~/.cache/loyalty-sync/chromium)
set -euo pipefail
home="${1:-${LOYALTY_CACHE:-$HOME/.cache/loyalty-sync}/chromium}"
if [ -x "$home/chromium" ] && "$home/chromium" --headless --no-sandbox --version >/dev/null 2>&1; then
  echo "$home"
  exit 0
fi
if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
  echo "install-chromium.sh: apt-get and dpkg are not available here; install Chromium and put a launcher at $home/chromium." >&2
  exit 1
fi
mkdir -p "$home"
work="$(mktemp -d "$home/.fetch-XXXXXX")"
trap 'rm -rf "$work"' EXIT
# The package and every package it needs, recursively, less those already installed here.
needed() {
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances chromium \
    | grep -E '^[a-z0-9]' | sort -u \
    | while read -r pkg; do dpkg -s "$pkg" >/dev/null 2>&1 || echo "$pkg"; done
}
if ! apt-cache show chromium >/dev/null 2>&1; then
  # A fresh container has no package lists.
  apt-get update >/dev/null
fi
packages="$(needed)"
# As root, apt would hand the download to its _apt user, who cannot write a folder under $HOME.
# shellcheck disable=SC2086
(cd "$work" && apt-get -o APT::Sandbox::User=root download $packages >/dev/null 2>&1 || true)
[ -n "$(ls "$work"/chromium_*.deb 2>/dev/null)" ] || { echo "install-chromium.sh: could not download Debian's chromium package." >&2; exit 1; }
rm -rf "$home/root"
for deb in "$work"/*.deb; do dpkg -x "$deb" "$home/root"; done
# Every folder of the unpacked packages that holds a shared library (some sit in subfolders, e.g. pulseaudio/).
libs="$(find "$home/root" -name '*.so*' -printf '%h\n' | sort -u | paste -sd:)"
cat > "$home/chromium" <<LAUNCHER
#!/usr/bin/env bash
export LD_LIBRARY_PATH="$libs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export FONTCONFIG_PATH="\${FONTCONFIG_PATH:-/etc/fonts}"
exec "$home/root/usr/lib/chromium/chromium" "\$@"
LAUNCHER
chmod +x "$home/chromium"
echo "install-chromium.sh: chromium unpacked into $home" >&2
echo "$home"
