// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/bpf_tracer.h"
#include "drmtop/dev_nodes.h"
#include "drmtop/model_build.h"
#include "drmtop/sampler.h"
#include "drmtop/util/clock.h"

#define DRMTOP_SAMPLER_NOTES	8

struct drmtop_sampler {
	const struct drmtop_options *opts;
	struct drm_scan *scan;
	struct drmtop_bpf *bpf;		/* NULL when the tracer could not be opened */
	struct drmtop_bpf_snapshot snap;
	bool have_snap;
	struct drmtop_reconciler *rec;
	const char *dev_root;
	uint64_t prev_ns;		/* monotonic time of the previous sample, 0 at first */
	bool bpf_active;
	char bpf_reason[512];	/* the tracer's reason whole (its own buffer's size) */
	/* the tracer's counters of the previous refresh, for the interval's losses */
	bool have_prev;
	__u64 prev_counters[DRMTOP_CNT_MAX];
	struct drmtop_bpf_prog_stat progs[DRMTOP_BPF_MAX_PROGS], prev_progs[DRMTOP_BPF_MAX_PROGS];
	size_t nr_progs, nr_prev_progs;
	char notes[DRMTOP_SAMPLER_NOTES][256];
	size_t nr_notes;
	char error[512];
};

static void note(struct drmtop_sampler *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct drmtop_sampler *s, const char *fmt, ...)
{
	va_list ap;

	if (s->nr_notes == DRMTOP_SAMPLER_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(s->notes[s->nr_notes++], sizeof(s->notes[0]), fmt, ap);
	va_end(ap);
}

/*
 * Opens the tracer unless told not to. Its parts load now where their module is present and
 * later, from drmtop_sampler_next(), when the module appears.
 */
static int open_bpf(struct drmtop_sampler *s)
{
	int err;

	if (s->opts->source == DRMTOP_SRC_FDINFO) {
		snprintf(s->bpf_reason, sizeof(s->bpf_reason), "--source fdinfo");
		return 0;
	}
	err = drmtop_bpf_open(&s->bpf, &s->opts->bpf_limits, s->opts->proc_root,
			      !s->opts->each_closed, s->bpf_reason,
			      sizeof(s->bpf_reason));
	if (err) {
		s->bpf = NULL;
		if (s->opts->source == DRMTOP_SRC_BPF) {
			fprintf(stderr, "drmtop: --source bpf: %s\n", s->bpf_reason);
			return err;
		}
		return 0;
	}
	s->rec = drmtop_reconciler_new();
	if (!s->rec) {
		fprintf(stderr, "drmtop: out of memory\n");
		return -ENOMEM;
	}
	return 0;
}

/*
 * Takes the tracer's snapshot and reconciles it with the fdinfo clients just scanned. A
 * failure here costs the tracer's figures of this refresh, not the refresh: it becomes a note.
 */
static void sample_bpf(struct drmtop_sampler *s, const struct drm_client *clients, size_t n,
		       const struct drmtop_fd_rec *fds, size_t nr_fds)
{
	int err;

	if (drmtop_bpf_poll(s->bpf) < 0)
		note(s, "BPF: %s", drmtop_bpf_reason(s->bpf));
	snprintf(s->bpf_reason, sizeof(s->bpf_reason), "%s", drmtop_bpf_reason(s->bpf));
	s->bpf_active = drmtop_bpf_ready(s->bpf);
	if (s->have_snap)
		drmtop_bpf_snapshot_free(&s->snap);
	s->have_snap = false;
	if (!s->bpf_active)
		return;
	err = drmtop_bpf_snapshot(s->bpf, &s->snap);
	if (err) {
		note(s, "reading the BPF maps failed: %s", strerror(-err));
		return;
	}
	s->have_snap = true;
	s->nr_progs = drmtop_bpf_prog_stats(s->bpf, s->progs, DRMTOP_BPF_MAX_PROGS);
	err = drmtop_reconcile(s->rec, &s->snap, clients, n);
	/*
	 * Only the list the scan read its fds through, taken before it: one listed after a sweep
	 * may show an fd number the scan saw as another file (closed and reused in between), and
	 * a sweep of another pid namespace's /proc names holders by pids the tracer does not use.
	 */
	if (!err && fds && drmtop_reconcile_wants_fds(s->rec))
		err = drmtop_reconcile_fds(s->rec, clients, n, fds, nr_fds);
	if (err) {
		note(s, "matching BPF and fdinfo clients failed: %s", strerror(-err));
		drmtop_bpf_snapshot_free(&s->snap);
		s->have_snap = false;
	}
}

/*
 * The fdinfo scan. With the tracer attached and /proc showing our pid namespace (the one the
 * tracer gives tgids in, and whose tasks alone its iterator walks), the task_file iterator lists
 * every DRM/accel fd and only those are read: the refresh then costs what the GPU's clients
 * hold, not a readlink of every fd on the system. Otherwise, or when the iterator cannot run,
 * the full sweep. *@fds: the iterator's records (the caller frees them), NULL after a sweep.
 */
static int scan(struct drmtop_sampler *s, struct drmtop_fd_rec **fds, size_t *nr_fds)
{
	struct drm_scan_fd *list;
	size_t i;
	int err;

	*fds = NULL;
	*nr_fds = 0;
	if (!s->bpf || !drmtop_bpf_ready(s->bpf) || !drm_scan_root_is_own_pidns(s->scan) ||
	    drmtop_bpf_fds(s->bpf, fds, nr_fds))
		return drm_scan_sample(s->scan);
	list = malloc((*nr_fds ? *nr_fds : 1) * sizeof(*list));
	if (!list) {
		free(*fds);
		*fds = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < *nr_fds; i++) {
		/* tgid 0: a task with no pid in our namespace, skipped by the scan */
		list[i].pid = (pid_t)(*fds)[i].tgid;
		list[i].fd = (int)(*fds)[i].fd;
	}
	err = drm_scan_sample_fds(s->scan, list, *nr_fds);
	free(list);
	return err;
}

/* The tracer's programs and how many of them are attached, for health metrics. */
static void count_hooks(const struct drmtop_bpf *b, unsigned int *attached, unsigned int *all)
{
	const struct drmtop_bpf_hook *hooks;
	size_t i, n = drmtop_bpf_hooks(b, &hooks);

	*all = (unsigned int)n;
	for (i = 0; i < n; i++)
		*attached += hooks[i].attached;
}

int drmtop_sampler_new(struct drmtop_sampler **out, const struct drmtop_options *opts,
		       const char *dev_root)
{
	struct drm_scan_opts so = {
		.proc_root = opts->proc_root,
		.sys_root = opts->sys_root,
		.read_cmdline = true,
	};
	struct drmtop_sampler *s = calloc(1, sizeof(*s));
	int err;

	*out = NULL;
	if (!s) {
		fprintf(stderr, "drmtop: out of memory\n");
		return -ENOMEM;
	}
	s->opts = opts;
	s->dev_root = dev_root;
	s->scan = drm_scan_new(&so);
	if (!s->scan) {
		err = -errno;
		fprintf(stderr, "drmtop: cannot set up the fdinfo scan of %s: %s\n", opts->proc_root,
			strerror(errno));
		free(s);
		return err;
	}
	err = open_bpf(s);
	if (err) {
		drmtop_sampler_free(s);
		return err;
	}
	*out = s;
	return 0;
}

static const char *node_key(void *scan, dev_t rdev)
{
	return drm_scan_node_key(scan, rdev);
}

int drmtop_sampler_next(struct drmtop_sampler *s, struct drmtop_model *m)
{
	struct drmtop_model_input in = { 0 };
	const char *notes[DRMTOP_SAMPLER_NOTES];
	struct drmtop_fd_rec *fds;
	size_t i, nr_fds;
	int err;

	s->nr_notes = 0;
	err = scan(s, &fds, &nr_fds);
	if (err) {
		free(fds);
		snprintf(s->error, sizeof(s->error), "cannot read %s: %s", s->opts->proc_root,
			 strerror(-err));
		return err;
	}
	in.stats = drm_scan_stats(s->scan);
	in.mono_ns = in.stats->sample_ns;
	in.realtime_ns = drmtop_real_ns();
	in.interval_ns = s->prev_ns ? in.mono_ns - s->prev_ns : 0;
	s->prev_ns = in.mono_ns;
	in.clients = drm_scan_clients(s->scan, &in.nr_clients);
	in.gone = drm_scan_gone(s->scan, &in.nr_gone);
	in.device_nodes = drmtop_count_device_nodes(s->dev_root);
	if (s->bpf)
		sample_bpf(s, in.clients, in.nr_clients, fds, nr_fds);
	free(fds);
	in.bpf_active = s->bpf_active && s->have_snap;
	in.bpf_reason = s->bpf_reason;
	if (s->bpf)
		count_hooks(s->bpf, &in.bpf_hooks_attached, &in.bpf_hooks);
	if (in.bpf_active) {
		in.snap = &s->snap;
		in.rec = s->rec;
		in.prev_counters = s->have_prev ? s->prev_counters : NULL;
		in.progs = s->progs;
		in.nr_progs = s->nr_progs;
		in.prev_progs = s->prev_progs;
		in.nr_prev_progs = s->nr_prev_progs;
		in.cgroup_ids = drmtop_bpf_cgroup_ids(s->bpf);
	}
	in.each_closed = s->opts->each_closed;
	in.pids = s->opts->pids;
	in.nr_pids = s->opts->nr_pids;
	in.diverge_pct = s->opts->diverge_pct;
	in.proc_root = s->opts->proc_root;
	in.node_key = node_key;
	in.node_key_ctx = s->scan;
	for (i = 0; i < s->nr_notes; i++)
		notes[i] = s->notes[i];
	in.notes = notes;
	in.nr_notes = s->nr_notes;
	err = drmtop_model_build(m, &in);
	if (err) {
		snprintf(s->error, sizeof(s->error), "out of memory");
		return err;
	}
	if (in.bpf_active) {
		memcpy(s->prev_counters, s->snap.counters, sizeof(s->prev_counters));
		memcpy(s->prev_progs, s->progs, s->nr_progs * sizeof(s->progs[0]));
		s->nr_prev_progs = s->nr_progs;
		s->have_prev = true;
	}
	return 0;
}

const char *drmtop_sampler_error(const struct drmtop_sampler *s)
{
	return s->error[0] ? s->error : "unknown error";
}

const struct drmtop_options *drmtop_sampler_opts(const struct drmtop_sampler *s)
{
	return s->opts;
}

void drmtop_sampler_free(struct drmtop_sampler *s)
{
	if (!s)
		return;
	if (s->have_snap)
		drmtop_bpf_snapshot_free(&s->snap);
	s->have_snap = false;
	drmtop_reconciler_free(s->rec);
	s->rec = NULL;
	drmtop_bpf_close(s->bpf);
	s->bpf = NULL;
	drm_scan_free(s->scan);
	free(s);
}
