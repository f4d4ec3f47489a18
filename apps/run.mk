# apps/run.mk: `make run`, the README's first command: replays the bundled
# capture through xio-pipeline on DPDK's pcap PMD (no NIC, no huge pages),
# which ends with the summary line and the path of the stats JSON, and
# checks the output with xio-verify.

RUN_OUT := $(BUILD)/run

.PHONY: run
run:
	@bash scripts/deps.sh --check || bash scripts/deps.sh
	@$(MAKE) --no-print-directory $(BUILD)/xio-pipeline $(BUILD)/xio-verify
	@mkdir -p $(RUN_OUT)
	$(BUILD)/xio-pipeline --no-huge --no-shconf --no-pci \
		--vdev net_pcap0,rx_pcap=pcap/sample.pcap,tx_pcap=$(RUN_OUT)/sample-out.pcap \
		-- --idle-exit 500 --stats-json $(RUN_OUT)/sample-stats.json
	$(BUILD)/xio-verify --capture $(RUN_OUT)/sample-out.pcap --tokens pcap/sample-tokens.bin
