# server/server.mk: xio-server, the storage end of the read protocol
# (docs/server.md). The modules of server/ become build/libxio_server.a on
# top of the stage core and common/; apps/xio-server.c is its main. The tests are in
# tests/server.mk.

SERVER_SRC  := $(sort $(wildcard server/*.c))
SERVER_HDRS := $(wildcard server/*.h stages/*.h common/*.h)
SERVER_LIB  := $(BUILD)/libxio_server.a
SERVER_BIN  := $(BUILD)/xio-server
SERVER_INC  := -Iserver
SODIUM_LIBS := $(shell $(PKGCONF) --libs libsodium 2>/dev/null || echo -lsodium)
SERVER_LIBS := $(ISAL_LIBS) $(SODIUM_LIBS) $(COMMON_LIBS)

$(BUILD)/server/%.o: server/%.c $(SERVER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SERVER_INC) $(ISAL_CFLAGS) -c $< -o $@

$(SERVER_LIB): $(patsubst server/%.c,$(BUILD)/server/%.o,$(SERVER_SRC))
	rm -f $@ && ar rcs $@ $^

$(BUILD)/apps/xio-server.o: apps/xio-server.c $(SERVER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SERVER_INC) -c $< -o $@

$(SERVER_BIN): $(BUILD)/apps/xio-server.o $(SERVER_LIB) $(COMMON_LIB) $(STAGES_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(SERVER_LIBS)

ALL += $(SERVER_BIN)
INSTALL_BINS += $(SERVER_BIN)
