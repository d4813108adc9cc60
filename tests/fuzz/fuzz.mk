# SPDX-License-Identifier: GPL-2.0-only
# libFuzzer targets (clang, ASan + UBSan): the fdinfo parser, its number parsers, the JSON
# writer and the text and JSON views on a model of fuzzed clients. `make fuzz` builds them into
# $(OUTPUT)/fuzz, replays tests/fuzz/regress, then fuzzes each for FUZZ_SECONDS (make test: the
# default; by hand e.g. `make fuzz FUZZ_SECONDS=600`). New corpus entries stay in
# $(OUTPUT)/fuzz/corpus, crashes in $(OUTPUT)/fuzz/crashes.
TEST_TARGETS += fuzz

FUZZ_SECONDS ?= 20
# Fixed by default so CI's result is reproducible; `make fuzz FUZZ_SEED=` for a fresh seed.
FUZZ_SEED ?= 1
FUZZ_CC ?= clang
FUZZ_DIR := $(OUTPUT)/fuzz
FUZZ_TARGETS := fdinfo number json_writer views
FUZZ_BINS := $(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_TARGETS))
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := -O1 -g -fno-omit-frame-pointer $(FUZZ_SAN)
# The library as the fuzzers see it: every source with coverage, built by this Makefile itself
# into its own output directory.
FUZZ_LIB := $(FUZZ_DIR)/lib/libdrmtop.a
FUZZ_HELPERS := tests/fuzz/json_check.c tests/unit/fake_clients.c

.PHONY: fuzz fuzz-build fuzz-force

fuzz-build: $(FUZZ_BINS) $(FUZZ_DIR)/seeds.stamp
TEST_BUILD += fuzz-build

fuzz: fuzz-build
	@FUZZ_SEED=$(FUZZ_SEED) $(STAGE_RUN) fuzz -- tests/fuzz/run-fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Always asked, as the sub-make knows the library's real dependencies; not phony, so the
# fuzzers are relinked only when the archive really changed.
$(FUZZ_LIB): fuzz-force
	@$(MAKE) --no-print-directory OUTPUT=$(FUZZ_DIR)/lib CC=$(FUZZ_CC) \
		CFLAGS="$(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link" $@

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_HELPERS) $(wildcard tests/fuzz/*.h) $(FUZZ_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE $(WARNFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Iinclude \
		-Itests/unit -Itests/fuzz $(LIBBPF_CFLAGS) $< $(FUZZ_HELPERS) $(FUZZ_LIB) \
		$(LIBBPF_LIBS) $(NCURSES_LIBS) -lm -o $@

# Seeds come from the samples beside the repository; nothing of them is committed here.
$(FUZZ_DIR)/seeds.stamp: tests/fuzz/make-seeds.sh $(wildcard $(FIXTURE_DIR)/*)
	@mkdir -p $(@D)
	@tests/fuzz/make-seeds.sh $(FIXTURE_DIR) $(FUZZ_DIR)
	@touch $@
