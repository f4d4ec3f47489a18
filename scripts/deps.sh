#!/usr/bin/env bash
# Installs the Debian bookworm packages xio-pipeline builds, tests and
# benchmarks with. --check: exit 0 when all are installed, 1 otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t pkgs < <(grep -v '^#' "$here/packages.txt" | awk 'NF && $2 != "unpack" {print $1}')
# "unpack" packages cannot be co-installed with the host's (not Multi-Arch:
# same): they are unpacked under $XIO_UNPACK_ROOT instead of installed.
mapfile -t unpack < <(grep -v '^#' "$here/packages.txt" | awk '$2 == "unpack" {print $1}')
XIO_UNPACK_ROOT=${XIO_UNPACK_ROOT:-/opt/xio-arm64}

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || missing+=("$p")
done
unpack_missing=()
for p in "${unpack[@]}"; do
	[ -e "$XIO_UNPACK_ROOT/.stamp-${p/:/_}" ] || unpack_missing+=("$p")
done
all_missing=("${missing[@]}" "${unpack_missing[@]}")
if [ "${1:-}" = "--check" ]; then
	[ ${#all_missing[@]} -eq 0 ] && exit 0
	echo "missing packages: ${all_missing[*]}" >&2
	exit 1
fi
[ ${#all_missing[@]} -eq 0 ] && { echo "all packages present"; exit 0; }
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: installing ${all_missing[*]} needs root (run: sudo make deps)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# arm64 libraries for the aarch64 unit tests come through Debian multiarch.
if printf '%s\n' "${pkgs[@]}" "${unpack[@]}" | grep -q ':arm64$' &&
	[ "$(dpkg --print-architecture)" != arm64 ] &&
	! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
fi
apt-get update -q
[ ${#missing[@]} -eq 0 ] || apt-get install -y -q --no-install-recommends "${missing[@]}"
if [ ${#unpack_missing[@]} -gt 0 ]; then
	tmp=$(mktemp -d) && chmod 755 "$tmp" && { chown _apt "$tmp" 2>/dev/null || true; }
	(cd "$tmp" && apt-get download -q "${unpack_missing[@]}")
	mkdir -p "$XIO_UNPACK_ROOT"
	for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$XIO_UNPACK_ROOT"; done
	for p in "${unpack_missing[@]}"; do touch "$XIO_UNPACK_ROOT/.stamp-${p/:/_}"; done
	rm -rf "$tmp"
fi
