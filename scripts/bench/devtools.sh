#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench/devtools.sh: fills .devtools/ (ignored through
# .git/info/exclude) with what scripts/bench/transport-device.sh needs on the
# H100 machine (Ubuntu 24.04, no DPDK, no ip, no ethtool, nothing to
# install from): this machine's `make host-tools` binaries (xio-server,
# xio-fetch, xio-pipeline without DPDK, xio-tcp-server, xio-tcp-read) and
# iproute2's ip and ss, ethtool, jq, and procps' sysctl and ps and
# util-linux's taskset (in case the image lacks them), each with the shared
# libraries ldd
# finds for it, except glibc's own (that machine's newer glibc runs them).
#
#   .devtools/real/NAME   the binary
#   .devtools/lib/        its libraries
#   .devtools/bin/NAME    a wrapper: the system's dynamic loader runs the
#                         binary with --library-path .devtools/lib, so the
#                         Debian libraries reach that process alone (never its
#                         children: `ip netns exec NS python3` runs Ubuntu's
#                         python with Ubuntu's libraries)
#
# Run it in the repository root here (Debian, x86-64), then carry
# .devtools in the device call. BUILD (build) is where host-tools builds.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
D=.devtools

make -j2 --no-print-directory host-tools BUILD="$BUILD" >/dev/null
ex=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$ex")"
grep -qx "/$D/" "$ex" 2>/dev/null || echo "/$D/" >>"$ex"
rm -rf "$D"
mkdir -p "$D/real" "$D/lib" "$D/bin"

# glibc's libraries stay the device's own
skip='^(libc|libm|libpthread|libdl|librt|libresolv|ld-linux-x86-64|libutil)\.so'
for src in "$BUILD/xio-server" "$BUILD/xio-fetch" "$BUILD/nodpdk/xio-pipeline" \
	"$BUILD/bench/xio-tcp-server" "$BUILD/bench/xio-tcp-read" \
	"$(command -v ip)" "$(command -v ss)" "$(command -v ethtool)" "$(command -v jq)" \
	"$(command -v sysctl)" "$(command -v ps)" "$(command -v taskset)"; do
	name=$(basename "$src")
	cp -L "$src" "$D/real/$name"
	ldd "$src" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | while read -r lib; do
		base=$(basename "$lib")
		[[ $base =~ $skip ]] || cp -Ln "$lib" "$D/lib/$base"
	done
	cat >"$D/bin/$name" <<EOF
#!/bin/sh
# runs .devtools/real/$name with the libraries of .devtools/lib (scripts/bench/devtools.sh)
d=\$(cd "\$(dirname "\$0")/.." && pwd)
exec /lib64/ld-linux-x86-64.so.2 --library-path "\$d/lib" "\$d/real/$name" "\$@"
EOF
	chmod +x "$D/bin/$name"
done
echo "devtools: $(find "$D/real" -type f | wc -l) programs, $(find "$D/lib" -type f | wc -l) libraries, $(du -sh "$D" | cut -f1) in $D"
