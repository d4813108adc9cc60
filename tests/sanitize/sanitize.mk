# SPDX-License-Identifier: GPL-2.0-only
# make sanitize: unit and CLI tests under ASan + UBSan + LeakSanitizer (clang, findings fatal),
# built into $(OUTPUT)/san so the normal build is untouched; then batch runs of $(OUTPUT)/drmtop
# under valgrind on a hostile proc tree. Root, as the CLI test and the BPF unit tests need.
TEST_TARGETS += sanitize
# The longest host stage (about 3 minutes): started first, beside the others one after another.
TEST_HOST_FIRST += sanitize

SAN_DIR := $(OUTPUT)/san

.PHONY: sanitize
sanitize: $(OUTPUT)/drmtop
	@MAKE="$(MAKE)" CLANG="$(CLANG)" $(STAGE_RUN) sanitize -- tests/sanitize/run-sanitize.sh $(OUTPUT) $(SAN_DIR)
