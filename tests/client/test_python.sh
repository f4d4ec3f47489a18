#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# make client-python: the Python binding against xcl-server on loopback
# (UDP 22100-22103) and build/xio-server (22110 with address cookies of a
# 1-second secret behind --rate, 22111 with --cookies off), with Debian's
# python3 and numpy; PYTHONPATH holds only
# client/python, so the package must find build/libxio.so by itself (other
# BUILD folders are passed as XIO_LIB). The torch tests run when torch
# imports and are skipped otherwise.
set -u
. "$(dirname "$0")/lib.sh"
server 22100 lossy --drop 3 --dup 3 --reorder 3 --late 2 --narrow 50 --corrupt 2 --garbage 3 --seed 11
server 22102 second --narrow 50
xio_server 22110 ckrot --cookie-rotate 1 --rate 0.025
xio_server 22111 ckoff --cookies off
[ "$BUILD" = build ] || export XIO_LIB=$(cd "$BUILD" && pwd)/libxio.so
XCL_SERVER=127.0.0.1:22100 XCL_DEAD=127.0.0.1:22101 XCL_WANT=$T/want XCL_ROOT=$T/root \
	XCL_SERVER2=127.0.0.1:22102 XCL_LATE_PORT=22103 XCL_BIN=$SERVER \
	XIO_SERVER=127.0.0.1:22110 XIO_SERVER_OFF=127.0.0.1:22111 \
	PYTHONPATH=$PWD/client/python $PY "$HERE/test_xio.py"
