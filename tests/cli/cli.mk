# SPDX-License-Identifier: GPL-2.0-only
# End-to-end test of the drmtop binary on synthetic proc trees (host, root).
TEST_TARGETS += cli

.PHONY: cli
cli: $(OUTPUT)/drmtop
	@DRMTOP=$(OUTPUT)/drmtop $(STAGE_RUN) cli -- tests/cli/cli-test.sh

# The manual page renders cleanly and documents every option (host, no root).
TEST_TARGETS += man

.PHONY: man
man: $(OUTPUT)/drmtop
	@DRMTOP=$(OUTPUT)/drmtop $(STAGE_RUN) man -- tests/cli/man-test.sh
