#!/usr/bin/env bash
# Installs the Debian bookworm packages xio-pipeline builds, tests and
# benchmarks with. --check: exit 0 when all are installed, 1 otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t pkgs < <(grep -v '^#' "$here/packages.txt" | awk 'NF{print $1}')

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || missing+=("$p")
done
if [ "${1:-}" = "--check" ]; then
	[ ${#missing[@]} -eq 0 ] && exit 0
	echo "missing packages: ${missing[*]}" >&2
	exit 1
fi
[ ${#missing[@]} -eq 0 ] && { echo "all packages present"; exit 0; }
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: installing ${missing[*]} needs root (run: sudo make deps)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
