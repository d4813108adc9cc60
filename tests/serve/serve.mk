# SPDX-License-Identifier: GPL-2.0-only
# drmtop serve on the host: promtool check metrics on its output, HTTP behaviour (root).
TEST_TARGETS += serve

.PHONY: serve
serve: $(OUTPUT)/drmtop
	@DRMTOP=$(OUTPUT)/drmtop $(STAGE_RUN) serve -- tests/serve/serve-test.sh
