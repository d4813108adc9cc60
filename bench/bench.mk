# SPDX-License-Identifier: GPL-2.0-only
#
# `make bench`: drmtop's overhead, measured in one boot of Debian's 6.12 kernel under QEMU with
# simgpu (bench/run-bench.sh, bench/bench-guest.sh; docs/PERFORMANCE.md has the figures).
# Not part of `make test`: it takes 18 minutes on a quiet host (17.6 at 4f2afea). `make
# bench-smoke` runs every part once, briefly (1.5-3 min measured on a loaded 2-core host), and
# checks only that each produced its figures and every target's line (one round judges none:
# "not judged"); it is a `make test` stage, so changes to drmtop's JSON or the tracer that break
# the benchmark scripts show up there.
# It writes "<passed> <failed>" to $(RESULTS)/bench-smoke.
# Knobs: BENCH_KERNELS (default 6.12; "6.1 6.12" for both), BENCH_ROUNDS (default 12: the 6 phases rotated twice;
# 14 with BENCH_BASE: 7 phases),
# BENCH_SECS (seconds per loop, default 2), BENCH_SCALE_CLIENTS (default 10000),
# BENCH_TIMEOUT (seconds per boot, default 3600; 900 for the smoke), BENCH_MAX_LOAD (default 1.0:
# above this host load, before, during or after a boot, the report judges no target),
# BENCH_SETTLE (seconds to wait first for the host load to fall to it; 120, 0 for the smoke),
# BENCH_BASE (a git revision: its drmtop, built in build/bench/base-<sha>/ by bench/build-base.sh,
# runs as a sixth overhead phase "base" in the same rounds, and the report adds on/base: two
# boots gave the same code 1.43x and 1.60x, so a small change shows only paired within one;
# its live view runs among the peers too), BENCH_PEER_REPS (default 4: the peers' repetitions).

BENCH_BINS := $(addprefix $(OUTPUT)/bench/,bench-ioctl bench-open bench-gem bench-jobs bench-spawn bench-tui \
	bench-refresh bench-rss bench-floor floor.bpf.o floor-lookup.bpf.o floor-least.bpf.o)
BENCH_KERNELS ?= 6.12
BENCH_ROUNDS ?= $(if $(BENCH_BASE),14,12)
BENCH_SECS ?= 2
BENCH_SCALE_CLIENTS ?= 10000
BENCH_MAX_LOAD ?= 1.0

$(OUTPUT)/bench:
	@mkdir -p $@

$(OUTPUT)/bench/%: bench/%.c bench/bench-common.h tests/kmod/simgpu/simgpu_drm.h | $(OUTPUT)/bench
	$(CC) -std=c11 -D_GNU_SOURCE $(WARNFLAGS) $(CFLAGS) $(shell $(PKG_CONFIG) --cflags libdrm) \
		$< $(LDFLAGS) -o $@

# The floor phases: empty programs on drmtop's hooks (bench/floor.bpf.c), the same with one
# hash lookup each (the lookup phase) and with the least an exact count keeps (the least phase),
# loaded by bench-floor.
$(OUTPUT)/bench/floor.bpf.o: bench/floor.bpf.c $(wildcard vmlinux/*.h) | $(OUTPUT)/bench
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/bench/floor-lookup.bpf.o: bench/floor.bpf.c $(wildcard vmlinux/*.h) | $(OUTPUT)/bench
	$(CLANG) $(BPF_CFLAGS) -DFLOOR_LOOKUP -c $< -o $@

$(OUTPUT)/bench/floor-least.bpf.o: bench/floor.bpf.c $(wildcard vmlinux/*.h) | $(OUTPUT)/bench
	$(CLANG) $(BPF_CFLAGS) -DFLOOR_LOOKUP -DFLOOR_LEAST -c $< -o $@

$(OUTPUT)/bench/bench-floor: bench/bench-floor.c | $(OUTPUT)/bench
	$(CC) -std=c11 -D_GNU_SOURCE $(WARNFLAGS) $(CFLAGS) $(LIBBPF_CFLAGS) $< $(LDFLAGS) \
		$(LIBBPF_LIBS) -o $@

.PHONY: bench bench-smoke bench-bins
bench-bins: $(BENCH_BINS)

bench: all simgpu-modules $(OUTPUT)/tests/simgpu-workload $(BENCH_BINS)
	@BENCH_ROUNDS=$(BENCH_ROUNDS) BENCH_SECS=$(BENCH_SECS) BENCH_BASE='$(BENCH_BASE)' \
		BENCH_SCALE_CLIENTS=$(BENCH_SCALE_CLIENTS) BENCH_MAX_LOAD=$(BENCH_MAX_LOAD) bench/run-bench.sh $(BENCH_KERNELS)

TEST_TARGETS += bench-smoke
TEST_PARALLEL += bench-smoke
bench-smoke: all simgpu-modules $(OUTPUT)/tests/simgpu-workload $(BENCH_BINS)
	@mkdir -p $(RESULTS); $(STAGE_RUN) bench-smoke -- sh -c \
	'if BENCH_SMOKE=1 BENCH_TIMEOUT=900 bench/run-bench.sh 6.12; then echo "1 0" >$(RESULTS)/bench-smoke; \
	else echo "0 1" >$(RESULTS)/bench-smoke; exit 1; fi'
