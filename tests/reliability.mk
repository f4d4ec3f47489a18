# tests/reliability.mk: xio-pipeline's reliability tests (tests/reliability/),
# in make test after the hostile captures (tests/hostile.mk):
#   reliability       every bad option and setup error gives one clear line
#                     and a clean non-zero exit (errors.sh); SIGTERM/SIGINT
#                     under full load in both modes exit 0 with every frame
#                     accounted for, flushed, and no mbuf leaked (shutdown.sh)
#   dpdk-asan         the DPDK end-to-end tests (tests/dpdk.mk) once more,
#                     under build/asan/xio-pipeline
#   reliability-asan  hostile captures, shutdown and errors once more under
#                     build/asan/xio-pipeline (asan.sh)

.PHONY: reliability reliability-asan
reliability: $(BUILD)/xio-pipeline $(HOSTILE_TOOLS)
	bash tests/reliability/errors.sh $(BUILD)
	bash tests/reliability/shutdown.sh $(BUILD)

reliability-asan: $(BUILD)/asan/xio-pipeline $(HOSTILE_TOOLS)
	bash tests/reliability/asan.sh $(BUILD)

TESTS += reliability dpdk-asan reliability-asan
