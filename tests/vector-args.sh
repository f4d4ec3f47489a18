#!/usr/bin/env bash
# Prints the xio-pipeline options a conformance vector folder was made with,
# from its name as ../shared/vectors/README.md lays it out:
#   <set>[-port<P>][-keep|-saturate|-drop|-drop-invalid]
# (drop-invalid: overflow keep, invalid XIO dropped; no suffix: keep, as
# reply-srcport). tests/unit/xio_unit.c reads names the same way.
set -euo pipefail
name=$(basename "$1")
port=7910
if [[ $name =~ -port([0-9]+)- ]]; then port=${BASH_REMATCH[1]}; fi
case "$name" in
*-drop-invalid) echo "--udp-port $port --overflow keep --drop-invalid" ;;
*-keep) echo "--udp-port $port --overflow keep" ;;
*-saturate) echo "--udp-port $port --overflow saturate" ;;
*-drop) echo "--udp-port $port --overflow drop" ;;
*) echo "--udp-port $port --overflow keep" ;;
esac
