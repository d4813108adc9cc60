# SPDX-License-Identifier: GPL-2.0-only
# bpfdump: the guest cases' view of the BPF tracer (tests/vm/cases/40-*.sh .. 59-*.sh), built
# on the reader API in build/libdrmtop.a. The guest runs the host's root, so a dynamic binary is
# fine.

BPFDUMP := $(OUTPUT)/tests/bpfdump

$(BPFDUMP): tests/bpf/bpfdump.c $(LIBDRMTOP) $(wildcard include/drmtop/*.h include/*.h) \
		src/sources/bpf_internal.h $(OUTPUT)/drmtop_sched.skel.h $(OUTPUT)/drmtop_drm.skel.h \
		| $(OUTPUT)/tests
	$(CC) $(ALL_CFLAGS) $< $(LIBDRMTOP) $(ALL_LDFLAGS) $(LIBBPF_LIBS) -lm -o $@

.PHONY: bpfdump
bpfdump: $(BPFDUMP)

VM_TEST_DEPS += $(BPFDUMP)

# vgem-share: known GEM sharing between vgem clients and a simgpu client (case 45).
VGEM_SHARE := $(OUTPUT)/tests/vgem-share

$(VGEM_SHARE): tests/bpf/vgem-share.c | $(OUTPUT)/tests
	$(CC) $(ALL_CFLAGS) $$($(PKG_CONFIG) --cflags libdrm) $< -o $@

VM_TEST_DEPS += $(VGEM_SHARE)
