#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# apps/install/install.sh: what `make install` and `make uninstall` do. The
# Makefile (apps/install/install.mk) passes the directories and the lists of
# what to install in the environment; one manifest, built from them, drives
# both, so uninstall removes exactly what install put there.
#
#   install.sh install | uninstall
set -euo pipefail

die() { echo "install: $*" >&2; exit 1; }

# The SONAME of a shared library, which must be set and differ from its
# link name (libxio.so -> libxio.so.1 -> libxio.so.VERSION). Uninstalling
# after make clean, the installed link name says it.
soname_of() {
	local so
	if [ ! -e "$1" ] && [ "$action" = uninstall ]; then
		readlink "$DESTDIR$LIBDIR/${1##*/}" || true
		return
	fi
	so=$(objdump -p "$1" | awk '$1 == "SONAME" { print $2 }')
	[ -n "$so" ] || die "$1 has no SONAME (link it with -Wl,-soname,$(basename "$1").MAJOR)"
	[ "$so" != "$(basename "$1")" ] || die "$1: its SONAME must not be its link name"
	echo "$so"
}

# One line per installed path: "file SRC DEST MODE", "link TARGET DEST" or
# "pc TEMPLATE DEST MODE" (a template filled in with the directories).
manifest() {
	local f p so real
	for f in $XIO_BINS; do echo "file $f $BINDIR/${f##*/} 755"; done
	for f in $XIO_MANS; do echo "file $f $MAN1DIR/${f##*/} 644"; done
	for f in $XIO_LIBS; do
		case ${f##*/} in
		lib*.a) echo "file $f $LIBDIR/${f##*/} 644" ;;
		lib*.so)
			so=$(soname_of "$f")
			real=${f##*/}.$XIO_VERSION
			echo "file $f $LIBDIR/$real 755"
			[ -z "$so" ] || [ "$so" = "$real" ] || echo "link $real $LIBDIR/$so"
			echo "link $so $LIBDIR/${f##*/}" ;;
		*) die "INSTALL_LIBS: $f is neither libNAME.so nor libNAME.a" ;;
		esac
	done
	for f in $XIO_HEADERS; do echo "file $f $INCLUDEDIR/${f##*/} 644"; done
	for f in $XIO_PCS; do
		p=${f##*/}
		echo "pc $f $PKGCONFIGDIR/${p%.in} 644"
	done
	for p in $XIO_PYTHON; do
		[ -f "$p/__init__.py" ] || die "INSTALL_PYTHON: $p is not a Python package"
		find "$p" -name '*.py' -not -path '*/__pycache__/*' | LC_ALL=C sort |
			while read -r f; do echo "file $f $PYTHONDIR/${p##*/}/${f#"$p"/} 644"; done
	done
	for f in $XIO_WIRESHARK; do echo "file $f $WIRESHARK_PLUGINDIR/${f##*/} 644"; done
	for f in $XIO_DOCS; do echo "file $f $DOCDIR/$f 644"; done
}

# Folders that belong to the project alone: removed once empty.
own_dirs() {
	local p
	echo "$DOCDIR"
	for p in $XIO_PYTHON; do echo "$PYTHONDIR/${p##*/}"; done
}

do_install() {
	local kind src dest mode m
	m=$(manifest)
	while read -r kind src dest mode; do
		echo "  $DESTDIR$dest"
		case $kind in
		file) install -D -m "$mode" "$src" "$DESTDIR$dest" ;;
		link) mkdir -p "$DESTDIR${dest%/*}" && ln -sfn "$src" "$DESTDIR$dest" ;;
		pc)
			mkdir -p "$DESTDIR${dest%/*}"
			sed -e "s|@PREFIX@|$PREFIX|; s|@LIBDIR@|$LIBDIR|; s|@INCLUDEDIR@|$INCLUDEDIR|" \
				-e "s|@VERSION@|$XIO_VERSION|" "$src" >"$DESTDIR$dest"
			chmod "$mode" "$DESTDIR$dest" ;;
		esac
	done <<<"$m"
}

do_uninstall() {
	local kind src dest mode d m
	m=$(manifest)
	while read -r kind src dest mode; do
		if [ -e "$DESTDIR$dest" ] || [ -L "$DESTDIR$dest" ]; then
			echo "  rm $DESTDIR$dest"
			rm -f "$DESTDIR$dest"
		fi
	done <<<"$m"
	while read -r d; do
		[ -d "$DESTDIR$d" ] || continue
		# Python leaves byte code next to an imported package.
		find "$DESTDIR$d" -depth -type d -name __pycache__ -exec rm -rf {} +
		find "$DESTDIR$d" -depth -type d -empty -delete
	done < <(own_dirs)
}

action=${1:-}
case $action in
install) do_install ;;
uninstall) do_uninstall ;;
*) die "usage: install.sh install|uninstall" ;;
esac
