/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_limits.h: the sizes of the BPF tracer's maps and ring buffer. The defaults
 * (include/drmtop_bpf.h) keep drmtop under 16 MiB of kernel memory; a machine with more clients,
 * GEM buffers or jobs in flight than they hold raises them with drmtop --bpf-map NAME=N (a full
 * map is counted and shown, never silent), and tests shrink them to induce losses.
 */
#ifndef DRMTOP_BPF_LIMITS_H
#define DRMTOP_BPF_LIMITS_H

#include <stddef.h>
#include <stdint.h>

enum drmtop_bpf_limit {
	DRMTOP_LIMIT_CLIENTS,	/* DRM clients open at once (clients, client_ids) */
	DRMTOP_LIMIT_ENGINES,	/* (client, ring) pairs, closed clients' until read */
	DRMTOP_LIMIT_RINGS,	/* GPU schedulers */
	DRMTOP_LIMIT_JOBS,	/* jobs queued and not yet done */
	DRMTOP_LIMIT_HANDLES,	/* (client, GEM handle) pairs */
	DRMTOP_LIMIT_OBJECTS,	/* GEM objects alive */
	DRMTOP_LIMIT_DEVICES,	/* DRM devices */
	DRMTOP_LIMIT_ENTITIES,	/* scheduler entities alive (kernels before 6.17) */
	DRMTOP_LIMIT_RINGBUF,	/* bytes of the closed-client ring buffer */
	DRMTOP_LIMIT_TIMELINES,	/* hardware timelines (execution units) remembered, LRU */
	DRMTOP_LIMIT_COUNT
};

/* 0 in a slot: the default. */
struct drmtop_bpf_limits {
	uint32_t n[DRMTOP_LIMIT_COUNT];
};

/* The option's name of each limit ("clients", ..., "ringbuf"). */
extern const char *const drmtop_bpf_limit_names[DRMTOP_LIMIT_COUNT];

/* The limit in force: @l's if set (@l may be NULL), else the default. */
uint32_t drmtop_bpf_limit(const struct drmtop_bpf_limits *l, enum drmtop_bpf_limit which);

/*
 * Parses "NAME=N" (N a count, or for ringbuf bytes, with an optional K or M suffix: 1024,
 * 1048576) into @l. Returns 0, or -1 with a one-line reason in @err.
 */
int drmtop_bpf_limit_parse(struct drmtop_bpf_limits *l, const char *arg, char *err,
			   size_t err_len);

/*
 * Kernel memory the preallocated maps and the ring buffer hold, in bytes: each hash map
 * element is the kernel's 48 bytes of bookkeeping (struct htab_elem, 6.1 to 7.2) plus key and
 * value rounded up to 8, and each bucket (a power of two of them, at least the entries) 16.
 */
uint64_t drmtop_bpf_limits_bytes(const struct drmtop_bpf_limits *l);

#endif /* DRMTOP_BPF_LIMITS_H */
