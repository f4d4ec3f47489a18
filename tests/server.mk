# tests/server.mk: the tests of xio-server (server/server.mk), in make test:
#   server-unit   CUnit tests/server/test_server.c, native and ASan+UBSan:
#                 confinement, cache, every error code, chunking, allow list,
#                 pacing, GSO and sendmmsg trains on loopback (ports 21100-21109)
#                 (stages/xio_msg.c has its own tests/unit/test_msg.c in `unit`)
#   server-fuzz   libFuzzer on the request handler for SERVER_FUZZ_SECONDS (30)
#   server-e2e    build/xio-server on loopback against tests/server/xio_client.py
#                 (ports 21000-21099)
#   server-netns  two network namespaces (xsv-*), under flock /tmp/xio-live.lock:
#                 --allow refusing an address outside the list, GSO fallback

SERVER_TEST      := $(BUILD)/tests/test_server
SERVER_TEST_ASAN := $(BUILD)/asan/tests/test_server
SERVER_ASAN_LIB  := $(BUILD)/asan/libxio_server.a

$(BUILD)/asan/server/%.o: server/%.c $(SERVER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_ASAN_CFLAGS) $(SERVER_INC) $(ISAL_CFLAGS) -c $< -o $@

$(SERVER_ASAN_LIB): $(patsubst server/%.c,$(BUILD)/asan/server/%.o,$(SERVER_SRC))
	rm -f $@ && ar rcs $@ $^

$(BUILD)/tests/obj/test_server.o: tests/server/test_server.c $(SERVER_HDRS) $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SERVER_INC) $(UNIT_INC) $(CUNIT_CFLAGS) -c $< -o $@

$(BUILD)/asan/tests/obj/test_server.o: tests/server/test_server.c $(SERVER_HDRS) $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_ASAN_CFLAGS) $(SERVER_INC) $(UNIT_INC) $(CUNIT_CFLAGS) -c $< -o $@

$(SERVER_TEST): $(BUILD)/tests/obj/test_server.o $(BUILD)/tests/obj/xio_unit.o $(SERVER_LIB) \
		$(STAGES_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(SERVER_LIBS) $(CUNIT_LIBS)

$(SERVER_TEST_ASAN): $(BUILD)/asan/tests/obj/test_server.o $(BUILD)/asan/tests/obj/xio_unit.o \
		$(SERVER_ASAN_LIB) $(BUILD)/asan/libxio_stages.a
	$(CC) $(UNIT_ASAN_CFLAGS) $(LDFLAGS) $^ -o $@ $(SERVER_LIBS) $(CUNIT_LIBS)

.PHONY: server-unit
server-unit: export ASAN_OPTIONS ?= detect_leaks=1:abort_on_error=0:halt_on_error=1
server-unit: export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
server-unit: $(SERVER_TEST) $(SERVER_TEST_ASAN)
	@set -e; for t in $^; do echo "--- $$t"; $$t; done

TESTS += server-unit
