#!/usr/bin/env bash
# Unpacks OpenStack Swift (Debian's packages, with its S3 API) into a cache folder, without installing
# it system-wide: the object-storage tests start it on loopback (test/s3/swiftServer.ts).
# Usage: scripts/install-swift.sh [DIR]   (default: $LOYALTY_SWIFT_HOME, else $LOYALTY_CACHE/swift, else ~/.cache/loyalty-sync/swift)
set -euo pipefail
home="${1:-${LOYALTY_SWIFT_HOME:-${LOYALTY_CACHE:-$HOME/.cache/loyalty-sync}/swift}}"
root="$home/root"
if [ -f "$root/.complete" ]; then
  echo "swift: already unpacked in $root" >&2
  exit 0
fi
packages=(
  swift swift-proxy swift-account swift-container swift-object python3-swift python3-eventlet
  python3-greenlet python3-dnspython python3-pastedeploy python3-pastedeploy-tpl python3-paste
  python3-tempita python3-lxml python3-xattr python3-pyeclib liberasurecode1 python3-netifaces
  python3-oslo.config python3-oslo.i18n python3-oslo.log python3-oslo.context python3-oslo.utils
  python3-oslo.serialization python3-debtcollector python3-wrapt python3-pbr python3-stevedore
  python3-netaddr ieee-data python3-iso8601 python3-tz python3-dateutil python3-msgpack
  python3-packaging python3-pyinotify python3-requests python3-urllib3 python3-idna python3-certifi
  python3-chardet python3-charset-normalizer python3-rfc3986 python3-importlib-metadata python3-zipp
  python3-more-itertools python3-cffi python3-pycparser python3-ply python3-docutils docutils-common
  python3-roman
)
if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
  echo "install-swift.sh: apt-get and dpkg are not available here; install OpenStack Swift 2.30 or newer with its S3 API (Debian's swift-proxy, swift-account, swift-container and swift-object) under $root." >&2
  exit 1
fi
debs="$home/debs"
mkdir -p "$debs" "$root"
# apt-get download needs package lists; a fresh container has none.
# As root, apt would hand the download to its _apt user, who cannot write a folder under $HOME.
get() { (cd "$debs" && apt-get -o APT::Sandbox::User=root download "${packages[@]}" >/dev/null); }
if ! get 2>/dev/null; then
  apt-get update >/dev/null
  get
fi
for deb in "$debs"/*.deb; do dpkg -x "$deb" "$root"; done
rm -rf "$debs"
touch "$root/.complete"
echo "swift: unpacked into $root" >&2
