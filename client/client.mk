# client/client.mk: libxio, the host end of the read protocol (client/xio.h),
# as build/libxio.so (soname libxio.so.$(LIBXIO_SO_MAJOR)) and build/libxio.a, and the
# xio-fetch tool on top of it. Both libraries hold the client modules and
# the stage core they use (messages, CRC32C, the narrowing kernels), built
# once more as position-independent code under build/pic/ with hidden
# visibility: only the XIO_API functions of xio.h are exported. The static
# stage library build/libxio_stages.a is left as it is for the other layers.

# The soname's major number: it goes up whenever xio.h changes incompatibly
# (struct xio_opts and struct xio_stats grew for 1: GRO, flows, the
# congestion window).
LIBXIO_SO_MAJOR := 1
LIBXIO_SONAME   := libxio.so.$(LIBXIO_SO_MAJOR)
LIBXIO_SO       := $(BUILD)/libxio.so
LIBXIO_A        := $(BUILD)/libxio.a
LIBXIO_LIBS     := $(ISAL_LIBS) -pthread

CLIENT_SRC   := $(sort $(wildcard client/xio_*.c))
CLIENT_HDR   := $(wildcard client/*.h stages/*.h)
CLIENT_STAGE_SRC := $(filter stages/xio_msg.c stages/xio_crc.c stages/xio_narrow%.c,$(STAGES_NATIVE_SRC))
CLIENT_PIC_FLAGS := $(CFLAGS) -fPIC -fvisibility=hidden -pthread -Iclient

LIBXIO_OBJ := $(patsubst %.c,$(BUILD)/pic/%.o,$(CLIENT_SRC) $(CLIENT_STAGE_SRC))

$(BUILD)/pic/stages/%.o: stages/%.c $(wildcard stages/*.h)
	@mkdir -p $(@D)
	$(CC) $(CLIENT_PIC_FLAGS) $(call stages_isa_flags,$<) $(ISAL_CFLAGS) -c $< -o $@

$(BUILD)/pic/client/%.o: client/%.c $(CLIENT_HDR)
	@mkdir -p $(@D)
	$(CC) $(CLIENT_PIC_FLAGS) $(ISAL_CFLAGS) -c $< -o $@

$(BUILD)/$(LIBXIO_SONAME): $(LIBXIO_OBJ)
	$(CC) $(CLIENT_PIC_FLAGS) $(LDFLAGS) -shared -Wl,-soname,$(LIBXIO_SONAME) \
		-Wl,--no-undefined $^ -o $@ $(LIBXIO_LIBS)

$(LIBXIO_SO): $(BUILD)/$(LIBXIO_SONAME)
	ln -sf $(LIBXIO_SONAME) $@

$(LIBXIO_A): $(LIBXIO_OBJ)
	rm -f $@ && ar rcs $@ $^

# xio-fetch links libxio statically: the binary runs from anywhere.
$(BUILD)/apps/xio-fetch.o: apps/xio-fetch.c client/xio.h apps/xio_main.h $(COMMON_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iclient -Iapps -c $< -o $@

$(BUILD)/xio-fetch: $(BUILD)/apps/xio-fetch.o $(XIO_MAIN_OBJ) $(COMMON_LIB) $(LIBXIO_A)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(LIBXIO_LIBS) $(COMMON_LIBS)

ALL += $(LIBXIO_SO) $(LIBXIO_A) $(BUILD)/xio-fetch

INSTALL_BINS    += $(BUILD)/xio-fetch
INSTALL_LIBS    += $(LIBXIO_SO) $(LIBXIO_A)
INSTALL_HEADERS += client/xio.h
INSTALL_PYTHON  += client/python/xio
