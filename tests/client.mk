# tests/client.mk: the tests of libxio, xio-fetch and the Python binding
# (tests/client/, docs/client.md).
#   client-unit    CUnit: the modules (test_client_units) and the protocol
#                  against a scripted server thread (test_client_proto),
#                  native and under ASan+UBSan; test_client_proto under TSan
#   client-e2e     xio-fetch against the lossy test server xcl-server:
#                  every format, every fault, ranks, errors, a dead server,
#                  with 1 flow and with 3; GRO trains from xio-server; against
#                  build/xio-server with address cookies on (across rotations)
#                  and off; one read over three xio-servers (shares, one
#                  killed mid-read, copies that disagree, all dead)
#   client-python  the Python package installed with pip into a fresh venv
#                  ($(BUILD)/venv), its tests run from there: the client,
#                  xio.torch and xio.megatron (python3-torch, python3-venv)
# Loopback UDP ports 22000-22999 and 23000 only.

CLIENT_TESTS := test_client_units test_client_proto
CLIENT_TEST_DEPS := tests/unit/xio_unit.c tests/unit/xio_unit.h $(CLIENT_HDR)
XCL_SERVER := $(BUILD)/tests/xcl-server

$(addprefix $(BUILD)/tests/,$(CLIENT_TESTS)): $(BUILD)/tests/%: tests/client/%.c \
		$(CLIENT_TEST_DEPS) $(LIBXIO_A) $(STAGES_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -pthread -Iclient -Itests/unit $(CUNIT_CFLAGS) $(ISAL_CFLAGS) $< \
		tests/unit/xio_unit.c $(LIBXIO_A) $(STAGES_LIB) -o $@ $(CUNIT_LIBS) $(ISAL_LIBS)

# ASan+UBSan: the client's sources compiled into the test itself.
$(addprefix $(BUILD)/asan/tests/,$(CLIENT_TESTS)): $(BUILD)/asan/tests/%: tests/client/%.c \
		$(CLIENT_TEST_DEPS) $(CLIENT_SRC) $(BUILD)/asan/libxio_stages.a
	@mkdir -p $(@D)
	$(CC) $(filter-out -O2,$(CFLAGS)) $(ASAN_FLAGS) -pthread -Iclient -Itests/unit \
		$(CUNIT_CFLAGS) $(ISAL_CFLAGS) $< tests/unit/xio_unit.c $(CLIENT_SRC) \
		$(BUILD)/asan/libxio_stages.a -o $@ $(CUNIT_LIBS) $(ISAL_LIBS)

# ThreadSanitizer: the scripted-server tests (flows on threads of their own,
# streams), the client's sources compiled into the test itself.
$(BUILD)/tsan/tests/test_client_proto: tests/client/test_client_proto.c $(CLIENT_TEST_DEPS) \
		$(CLIENT_SRC) $(STAGES_LIB)
	@mkdir -p $(@D)
	$(CC) $(filter-out -O2,$(CFLAGS)) -O1 -fsanitize=thread -pthread -Iclient -Itests/unit \
		$(CUNIT_CFLAGS) $(ISAL_CFLAGS) $< tests/unit/xio_unit.c $(CLIENT_SRC) $(STAGES_LIB) \
		-o $@ $(CUNIT_LIBS) $(ISAL_LIBS)

$(XCL_SERVER): tests/client/xcl_server.c $(STAGES_LIB) $(wildcard stages/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ISAL_CFLAGS) $< $(STAGES_LIB) -o $@ $(ISAL_LIBS)

.PHONY: client-unit client-e2e client-python
client-unit: export ASAN_OPTIONS ?= detect_leaks=1:halt_on_error=1
client-unit: export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
client-unit: export TSAN_OPTIONS ?= halt_on_error=1
client-unit: $(addprefix $(BUILD)/tests/,$(CLIENT_TESTS)) $(addprefix $(BUILD)/asan/tests/,$(CLIENT_TESTS)) \
		$(BUILD)/tsan/tests/test_client_proto
	@set -e; for t in $^; do echo "--- $$t"; $$t; done

client-e2e: $(BUILD)/xio-fetch $(XCL_SERVER) $(BUILD)/xio-server
	BUILD=$(BUILD) FLOWS=1 bash tests/client/test_fetch.sh
	BUILD=$(BUILD) FLOWS=3 bash tests/client/test_fetch.sh
	BUILD=$(BUILD) bash tests/client/test_replicas.sh

client-python: $(LIBXIO_SO) $(XCL_SERVER) $(SERVER_BIN)
	BUILD=$(BUILD) bash tests/client/test_python.sh

TESTS += client-unit client-e2e client-python
