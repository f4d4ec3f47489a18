# apps/install/install.mk: make install, make uninstall and the man pages
# (docs/install.md). The Makefile reads it after every other .mk, so that it
# sees all they added to these lists:
#
#   INSTALL_BINS       programs ($(BUILD)/NAME)   -> $(BINDIR), and a man page
#                      each, made by help2man from NAME --help, NAME --version
#                      and apps/man/NAME.h2m      -> $(MAN1DIR)
#   INSTALL_LIBS       $(BUILD)/libNAME.so (with a SONAME), $(BUILD)/libNAME.a
#                                                 -> $(LIBDIR), the .so as
#                      libNAME.so.$(XIO_VERSION) with its SONAME and link name
#                      as symbolic links; with libxio.so, xio.pc
#                      (apps/install/xio.pc.in)   -> $(PKGCONFIGDIR)
#   INSTALL_HEADERS    public headers             -> $(INCLUDEDIR)
#   INSTALL_PYTHON     Python package folders     -> $(PYTHONDIR)
#   INSTALL_DOCS       docs, by path in the tree  -> $(DOCDIR)
#   INSTALL_WIRESHARK  Lua dissectors             -> $(WIRESHARK_PLUGINDIR)
#
# PREFIX (default /usr/local) and DESTDIR (staging root) as usual; every
# directory below can be set on the command line too.

PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
MANDIR       ?= $(PREFIX)/share/man
MAN1DIR      ?= $(MANDIR)/man1
DOCDIR       ?= $(PREFIX)/share/doc/xio-pipeline
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# Debian's python3 reads /usr/lib/python3/dist-packages, and
# PREFIX/lib/python3.X/dist-packages for any other prefix (/usr/local).
PYTHONDIR    ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')/dist-packages)
# Wireshark's global plugin folder under the prefix: with PREFIX=/usr it is
# Debian's own, which Wireshark and tshark load Lua plugins from.
WIRESHARK_PLUGINDIR ?= $(PREFIX)/lib/$(shell $(CC) -print-multiarch)/wireshark/plugins

INSTALL_DOCS += README.md $(wildcard docs/*.md docs/*.png) docs/systemd/xio-pipeline.service \
	docs/systemd/xio-pipeline.env
INSTALL_WIRESHARK += apps/wireshark/xio.lua

MAN_PAGES := $(foreach b,$(INSTALL_BINS),$(BUILD)/man/$(notdir $b).1)

# $(call man_page,BIN): the man page of BIN, run by its bare name so that
# its usage lines name it as a user types it.
define man_page
$(BUILD)/man/$(notdir $1).1: $1 apps/man/$(notdir $1).h2m
	@mkdir -p $$(@D)
	PATH="$(abspath $(dir $1)):$$$$PATH" help2man --no-info --include apps/man/$(notdir $1).h2m \
		--output $$@ $(notdir $1)
endef
$(foreach b,$(INSTALL_BINS),$(eval $(call man_page,$b)))

# Everything install.sh needs, in its environment.
INSTALL_ENV = DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" BINDIR="$(BINDIR)" LIBDIR="$(LIBDIR)" \
	INCLUDEDIR="$(INCLUDEDIR)" MAN1DIR="$(MAN1DIR)" DOCDIR="$(DOCDIR)" \
	PKGCONFIGDIR="$(PKGCONFIGDIR)" PYTHONDIR="$(PYTHONDIR)" \
	WIRESHARK_PLUGINDIR="$(WIRESHARK_PLUGINDIR)" XIO_VERSION="$(XIO_VERSION)" \
	XIO_BINS="$(INSTALL_BINS)" XIO_MANS="$(MAN_PAGES)" XIO_LIBS="$(INSTALL_LIBS)" \
	XIO_HEADERS="$(INSTALL_HEADERS)" XIO_PYTHON="$(INSTALL_PYTHON)" XIO_DOCS="$(INSTALL_DOCS)" \
	XIO_WIRESHARK="$(INSTALL_WIRESHARK)" \
	XIO_PCS="$(if $(filter %/libxio.so,$(INSTALL_LIBS)),apps/install/xio.pc.in)"

.PHONY: man install uninstall
man: $(MAN_PAGES)

install: $(INSTALL_BINS) $(INSTALL_LIBS) $(MAN_PAGES)
	@echo "install into $(DESTDIR)$(PREFIX):"
	@$(INSTALL_ENV) bash apps/install/install.sh install

uninstall:
	@echo "uninstall from $(DESTDIR)$(PREFIX):"
	@$(INSTALL_ENV) bash apps/install/install.sh uninstall
