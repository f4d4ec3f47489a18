# common/common.mk: build/libxio_common.a, what every program shares below
# its own layer: the JSON writer, the counter tables' JSON and Prometheus
# text, the command-line helpers, path and time helpers (plain C, no
# DPDK), and the --metrics HTTP endpoint on libmicrohttpd. stages/,
# pipeline/, drivers/, server/, client/ and apps/ may include it; it
# includes none of them.

COMMON_SRC  := $(filter-out common/xio_pcap.c,$(sort $(wildcard common/*.c)))
COMMON_HDRS := $(wildcard common/*.h)
COMMON_LIB  := $(BUILD)/libxio_common.a
MHD_CFLAGS  := $(shell $(PKGCONF) --cflags libmicrohttpd 2>/dev/null)
MHD_LIBS    := $(shell $(PKGCONF) --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
# What a program linking libxio_common.a adds to its link line.
COMMON_LIBS := $(MHD_LIBS) -lpthread -lm

$(BUILD)/common/%.o: common/%.c $(COMMON_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(MHD_CFLAGS) -c $< -o $@

$(COMMON_LIB): $(patsubst common/%.c,$(BUILD)/common/%.o,$(COMMON_SRC))
	rm -f $@ && ar rcs $@ $^

# The same with ASan+UBSan, for the sanitizer builds.
$(BUILD)/asan/common/%.o: common/%.c $(COMMON_HDRS)
	@mkdir -p $(@D)
	$(CC) $(filter-out -O2,$(CFLAGS)) $(ASAN_FLAGS) $(MHD_CFLAGS) -c $< -o $@

$(BUILD)/asan/libxio_common.a: $(patsubst common/%.c,$(BUILD)/asan/common/%.o,$(COMMON_SRC))
	rm -f $@ && ar rcs $@ $^
