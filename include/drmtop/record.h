/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drmtop record: watch for a fixed time, then summarise every client seen, those that closed
 * during the session included.
 */
#ifndef DRMTOP_RECORD_H
#define DRMTOP_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "drmtop/model.h"
#include "drmtop/util/strmap.h"

struct record_engine {
	char *name;
	/*
	 * Effective busy counter at the session's start: the first reading of a client open when
	 * the session began; 0 for an engine that first appears later (amdgpu prints an engine
	 * only once the client used it) or a client that opened during the session.
	 */
	uint64_t first_ns;
	uint64_t last_ns;	/* effective busy counter when last seen */
};

/* What the tracer accounted on the rings of one name (rings of one name add up). */
struct record_ring {
	char *name;
	uint64_t busy_first_ns;	/* at first sight (0 for a client that opened in the session) */
	uint64_t busy_last_ns;	/* latest live value, or the sum of the close records */
	uint64_t jobs_first;
	uint64_t jobs_last;
	uint64_t busy_closed_ns;	/* sum over close records */
	uint64_t jobs_closed;
};

struct record_client {
	char *key;		/* fdinfo key, or "bpf:<uid>" for a client only the tracer saw */
	size_t slot;		/* its index in record_session.clients */
	char *dev_key;
	char *driver;
	int pid;
	char comm[17];
	/* its process's as last seen, else its opener's from the tracer's id (NULL: unknown) */
	char *cgroup, *workload;
	uint64_t client_id;
	bool has_client_id;
	bool at_start;		/* already open when the session began */
	bool closed;		/* gone before the session ended */
	uint64_t first_seen_ns;	/* offsets from the session start */
	uint64_t last_seen_ns;
	/*
	 * The monotonic window fdinfo's busy figures of the client cover: from its first reading
	 * (a client open at the start; what it did before is left out) or from the session's start
	 * (one that opened during it), to its last reading. Percentages are over this window, so a
	 * slow scan cannot stretch or shrink the time they are divided by.
	 */
	uint64_t window_start_ns, window_end_ns;
	struct record_engine *engines;
	size_t nr_engines, engines_cap;
	uint64_t peak_total_bytes;
	uint64_t last_total_bytes;
	bool has_fdinfo;	/* fdinfo showed this client at least once */

	/* The tracer's side, with has_bpf: identity and memory as last seen (at close if closed) */
	bool has_bpf;
	uint64_t bpf_uid;
	bool bpf_kernel;
	bool bpf_late;			/* opened before the tracer attached */
	uint32_t bpf_tgid;
	char bpf_comm[17];
	bool bpf_has_client_id;
	uint64_t bpf_client_id;
	uint64_t bpf_mem_total;
	uint64_t bpf_mem_imported;
	bool bpf_at_start;
	bool bpf_closed;
	bool bpf_orphan;		/* its close record was lost: identity and memory unknown */
	struct record_ring *rings;	/* by engine name, as the model groups rings */
	size_t nr_rings, rings_cap;
	uint64_t bpf_peak_bytes;
};

struct record_session {
	uint64_t start_ns;	/* monotonic, of the first sample */
	uint64_t end_ns;
	unsigned long samples;
	/* What the tracer missed during the session (its figures are lower bounds when not 0). */
	bool bpf_seen;
	uint64_t missed;
	uint64_t skipped_runs;
	/* Each record allocated on its own: the maps hold them while the array grows. */
	struct record_client **clients;
	size_t nr_clients, cap;
	struct strmap by_key;	/* record_client.key -> record */
	struct strmap by_uid;	/* tracer uid (decimal) -> record; checked against bpf_uid */
};

/* Folds one refresh into the session. 0 or -ENOMEM. */
int record_session_add(struct record_session *rs, const struct drmtop_model *m, uint64_t now_ns);
/*
 * Busy time of an engine inside the session: a client open at the start counts from its first
 * reading; one that opened during the session counts all it did (its counters began at 0).
 */
uint64_t record_engine_busy(const struct record_client *c, const struct record_engine *e);
/* The length of the window the client's fdinfo busy time covers; @span when unknown. */
uint64_t record_client_window(const struct record_client *c, uint64_t span);
/* The tracer's busy time and jobs of a ring inside the session, by the same rule. */
uint64_t record_ring_busy(const struct record_client *c, const struct record_ring *r);
uint64_t record_ring_jobs(const struct record_client *c, const struct record_ring *r);
void record_session_free(struct record_session *rs);

/* The session's views (src/views/record_*.c); @last is the final refresh. 0 or -1. */
int record_session_print_json(const struct record_session *rs, const struct drmtop_model *last,
			      FILE *out);
int record_session_print_text(const struct record_session *rs, const struct drmtop_model *last,
			      FILE *out);

#endif /* DRMTOP_RECORD_H */
