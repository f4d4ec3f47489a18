# pipeline/pipeline.mk: build/xio-pipeline, the product's main binary:
# apps/xio-pipeline.c, the pipeline modules (pipeline/), the DPDK driver
# (drivers/dpdk/) and, when drivers/xdp is there, the XDP driver. pipeline/
# is compiled without drivers/dpdk on its include path: the driver builds on
# the pipeline, never the other way round (docs/design.md).
#
#   build/xio-pipeline          with DPDK when pkg-config finds libdpdk
#                               (make XIO_DPDK=n forces a build without)
#   build/nodpdk/xio-pipeline   always without DPDK (XDP driver only)
#   build/asan/xio-pipeline     ASan+UBSan build for the sanitizer runs
#
# The XDP driver's fragment (drivers/xdp/*.mk) adds the objects that provide
# xio_xdp_run() to XIO_XDP_OBJS (and XIO_XDP_ASAN_OBJS for the ASan build)
# and its link flags to XIO_XDP_LIBS; any fragment may add link flags to
# XIO_PIPELINE_LIBS. Prerequisites are expanded a second time, so fragments
# included after this one count too.

XIO_DPDK ?= $(if $(shell $(PKGCONF) --exists libdpdk && echo y),y,n)
DPDK_CFLAGS := $(filter-out -march=%,$(shell $(PKGCONF) --cflags libdpdk 2>/dev/null))
DPDK_LIBS   := $(shell $(PKGCONF) --libs libdpdk 2>/dev/null)
IBV_CFLAGS  := $(if $(shell $(PKGCONF) --exists libibverbs && echo y),-DXIO_HAVE_IBVERBS)
IBV_LIBS    := $(if $(IBV_CFLAGS),$(shell $(PKGCONF) --libs libibverbs))

XIO_XDP_OBJS      ?=
XIO_XDP_ASAN_OBJS ?=
XIO_XDP_LIBS      ?=
XIO_PIPELINE_LIBS ?=

# Plain C, every build: options, counters, stats, the drivers' run layer.
XP_PLAIN_SRC := pipeline/xio_config.c pipeline/xio_counters.c pipeline/xio_stats.c \
	pipeline/xio_run.c
# The DPDK data path (pipeline/) and the DPDK driver that runs it (drivers/dpdk/).
XP_DPDK_SRC := pipeline/xio_worker.c pipeline/xio_rtc.c pipeline/xio_pipeline_mode.c \
	pipeline/xio_mbuf.c pipeline/xio_dp_stats.c pipeline/xio_telemetry.c \
	pipeline/xio_hwcounters.c pipeline/xio_port_stats.c \
	drivers/dpdk/xio_dpdk.c drivers/dpdk/xio_ethdev.c drivers/dpdk/xio_ethdev_iface.c \
	drivers/dpdk/xio_ethdev_afp.c drivers/dpdk/xio_ethdev_list.c
XP_HDRS := $(wildcard common/*.h stages/*.h pipeline/*.h drivers/dpdk/*.h drivers/xdp/xio_xdp.h)

# $(call xp_variant,OUTDIR,CFLAGS,STAGES_LIB,WITH_DPDK,XDP_OBJS_VAR,COMMON_LIB)
define xp_variant
$1/xp/plain/%.o: %.c $(XP_HDRS)
	@mkdir -p $$(@D)
	$(CC) $2 $(ISAL_CFLAGS) -c $$< -o $$@
$1/xp/dpdk/pipeline/%.o: pipeline/%.c $(XP_HDRS)
	@mkdir -p $$(@D)
	$(CC) $2 -DXIO_HAVE_DPDK $(DPDK_CFLAGS) -c $$< -o $$@
$1/xp/dpdk/drivers/dpdk/%.o: drivers/dpdk/%.c $(XP_HDRS)
	@mkdir -p $$(@D)
	$(CC) $2 -Idrivers/dpdk -DXIO_HAVE_DPDK $(IBV_CFLAGS) $(DPDK_CFLAGS) -c $$< -o $$@
$1/xp/main.o: apps/xio-pipeline.c $(XP_HDRS) $(wildcard drivers/xdp/*.mk)
	@mkdir -p $$(@D)
	$(CC) $2 $(if $(filter y,$4),-DXIO_HAVE_DPDK $(DPDK_CFLAGS)) \
		$$(if $$($5),-DXIO_HAVE_XDP) -c $$< -o $$@
$1/xio-pipeline: $1/xp/main.o $(patsubst %.c,$1/xp/plain/%.o,$(XP_PLAIN_SRC)) \
		$(if $(filter y,$4),$(patsubst %.c,$1/xp/dpdk/%.o,$(XP_DPDK_SRC))) $$$$($5) $3 $6
	$(CC) $2 $(LDFLAGS) $$(filter %.o %.a,$$^) -o $$@ $$(XIO_XDP_LIBS) $$(XIO_PIPELINE_LIBS) \
		$(if $(filter y,$4),$(DPDK_LIBS) $(IBV_LIBS)) $(ISAL_LIBS) $(COMMON_LIBS)
endef

.SECONDEXPANSION:
$(eval $(call xp_variant,$(BUILD),$(CFLAGS),$(STAGES_LIB),$(XIO_DPDK),XIO_XDP_OBJS,$(COMMON_LIB)))
$(eval $(call xp_variant,$(BUILD)/nodpdk,$(CFLAGS),$(STAGES_LIB),n,XIO_XDP_OBJS,$(COMMON_LIB)))
$(eval $(call xp_variant,$(BUILD)/asan,$(filter-out -O2,$(CFLAGS)) $(ASAN_FLAGS),$(BUILD)/asan/libxio_stages.a,$(XIO_DPDK),XIO_XDP_ASAN_OBJS,$(BUILD)/asan/libxio_common.a))

ALL += $(BUILD)/xio-pipeline $(BUILD)/nodpdk/xio-pipeline
INSTALL_BINS += $(BUILD)/xio-pipeline
