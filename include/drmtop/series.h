/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The series accumulator: turns successive models (model.h) into what a metrics scraper needs,
 * series keyed by label set whose counters never go backwards, whatever the clients do.
 *
 * A model is a snapshot: a client that closes is in it once (model->closed) or just missing,
 * and its counters vanish with it. A scraper that sums per-client counters would then see the
 * totals drop. Here every client (an fdinfo key and/or a tracer uid) is tracked by a member
 * record holding the raw figures it last reported; each update adds the growth of each figure
 * (the first time: the whole figure, the work done since the client opened) to the series its
 * member belongs to and to its device's totals. So:
 *  - a series only ever grows, also when a source's figure goes backwards (growth counts again
 *    only past the highest figure seen) or when several clients share one label set;
 *  - a client's labels are fixed when it is first seen (a primary holder or comm that changes
 *    later does not move its figures to a new series);
 *  - a closed client's final figures (the tracer's close record, or the last fdinfo figures
 *    of a client that vanished) stay exported until a scrape has seen them
 *    (drmtop_series_scraped()); the next update then hides the series. A hidden series keeps its
 *    values, so a label set that comes back continues where it stopped; the oldest hidden
 *    ones are forgotten past a bound (4 x max_clients + 64).
 *  - by default (no pid or client_id label asked for) every client is folded into one series
 *    per (driver, device, comm, workload): the workload is its cgroup's (model.h's
 *    cgroup.workload, with the container id and pod UID it names), so the number of series
 *    follows the commands and containers, not the clients, whatever their churn, and a closed
 *    client's work stays in its command's and container's series. With
 *    per-client labels, past max_clients live per-client series, new clients are folded the
 *    same way (pid and client_id empty). A client never moves between its own and a folded
 *    series, so neither goes backwards.
 *  - each engine has one figure drmtop stands behind (DRMTOP_SERIES_BEST): per client and
 *    engine, the driver's fdinfo time when it prints one at the client's first sight, else the
 *    tracer's; the choice stays for the client's life, so the sum never jumps between sources,
 *    except that the tracer's close record adds what ran after fdinfo's last read. Each
 *    source's own figures are kept beside it, for cross-checking.
 * Device totals are the sums of all these growths: monotonic too, closed clients included.
 *
 * Not thread-safe: the caller serialises updates and reads (drmtop serve holds a mutex).
 */
#ifndef DRMTOP_SERIES_H
#define DRMTOP_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "drmtop/model.h"
#include "drmtop/util/strmap.h"

enum drmtop_series_source {
	DRMTOP_SERIES_FDINFO,
	DRMTOP_SERIES_BPF,
	DRMTOP_SERIES_BEST,		/* the figure drmtop stands behind: one per client+engine */
};

const char *drmtop_series_source_name(enum drmtop_series_source src);

/*
 * The identity labels of a client series, in the exposition's order. The one table of them is
 * in series.c (name, value); driver, device, comm and the workload's are always on, pid and
 * client_id on request.
 */
enum drmtop_series_label {
	DRMTOP_LABEL_DRIVER,
	DRMTOP_LABEL_DEVICE,
	DRMTOP_LABEL_CLIENT_ID,
	DRMTOP_LABEL_PID,
	DRMTOP_LABEL_COMM,
	DRMTOP_LABEL_WORKLOAD,		/* cgroup.workload, "" when the cgroup is not known */
	DRMTOP_LABEL_CONTAINER_ID,	/* "<runtime>://<id>" as kube-state-metrics spells it */
	DRMTOP_LABEL_POD_UID,
	DRMTOP_LABEL_MAX,
};

#define DRMTOP_LABEL_BIT(l)		(1u << (l))
#define DRMTOP_SERIES_LABELS_DEFAULT                                                        \
	(DRMTOP_LABEL_BIT(DRMTOP_LABEL_DRIVER) | DRMTOP_LABEL_BIT(DRMTOP_LABEL_DEVICE) |      \
	 DRMTOP_LABEL_BIT(DRMTOP_LABEL_COMM) | DRMTOP_LABEL_BIT(DRMTOP_LABEL_WORKLOAD) |      \
	 DRMTOP_LABEL_BIT(DRMTOP_LABEL_CONTAINER_ID) | DRMTOP_LABEL_BIT(DRMTOP_LABEL_POD_UID))
#define DRMTOP_SERIES_LABELS_PER_CLIENT                                                     \
	(DRMTOP_SERIES_LABELS_DEFAULT | DRMTOP_LABEL_BIT(DRMTOP_LABEL_CLIENT_ID) |            \
	 DRMTOP_LABEL_BIT(DRMTOP_LABEL_PID))
/* Labels that tell one client from another: with none of them, every client is folded. */
#define DRMTOP_SERIES_LABELS_PER_CLIENT_ONLY                                                \
	(DRMTOP_LABEL_BIT(DRMTOP_LABEL_CLIENT_ID) | DRMTOP_LABEL_BIT(DRMTOP_LABEL_PID))

/* What a client series is told apart by (also a new member's, before folding). */
struct drmtop_series_ident {
	const char *driver;		/* "" when nobody said */
	const char *device;
	const char *comm;
	const char *workload;		/* "" when not known */
	const char *container_id;	/* "" outside containers */
	const char *pod_uid;		/* "" outside pods */
	bool has_client_id;		/* false for folded series and drivers that print none */
	uint64_t client_id;
	bool has_pid;			/* false for folded series and kernel clients */
	pid_t pid;
};

const char *drmtop_series_label_name(enum drmtop_series_label l);
/* The label's value for @id ("" when it has none), numbers formatted in @buf. */
const char *drmtop_series_label_value(const struct drmtop_series_ident *id,
				      enum drmtop_series_label l, char buf[24]);
/* "pid,client_id" (labels beyond the default ones) into a mask; -1 on an unknown name. */
int drmtop_series_labels_parse(const char *list, unsigned int *mask);
/*
 * A cgroup's container as kube-state-metrics' kube_pod_container_info{container_id} spells it,
 * so the two join: "containerd://<id>", "cri-o://<id>", "docker://<id>" (and "podman://<id>");
 * the bare id when the runtime is unknown (a pod's container under the cgroupfs driver); ""
 * outside containers. Written to @buf.
 */
#define DRMTOP_SERIES_CONTAINER_ID_MAX	96	/* "containerd://" and 64 hex digits fit */
const char *drmtop_series_container_id(const struct drmtop_model_cgroup *g, char *buf,
				       size_t len);

/* Monotonic counters of one engine as one source sees it. */
struct drmtop_series_engine {
	char *name;
	enum drmtop_series_source source;
	uint64_t busy_ns;
	bool has_jobs;			/* the tracer counts jobs; fdinfo does not */
	uint64_t jobs;
};

#define DRMTOP_SERIES_MEM_IMPORTED	(1u << 8)	/* beside model.h's DRMTOP_MEM_* bits */

/* Gauges of one memory region as of the last update (summed over a folded series' clients). */
struct drmtop_series_mem {
	char *region;
	enum drmtop_series_source source;
	unsigned int present;		/* DRMTOP_MEM_* | DRMTOP_SERIES_MEM_IMPORTED; 0: not now */
	uint64_t total, shared, resident, purgeable, active, imported;
};

struct drmtop_series_device;

/* One exported label set of client series. Strings (id's, owned) are valid UTF-8. */
struct drmtop_series_client {
	struct drmtop_series_ident id;
	bool folded;			/* all clients of this comm and workload (past max_clients,
					 * or all) */
	bool visible;			/* exported now */
	size_t live;			/* open clients in it, as of the last update */
	struct drmtop_series_engine *engines;
	size_t nr_engines, cap_engines;
	struct drmtop_series_mem *mems;
	size_t nr_mems, cap_mems;

	/* private */
	struct drmtop_series_device *dev;
	char *label_key;
	size_t nr_members;
	uint64_t gone_gen;		/* update that left it without open client, else 0 */
	bool scraped;			/* a scrape saw it since then */
	uint64_t hidden_gen;
};

struct drmtop_series_device {
	char *driver;
	char *device;
	struct drmtop_series_engine *engines;	/* sums over every client ever seen */
	size_t nr_engines, cap_engines;
	/* fdinfo: the driver's regions over the shown clients; best: the clients' best figures */
	struct drmtop_series_mem *mems;
	size_t nr_mems, cap_mems;
	bool present;			/* in the last update (clients or tracer figures) */
	size_t clients;			/* open clients in the last update */
	size_t diverged;		/* of the clients in the update, those whose fdinfo and
					 * tracer figures disagree (model.h's client diverged) */
	bool has_gem;			/* the tracer's per-device GEM totals */
	uint64_t gem_objects, gem_bytes;
};

/* One of the tracer's own counters (model->counters), monotonic. */
struct drmtop_series_counter {
	char *name;
	enum drmtop_counter_kind kind;
	uint64_t value;
	uint64_t raw;			/* private: the tracer's last figure */
};

struct drmtop_series_tracker;

struct drmtop_series {
	size_t max_clients;
	unsigned int labels;		/* DRMTOP_LABEL_BIT()s of the client labels exported */

	struct drmtop_series_client **clients;	/* visible and hidden, in creation order */
	size_t nr_clients, cap_clients;
	struct drmtop_series_device **devices;
	size_t nr_devices, cap_devices;
	struct drmtop_series_counter *counters;
	size_t nr_counters, cap_counters;
	struct drmtop_series_counter *progs;	/* runs each tracer program missed (recursion) */
	size_t nr_progs, cap_progs;
	uint64_t missed;		/* events the tracer missed: losses and skipped runs */
	uint64_t missed_raw;		/* private */

	/* Health, as of the last update. */
	uint64_t samples;		/* updates */
	uint64_t refresh_errors;	/* samples that failed (drmtop_series_sample_failed) */
	uint64_t last_realtime_ns;	/* CLOCK_REALTIME of the last model, 0 before one */
	uint64_t last_sample_ns;	/* how long the last sample took, as the caller said */
	enum drmtop_status status;
	bool bpf_active;
	unsigned int bpf_hooks_attached, bpf_hooks;
	bool has_scan;
	struct drmtop_model_scan scan;
	size_t live_clients;		/* open clients tracked */
	size_t folded_live;		/* of them, in folded series */
	uint64_t folded_total;		/* clients ever folded */
	uint64_t closed_total;		/* clients seen to close */
	uint64_t forgotten_total;	/* hidden series dropped past the bound */

	/* private */
	uint64_t gen;
	size_t individual_live;		/* own (not folded) series with an open client */
	struct drmtop_series_tracker **trackers;
	size_t nr_trackers, cap_trackers;
	struct strmap by_member;	/* "f<fdinfo key>", "u<tracer uid>" -> tracker */
	struct strmap by_labels;	/* label key -> client series */
	struct strmap by_device;	/* "<driver>\x1f<device>", "r<rdev>", "m<driver>:<minor>" */
};

/* @labels: DRMTOP_SERIES_LABELS_DEFAULT, or with per-client ones (DRMTOP_LABEL_BIT()). */
void drmtop_series_init(struct drmtop_series *s, size_t max_clients, unsigned int labels);
/*
 * Folds one model into the series; @sample_ns is how long taking it took (health). 0, or
 * -ENOMEM: the update is then partial (some growth may be counted later or lost) but the
 * series stay consistent and monotonic.
 */
int drmtop_series_update(struct drmtop_series *s, const struct drmtop_model *m,
			 uint64_t sample_ns);
/* A sample could not be taken: counted in refresh_errors. */
void drmtop_series_sample_failed(struct drmtop_series *s);
/* A scrape has read the series: closed clients' final figures have been seen. */
void drmtop_series_scraped(struct drmtop_series *s);
void drmtop_series_fini(struct drmtop_series *s);

#endif /* DRMTOP_SERIES_H */
