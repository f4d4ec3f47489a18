#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# make client-python: the Python binding as a user installs it: a fresh
# virtual environment in $BUILD/venv (Debian's python3 -m venv
# --system-site-packages, for numpy and torch), `pip install
# --no-build-isolation ./client/python` (no package index), then from there
# test_xio.py (the client against the lossy xcl-server on 22100, a list
# of it and 22102, a late server on 22104, build/xio-server on 22110 with
# address cookies of a 1-second secret behind --rate and on 22111 with
# --cookies off),
# test_torch.py and test_megatron.py (against plain ones on 22102 and
# 22103: their subject is the datasets, not loss recovery). No PYTHONPATH
# and no XIO_LIB: the installed package must find its own copy of libxio.
set -u
. "$(dirname "$0")/lib.sh"
VENV=$BUILD/venv
rm -rf "$VENV"
$PY -m venv --system-site-packages "$VENV" || { echo "python3 -m venv failed (python3-venv)"; exit 1; }
XIO_BUILD=$(cd "$BUILD" && pwd) "$VENV/bin/pip" install --quiet --no-index --no-build-isolation ./client/python \
	>"$T/pip.log" 2>&1 || { cat "$T/pip.log"; echo "pip install ./client/python failed"; exit 1; }
server 22100 lossy --drop 3 --dup 3 --reorder 3 --late 2 --narrow 50 --corrupt 2 --garbage 3 --seed 11
server 22102 plain
server 22103 other
xio_server 22110 ckrot --cookie-rotate 1 --rate 0.025
xio_server 22111 ckoff --cookies off
unset XIO_LIB PYTHONPATH
export XCL_DEAD=127.0.0.1:22101 XCL_WANT=$T/want XCL_ROOT=$T/root XCL_VENV=$(cd "$VENV" && pwd)
rc=0
XCL_SERVER=127.0.0.1:22100 XCL_SERVER2=127.0.0.1:22102 XCL_LATE_PORT=22104 XCL_BIN=$(pwd)/$SERVER \
	XIO_SERVER=127.0.0.1:22110 XIO_SERVER_OFF=127.0.0.1:22111 "$VENV/bin/python" "$HERE/test_xio.py" || rc=1
for t in test_torch test_megatron; do
	XCL_SERVER=127.0.0.1:22102 XCL_OTHER=127.0.0.1:22103 "$VENV/bin/python" "$HERE/$t.py" || rc=1
done
exit $rc
