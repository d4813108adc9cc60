# SPDX-License-Identifier: GPL-2.0-only
#
# simgpu-workload: the userspace load generator the VM tests drive simgpu with
# (tests/workload/README.md). Userspace C11; only libdrm's uAPI headers, no libdrm library.

WORKLOAD_SRCS := $(wildcard tests/workload/*.c)
WORKLOAD_HDRS := $(wildcard tests/workload/*.h) tests/kmod/simgpu/simgpu_drm.h
WORKLOAD_BIN := $(OUTPUT)/tests/simgpu-workload
LIBDRM_CFLAGS := $(shell $(PKG_CONFIG) --cflags libdrm 2>/dev/null)

.PHONY: workload
workload: $(WORKLOAD_BIN)

$(WORKLOAD_BIN): $(WORKLOAD_SRCS) $(WORKLOAD_HDRS) | $(OUTPUT)/tests
	$(CC) -std=c11 -D_GNU_SOURCE $(WARNFLAGS) $(CFLAGS) $(LIBDRM_CFLAGS) \
		$(WORKLOAD_SRCS) $(LDFLAGS) -pthread -o $@

VM_TEST_DEPS += $(WORKLOAD_BIN)
