// SPDX-License-Identifier: GPL-2.0-only
/* bpf_limits.c: the tracer's map sizes: defaults, parsing of --bpf-map, memory they buy. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop_bpf.h"
#include "drmtop/bpf_limits.h"
#include "bpf_internal.h"

const char *const drmtop_bpf_limit_names[DRMTOP_LIMIT_COUNT] = {
	[DRMTOP_LIMIT_CLIENTS] = "clients",	[DRMTOP_LIMIT_ENGINES] = "engines",
	[DRMTOP_LIMIT_RINGS] = "rings",		[DRMTOP_LIMIT_JOBS] = "jobs",
	[DRMTOP_LIMIT_HANDLES] = "handles",	[DRMTOP_LIMIT_OBJECTS] = "objects",
	[DRMTOP_LIMIT_DEVICES] = "devices",	[DRMTOP_LIMIT_ENTITIES] = "entities",
	[DRMTOP_LIMIT_RINGBUF] = "ringbuf",	[DRMTOP_LIMIT_TIMELINES] = "timelines",
};

static const uint32_t defaults[DRMTOP_LIMIT_COUNT] = {
	[DRMTOP_LIMIT_CLIENTS] = DRMTOP_MAX_CLIENTS,
	[DRMTOP_LIMIT_ENGINES] = DRMTOP_MAX_ENGINES,
	[DRMTOP_LIMIT_RINGS] = DRMTOP_MAX_RINGS,
	[DRMTOP_LIMIT_JOBS] = DRMTOP_MAX_JOBS,
	[DRMTOP_LIMIT_HANDLES] = DRMTOP_MAX_HANDLES,
	[DRMTOP_LIMIT_OBJECTS] = DRMTOP_MAX_OBJECTS,
	[DRMTOP_LIMIT_DEVICES] = DRMTOP_MAX_DEVICES,
	[DRMTOP_LIMIT_ENTITIES] = DRMTOP_MAX_ENTITIES,
	[DRMTOP_LIMIT_RINGBUF] = DRMTOP_RINGBUF_BYTES,
	[DRMTOP_LIMIT_TIMELINES] = DRMTOP_MAX_TIMELINES,
};

/* Every map a limit sizes, with its key and value sizes (bpf/drmtop_common.bpf.h). */
const struct drmtop_bpf_map_size drmtop_bpf_map_sizes[] = {
	{ "clients", DRMTOP_LIMIT_CLIENTS, 8, sizeof(struct drmtop_client) },
	{ "client_ids", DRMTOP_LIMIT_CLIENTS, 8, 8 },
	{ "engines", DRMTOP_LIMIT_ENGINES, sizeof(struct drmtop_engine_key),
	  sizeof(struct drmtop_engine) },
	{ "rings", DRMTOP_LIMIT_RINGS, 8, sizeof(struct drmtop_ring) },
	{ "jobs", DRMTOP_LIMIT_JOBS, 8, sizeof(struct drmtop_job) },
	{ "handles", DRMTOP_LIMIT_HANDLES, sizeof(struct drmtop_handle_key),
	  sizeof(struct drmtop_handle) },
	{ "objects", DRMTOP_LIMIT_OBJECTS, 8, sizeof(struct drmtop_object) },
	{ "devices", DRMTOP_LIMIT_DEVICES, 8, sizeof(struct drmtop_device) },
	{ "entities", DRMTOP_LIMIT_ENTITIES, 8, sizeof(struct drmtop_entity) },
	{ "closed", DRMTOP_LIMIT_RINGBUF, 0, 0 },
	{ "timelines", DRMTOP_LIMIT_TIMELINES, 8, sizeof(struct drmtop_timeline) },
	{ NULL, 0, 0, 0 },
};

#define HTAB_ELEM_OVERHEAD	48
#define HTAB_BUCKET		16
#define MAX_ENTRIES		(16u << 20)
#define MIN_RINGBUF		4096u
#define MAX_RINGBUF		(1u << 30)

uint32_t drmtop_bpf_limit(const struct drmtop_bpf_limits *l, enum drmtop_bpf_limit which)
{
	return l && l->n[which] ? l->n[which] : defaults[which];
}

static uint64_t round8(uint64_t v)
{
	return (v + 7) & ~7ull;
}

static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

uint64_t drmtop_bpf_limits_bytes(const struct drmtop_bpf_limits *l)
{
	const struct drmtop_bpf_map_size *m;
	uint64_t sum = 0, n;

	for (m = drmtop_bpf_map_sizes; m->map; m++) {
		n = drmtop_bpf_limit(l, m->limit);
		if (m->limit == DRMTOP_LIMIT_RINGBUF) {
			sum += n;
			continue;
		}
		sum += n * (HTAB_ELEM_OVERHEAD + round8(m->key) + round8(m->value));
		sum += pow2_at_least(n) * HTAB_BUCKET;
	}
	/* the client id and parked arrays: not sized by --bpf-map (the hashes beside them are) */
	return sum + DRMTOP_CLIENT_SLOTS * sizeof(struct drmtop_client_slot) +
	       DRMTOP_PARKED_SLOTS * sizeof(struct drmtop_parked);
}

int drmtop_bpf_limit_parse(struct drmtop_bpf_limits *l, const char *arg, char *err,
			   size_t err_len)
{
	const char *eq = strchr(arg, '=');
	unsigned long long v;
	size_t i, len;
	char *end;

	len = eq ? (size_t)(eq - arg) : strlen(arg);
	for (i = 0; i < DRMTOP_LIMIT_COUNT; i++)
		if (strlen(drmtop_bpf_limit_names[i]) == len &&
		    !strncmp(arg, drmtop_bpf_limit_names[i], len))
			break;
	if (i == DRMTOP_LIMIT_COUNT || !eq) {
		snprintf(err, err_len, "invalid --bpf-map '%s': want NAME=N, NAME one of clients, "
			 "engines, rings, jobs, handles, objects, devices, entities, ringbuf, timelines",
			 arg);
		return -1;
	}
	errno = 0;
	v = strtoull(eq + 1, &end, 10);
	if (i == DRMTOP_LIMIT_RINGBUF && end != eq + 1 && (*end == 'K' || *end == 'M')) {
		v <<= *end == 'K' ? 10 : 20;
		end++;
	}
	if (errno || end == eq + 1 || *end || eq[1] == '-') {
		snprintf(err, err_len, "invalid --bpf-map '%s': '%s' is not a number", arg, eq + 1);
		return -1;
	}
	if (i == DRMTOP_LIMIT_RINGBUF) {
		/* the kernel takes a power of two, whole pages */
		if (v < MIN_RINGBUF || v > MAX_RINGBUF || (v & (v - 1))) {
			snprintf(err, err_len, "invalid --bpf-map '%s': the ring buffer is a power "
				 "of two from 4K to 1024M bytes", arg);
			return -1;
		}
	} else if (v < 1 || v > MAX_ENTRIES) {
		snprintf(err, err_len, "invalid --bpf-map '%s': want 1 to %u entries", arg,
			 MAX_ENTRIES);
		return -1;
	}
	l->n[i] = (uint32_t)v;
	return 0;
}
