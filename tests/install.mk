# tests/install.mk: `make install-check`: make install into a temporary
# DESTDIR, the tree, --help/--version and man page of every program, the
# installed programs and dissector at work, pkg-config xio (once libxio is
# built), the systemd example, make uninstall (tests/install/test_install.sh).

.PHONY: install-check
install-check: $(INSTALL_BINS) $(INSTALL_LIBS) man
	BUILD=$(BUILD) MAKE="$(MAKE)" XIO_VERSION=$(XIO_VERSION) \
		XIO_BINS="$(notdir $(INSTALL_BINS))" XIO_LIBS="$(notdir $(INSTALL_LIBS))" \
		XIO_HEADERS="$(notdir $(INSTALL_HEADERS))" XIO_PYTHON="$(INSTALL_PYTHON)" \
		bash tests/install/test_install.sh

TESTS += install-check
