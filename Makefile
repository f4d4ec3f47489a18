# xio-pipeline top-level Makefile.
#   make          build everything into build/
#   make test     run every test (installs missing packages first: make deps)
#   make bench    benchmarks (never part of make test)
#   make deps     install the Debian packages the project needs
#   make install  install into PREFIX (default /usr/local), DESTDIR for staging;
#                 make uninstall removes it again (docs/install.md)
# Each folder adds its own rules in its *.mk file; flags come from pkg-config.

# The one place the version is set: every binary's --version and xio.pc.
XIO_VERSION := 0.4.0

BUILD   ?= build
CC      ?= gcc
CLANG   ?= clang
PKGCONF ?= pkg-config
ARCH    := $(shell uname -m)

WARN    := -Wall -Wextra -Wshadow -Wno-unused-parameter
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 $(WARN) -D_GNU_SOURCE -Icommon -Istages -Ipipeline -Idrivers \
	   -DXIO_VERSION_STRING='"$(XIO_VERSION)"'
ifeq ($(ARCH),x86_64)
CFLAGS  += -march=x86-64-v2 -mtune=native
endif
LDFLAGS ?=

# Libraries through pkg-config (each .mk adds the ones it needs).
ISAL_CFLAGS  := $(shell $(PKGCONF) --cflags libisal 2>/dev/null)
ISAL_LIBS    := $(shell $(PKGCONF) --libs libisal 2>/dev/null || echo -lisal)
PCAP_CFLAGS  := $(shell $(PKGCONF) --cflags libpcap 2>/dev/null)
PCAP_LIBS    := $(shell $(PKGCONF) --libs libpcap 2>/dev/null || echo -lpcap)
CUNIT_CFLAGS := $(shell $(PKGCONF) --cflags cunit 2>/dev/null)
CUNIT_LIBS   := $(shell $(PKGCONF) --libs cunit 2>/dev/null || echo -lcunit)

# Test and bench targets are collected from the .mk files.
TESTS   :=
BENCHES :=
ALL     :=
# What make install puts where: each .mk adds what it builds (the lists are
# described in apps/install/install.mk).
INSTALL_BINS      :=
INSTALL_LIBS      :=
INSTALL_HEADERS   :=
INSTALL_PYTHON    :=
INSTALL_DOCS      :=
INSTALL_WIRESHARK :=

.PHONY: all test bench deps clean
.DEFAULT_GOAL := all

include stages/stages.mk
include common/common.mk
include $(sort $(wildcard pipeline/*.mk drivers/*.mk drivers/*/*.mk server/*.mk client/*.mk apps/*.mk tests/*.mk))
# make install and uninstall: last, to see every INSTALL_* list.
include apps/install/install.mk

all: $(ALL)

deps:
	bash scripts/deps.sh

# make test installs what a fresh machine lacks, then runs every test in order
# and stops at the first failure.
test:
	@bash scripts/deps.sh --check || bash scripts/deps.sh
	@$(MAKE) --no-print-directory all
	@set -e; for t in $(TESTS); do \
		echo "=== $$t"; $(MAKE) --no-print-directory $$t; done
	@echo "=== all tests passed"

bench:
	@bash scripts/deps.sh --check || bash scripts/deps.sh
	@$(MAKE) --no-print-directory all
	@set -e; for b in $(BENCHES); do \
		echo "=== $$b"; $(MAKE) --no-print-directory $$b; done

clean:
	rm -rf $(BUILD)
