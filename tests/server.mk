# tests/server.mk: the tests of xio-server (server/server.mk), in make test:
#   server-unit   CUnit tests/server/test_server.c, native and ASan+UBSan:
#                 confinement, cache, every error code, chunking, allow list,
#                 pacing, GSO and sendmmsg trains, turns, ICMP errors on
#                 loopback (ports 21100-21109); tests/server/test_cookie.c:
#                 address cookies, the order of the checks, the three-times
#                 size rule
#                 (stages/xio_msg.c has its own tests/unit/test_msg.c in `unit`)
#   server-fuzz   libFuzzer on the request handler for SERVER_FUZZ_SECONDS (30)
#   server-e2e    build/xio-server on loopback against tests/server/xio_client.py
#                 (ports 21000-21099)
#   server-netns  two network namespaces (xsv-*), under flock /tmp/xio-live.lock:
#                 --allow refusing an address outside the list, --mtu above the
#                 interface's, sends the device drops (ENOBUFS) retried and counted

SERVER_TEST      := $(BUILD)/tests/test_server
SERVER_TEST_ASAN := $(BUILD)/asan/tests/test_server
COOKIE_TEST      := $(BUILD)/tests/test_srv_cookie
COOKIE_TEST_ASAN := $(BUILD)/asan/tests/test_srv_cookie
SERVER_ASAN_LIB  := $(BUILD)/asan/libxio_server.a

$(BUILD)/asan/server/%.o: server/%.c $(SERVER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_ASAN_CFLAGS) $(SERVER_INC) $(ISAL_CFLAGS) -c $< -o $@

$(SERVER_ASAN_LIB): $(patsubst server/%.c,$(BUILD)/asan/server/%.o,$(SERVER_SRC))
	rm -f $@ && ar rcs $@ $^

SERVER_TEST_DEPS := $(SERVER_HDRS) tests/unit/xio_unit.h tests/server/srv_tree.h

$(BUILD)/tests/server/%.o: tests/server/%.c $(SERVER_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SERVER_INC) $(UNIT_INC) $(CUNIT_CFLAGS) -c $< -o $@

$(BUILD)/asan/tests/server/%.o: tests/server/%.c $(SERVER_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_ASAN_CFLAGS) $(SERVER_INC) $(UNIT_INC) $(CUNIT_CFLAGS) -c $< -o $@

$(SERVER_TEST): $(BUILD)/tests/server/test_server.o $(BUILD)/tests/server/srv_tree.o \
		$(BUILD)/tests/obj/xio_unit.o $(SERVER_LIB) $(COMMON_LIB) $(STAGES_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(SERVER_LIBS) $(CUNIT_LIBS)

$(SERVER_TEST_ASAN): $(BUILD)/asan/tests/server/test_server.o \
		$(BUILD)/asan/tests/server/srv_tree.o $(BUILD)/asan/tests/obj/xio_unit.o \
		$(SERVER_ASAN_LIB) $(BUILD)/asan/libxio_common.a $(BUILD)/asan/libxio_stages.a
	$(CC) $(UNIT_ASAN_CFLAGS) $(LDFLAGS) $^ -o $@ $(SERVER_LIBS) $(CUNIT_LIBS)

$(COOKIE_TEST): $(BUILD)/tests/server/test_cookie.o $(BUILD)/tests/server/srv_tree.o \
		$(BUILD)/tests/obj/xio_unit.o $(SERVER_LIB) $(COMMON_LIB) $(STAGES_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(SERVER_LIBS) $(CUNIT_LIBS)

$(COOKIE_TEST_ASAN): $(BUILD)/asan/tests/server/test_cookie.o \
		$(BUILD)/asan/tests/server/srv_tree.o $(BUILD)/asan/tests/obj/xio_unit.o \
		$(SERVER_ASAN_LIB) $(BUILD)/asan/libxio_common.a $(BUILD)/asan/libxio_stages.a
	$(CC) $(UNIT_ASAN_CFLAGS) $(LDFLAGS) $^ -o $@ $(SERVER_LIBS) $(CUNIT_LIBS)

.PHONY: server-unit
server-unit: export ASAN_OPTIONS ?= detect_leaks=1:abort_on_error=0:halt_on_error=1
server-unit: export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
server-unit: $(SERVER_TEST) $(SERVER_TEST_ASAN) $(COOKIE_TEST) $(COOKIE_TEST_ASAN)
	@set -e; for t in $^; do echo "--- $$t"; $$t; done

TESTS += server-unit

# The request handler under libFuzzer: server/'s handler, files and train
# modules built with clang for coverage under ASan+UBSan, on the clang
# stage core of tests/fuzz.mk. Seeds from tests/server/fuzz_seeds.py; what
# it finds grows build/fuzz-server/corpus, a crash lands in artifacts/.
SERVER_FUZZ_DIR := $(BUILD)/fuzz-server
SERVER_FUZZ_BIN := $(SERVER_FUZZ_DIR)/xio-fuzz-server
SERVER_FUZZ_SRC := server/xio_srv_files.c server/xio_srv_handle.c server/xio_srv_train.c \
		   server/xio_srv_cookie.c
SERVER_FUZZ_SECONDS ?= 30

$(SERVER_FUZZ_BIN): tests/server/fuzz_server.c tests/server/srv_tree.c $(SERVER_FUZZ_SRC) \
		$(FUZZ_DIR)/libxio_stages.a $(SERVER_HDRS) tests/server/srv_tree.h
	@mkdir -p $(@D)
	$(CLANG) $(filter-out -fsanitize=fuzzer-no-link,$(FUZZ_CFLAGS)) -fsanitize=fuzzer \
		$(SERVER_INC) $(ISAL_CFLAGS) $(filter %.c,$^) $(FUZZ_DIR)/libxio_stages.a -o $@ \
		$(ISAL_LIBS) $(SODIUM_LIBS)

.PHONY: server-fuzz
server-fuzz: $(SERVER_FUZZ_BIN)
	@rm -rf $(SERVER_FUZZ_DIR)/seeds && mkdir -p $(SERVER_FUZZ_DIR)/corpus $(SERVER_FUZZ_DIR)/artifacts
	/usr/bin/python3 tests/server/fuzz_seeds.py $(SERVER_FUZZ_DIR)/seeds
	$(SERVER_FUZZ_BIN) -max_len=2048 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-dict=tests/server/fuzz.dict -artifact_prefix=$(SERVER_FUZZ_DIR)/artifacts/ \
		-max_total_time=$(SERVER_FUZZ_SECONDS) $(SERVER_FUZZ_DIR)/corpus $(SERVER_FUZZ_DIR)/seeds

TESTS += server-fuzz

# End to end: build/xio-server against tests/server/xio_client.py (Debian's
# python3, stdlib only), on loopback, then between two network namespaces.
.PHONY: server-e2e server-netns
server-e2e: $(SERVER_BIN)
	bash tests/server/e2e.sh $(BUILD)

server-netns: $(SERVER_BIN) $(BUILD)/live/xio-fault
	flock /tmp/xio-live.lock bash tests/server/netns.sh $(BUILD)

TESTS += server-e2e server-netns
