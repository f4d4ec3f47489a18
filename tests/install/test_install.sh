#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# make install-check: `make install` into a temporary DESTDIR, then
#  - the tree holds exactly the expected files and links, with their modes,
#    byte-identical to the build (binaries, dissector, docs);
#  - every installed program answers --help and --version (exit 0, the
#    version of the Makefile's XIO_VERSION), has a man page that man finds and
#    renders without a warning;
#  - the installed programs work together: xio-gen -> xio-pipeline (DPDK
#    pcap PMD) -> xio-verify, and tshark reads the result with the installed
#    dissector as a plugin;
#  - a program builds against the installed xio.pc and runs;
#  - the systemd example passes systemd-analyze verify, its options parse;
#  - PREFIX=/usr puts the dissector where tshark loads Lua plugins from and
#    Python packages where Debian's python3 looks;
#  - make uninstall removes exactly what was installed.
set -u
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
XIO_VERSION=${XIO_VERSION:?the Makefile passes XIO_VERSION}
XIO_BINS=${XIO_BINS:?the Makefile passes the names in INSTALL_BINS}
XIO_LIBS=${XIO_LIBS-}
XIO_HEADERS=${XIO_HEADERS-}
XIO_PYTHON=${XIO_PYTHON-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

. "$(dirname "$0")/../e2e/lib.sh"
check() { # DESC CMD...: CMD exits 0
	local desc=$1
	shift
	if "$@" >"$T/out" 2>&1; then ok; else bad "$desc"; show "$T/out"; fi
}
eq() { if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', expected '$2'"; fi; }
has() { [[ " $1 " == *" $2 "* ]]; }

D=$T/stage
P=usr/local
MULTIARCH=$(gcc -print-multiarch)
LUA_DIR=$P/lib/$MULTIARCH/wireshark/plugins
SITE=$(/usr/bin/python3 -c 'import site; print([p for p in site.getsitepackages() if p.startswith("/usr/local/")][0])')
WITH_LIBXIO=
has "$XIO_LIBS" libxio.so && WITH_LIBXIO=y

# tree DIR: every file and link under DIR, with its mode or target.
tree() {
	(cd "$1" && find . \( -type f -printf 'f %m %p\n' \) -o \( -type l -printf 'l %p -> %l\n' \)) |
		LC_ALL=C sort
}

# expected PREFIX PYTHON_SITE LUA_DIR: what make install must put there.
expected() {
	local p=$1 site=$2 lua=$3 b l h pkg f so
	for b in $XIO_BINS; do
		echo "f 755 ./$p/bin/$b"
		echo "f 644 ./$p/share/man/man1/$b.1"
	done
	for l in $XIO_LIBS; do
		case $l in
		*.a) echo "f 644 ./$p/lib/$l" ;;
		*.so)
			# the soname the library was linked with (libxio: LIBXIO_SO_MAJOR)
			so=$(objdump -p "$BUILD/$l" | awk '$1 == "SONAME" { print $2 }')
			echo "f 755 ./$p/lib/$l.$XIO_VERSION"
			echo "l ./$p/lib/$so -> $l.$XIO_VERSION"
			echo "l ./$p/lib/$l -> $so" ;;
		esac
	done
	for h in $XIO_HEADERS; do echo "f 644 ./$p/include/$h"; done
	[ -z "$WITH_LIBXIO" ] || echo "f 644 ./$p/lib/pkgconfig/xio.pc"
	for pkg in $XIO_PYTHON; do
		find "$pkg" -name '*.py' -not -path '*/__pycache__/*' |
			while read -r f; do echo "f 644 .$site/${pkg##*/}/${f#"$pkg"/}"; done
	done
	echo "f 644 ./$lua/xio.lua"
	for f in README.md docs/*.md docs/*.png docs/systemd/*; do
		echo "f 644 ./$p/share/doc/xio-pipeline/$f"
	done
}

# ---- the programs and the layout --------------------------------------------
for b in xio-pipeline xio-gen xio-verify; do
	if has "$XIO_BINS" $b; then ok; else bad "INSTALL_BINS lacks $b"; fi
done
for b in $XIO_BINS; do
	case $b in
	xio-pipeline | xio-server | xio-fetch | xio-gen | xio-verify) ok ;;
	*) bad "INSTALL_BINS: $b is not one of the five programs" ;;
	esac
done

# Someone else's files in the same prefix: untouched by install and uninstall.
mkdir -p "$D/$P/bin" "$D/$P/share/man/man1"
printf '#!/bin/sh\n' >"$D/$P/bin/other-tool"
chmod 755 "$D/$P/bin/other-tool"
printf '.TH OTHER 1\n' >"$D/$P/share/man/man1/other.1"
tree "$D" >"$T/before"

check "make install DESTDIR=..." "$MAKE" --no-print-directory install DESTDIR="$D"
tree "$D" >"$T/got"
{ cat "$T/before"; expected "$P" "$SITE" "$LUA_DIR"; } | LC_ALL=C sort >"$T/want"
cur="installed tree"
if diff "$T/want" "$T/got" >"$T/diff"; then ok; else bad "$cur (- expected, + installed)"; show "$T/diff"; fi

for b in $XIO_BINS; do
	check "bin/$b is the build's" cmp "$BUILD/$b" "$D/$P/bin/$b"
done
check "the dissector is the tree's" cmp apps/wireshark/xio.lua "$D/$LUA_DIR/xio.lua"
for f in README.md docs/*.md docs/systemd/*; do
	check "doc $f" cmp "$f" "$D/$P/share/doc/xio-pipeline/$f"
done

# ---- --help, --version, man pages --------------------------------------------
export LD_LIBRARY_PATH="$D/$P/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for b in $XIO_BINS; do
	bin=$D/$P/bin/$b
	check "$b --help" "$bin" --help
	eq "$(head -c 7 "$T/out")" "Usage: " "$b --help: first line"
	check "$b --version" "$bin" --version
	eq "$(cat "$T/out")" "$b $XIO_VERSION" "$b --version"
	page=$D/$P/share/man/man1/$b.1
	eq "$(MANPATH="$D/$P/share/man" man -w "$b" 2>&1)" "$page" "man -w $b"
	LC_ALL=C MANWIDTH=80 man --warnings -l "$page" >"$T/man" 2>"$T/man.err"
	if [ -s "$T/man.err" ]; then bad "man $b: warnings"; show "$T/man.err"; else ok; fi
	grep -A1 '^NAME' "$T/man" | grep -Eq "^ +$b +- +[a-z]" && ok || { bad "man $b: NAME"; show "$T/man"; }
	grep -A1 '^SYNOPSIS' "$T/man" | grep -Eq "^ +$b " && ok || { bad "man $b: SYNOPSIS"; show "$T/man"; }
	grep -Eq "^$b $XIO_VERSION " "$T/man" && ok || { bad "man $b: version footer"; show "$T/man"; }
done

# ---- the installed programs at work -------------------------------------------
B=$D/$P/bin
python3 -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<2000i', *[i * 31 % 65536 for i in range(2000)]))" "$T/tok.bin"
check "installed xio-gen" "$B/xio-gen" --tokens "$T/tok.bin" --out "$T/in.pcap" --crc
check "installed xio-pipeline (pcap PMD)" timeout -k 5 60 "$B/xio-pipeline" --no-huge --no-shconf \
	--no-pci --lcores '0@0,1@1' --vdev "net_pcap0,rx_pcap=$T/in.pcap,tx_pcap=$T/out.pcap" \
	-- --idle-exit 300
check "installed xio-verify" "$B/xio-verify" --capture "$T/out.pcap" --tokens "$T/tok.bin"
grep -q "all 2000 tokens present once and equal, 6 frames" "$T/out" && ok || { bad "xio-verify"; show "$T/out"; }
# tshark loads the installed dissector as a Lua plugin from a plugin folder.
mkdir -p "$T/home/.local/lib/wireshark"
ln -s "$D/$LUA_DIR" "$T/home/.local/lib/wireshark/plugins"
HOME=$T/home tshark -r "$T/out.pcap" -T fields -e _ws.col.Info -Y 'xio.seq == 5' >"$T/ws" 2>/dev/null
eq "$(cat "$T/ws")" "READ_REPLY stream=1 seq=5 tokens 1800..1999 UINT16" "tshark with the installed plugin"

# ---- pkg-config xio -----------------------------------------------------------
if [ -n "$WITH_LIBXIO" ]; then
	pc() { PKG_CONFIG_SYSROOT_DIR=$D PKG_CONFIG_PATH=$D/$P/lib/pkgconfig pkg-config "$@"; }
	eq "$(pc --modversion xio 2>&1)" "$XIO_VERSION" "pkg-config --modversion xio"
	check "pkg-config --validate xio" pc --validate xio
	# shellcheck disable=SC2046
	check "cc against the installed xio.pc" cc -std=gnu11 -Wall -Werror \
		tests/install/xio_pc_check.c $(pc --cflags --libs xio) -o "$T/xio_pc_check"
	check "a program of the installed libxio runs" "$T/xio_pc_check"
	soname=$(objdump -p "$BUILD/libxio.so" | awk '$1 == "SONAME" { print $2 }')
	ldd "$T/xio_pc_check" | grep -q "$soname => $D/$P/lib/" && ok ||
		{ bad "xio_pc_check does not load the installed libxio"; ldd "$T/xio_pc_check" | show /dev/stdin; }
else
	bad "libxio is not in INSTALL_LIBS: nothing to build against the installed xio.pc"
fi
for pkg in $XIO_PYTHON; do
	check "python3 imports the installed ${pkg##*/}" env PYTHONPATH="$D$SITE" /usr/bin/python3 \
		-c "import ${pkg##*/}"
done

# ---- the systemd example ------------------------------------------------------
unit=$D/$P/share/doc/xio-pipeline/docs/systemd/xio-pipeline.service
sed "s|/usr/local/|$D/$P/|g" "$unit" >"$T/xio-pipeline.service"
systemd-analyze verify --man=no "$T/xio-pipeline.service" >"$T/out" 2>&1
if [ $? -eq 0 ] && [ ! -s "$T/out" ]; then ok; else bad "systemd-analyze verify"; show "$T/out"; fi
# (the unit's state directory, where --stats-json writes, is $T here)
app_args=$(sed -n 's/^XIO_APP_ARGS=//p' "$D/$P/share/doc/xio-pipeline/docs/systemd/xio-pipeline.env")
app_args=${app_args//\/var\/lib\/xio-pipeline\//$T/}
# shellcheck disable=SC2086
check "the env file's XIO_APP_ARGS parse" "$B/xio-pipeline" $app_args --version

# ---- make uninstall -----------------------------------------------------------
check "make uninstall DESTDIR=..." "$MAKE" --no-print-directory uninstall DESTDIR="$D"
tree "$D" >"$T/got"
cur="after uninstall"
if diff "$T/before" "$T/got" >"$T/diff"; then ok; else bad "$cur (- before install, + now)"; show "$T/diff"; fi
[ ! -e "$D/$P/share/doc/xio-pipeline" ] && ok || bad "uninstall left share/doc/xio-pipeline"
check "other-tool untouched" cmp <(printf '#!/bin/sh\n') "$D/$P/bin/other-tool"

# ---- PREFIX=/usr: where Debian's Wireshark and python3 look ---------------------
D2=$T/usr-stage
check "make install PREFIX=/usr" "$MAKE" --no-print-directory install PREFIX=/usr DESTDIR="$D2"
global_lua=$(tshark -G folders 2>/dev/null | sed -n 's/^Global Lua Plugins:[[:space:]]*//p')
tree "$D2" >"$T/got"
expected usr /usr/lib/python3/dist-packages "${global_lua#/}" | LC_ALL=C sort >"$T/want"
cur="PREFIX=/usr tree"
if diff "$T/want" "$T/got" >"$T/diff"; then ok; else bad "$cur (- expected, + installed)"; show "$T/diff"; fi
/usr/bin/python3 -c 'import site, sys; sys.exit("/usr/lib/python3/dist-packages" not in site.getsitepackages())' &&
	ok || bad "Debian's python3 does not read /usr/lib/python3/dist-packages"
check "make uninstall PREFIX=/usr" "$MAKE" --no-print-directory uninstall PREFIX=/usr DESTDIR="$D2"
eq "$(tree "$D2")" "" "PREFIX=/usr: files left after uninstall"

echo "install-check: $pass checks passed, $fail failed"
[ "$fail" -eq 0 ]
