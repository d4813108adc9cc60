# SPDX-License-Identifier: GPL-2.0-only
# bpfdump: the guest cases' view of the BPF tracer (tests/vm/cases/40-*.sh .. 59-*.sh), built
# on the reader API in build/libdrmtop.a. The guest runs the host's root, so a dynamic binary is
# fine.

BPFDUMP := $(OUTPUT)/tests/bpfdump

$(BPFDUMP): tests/bpf/bpfdump.c $(LIBDRMTOP) $(wildcard include/drmtop/*.h include/*.h) | $(OUTPUT)/tests
	$(CC) $(ALL_CFLAGS) $< $(LIBDRMTOP) $(ALL_LDFLAGS) $(LIBBPF_LIBS) -lm -o $@

.PHONY: bpfdump
bpfdump: $(BPFDUMP)

VM_TEST_DEPS += $(BPFDUMP)
