// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "drmtop/bpf_tracer.h"
#include "drmtop/sampler.h"

uint64_t drmtop_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t drmtop_real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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
	err = drmtop_bpf_open(&s->bpf, s->bpf_reason, sizeof(s->bpf_reason));
	if (err) {
		s->bpf = NULL;
		if (s->opts->source == DRMTOP_SRC_BPF) {
			fprintf(stderr, "drmtop: --source bpf: %s\n", s->bpf_reason);
			return err;
		}
		return 0;
	}
	s->rec = drmtop_reconciler_new(s->opts->diverge_pct);
	if (!s->rec) {
		fprintf(stderr, "drmtop: out of memory\n");
		return -ENOMEM;
	}
	return 0;
}

/* Takes the tracer's snapshot and reconciles it with the fdinfo clients just scanned. */
static int sample_bpf(struct drmtop_sampler *s, struct drmtop_frame *f)
{
	struct drmtop_fd_rec *fds = NULL;
	size_t nr_fds = 0;
	int err;

	if (drmtop_bpf_poll(s->bpf) < 0 && s->opts->output != DRMTOP_OUT_TUI)
		fprintf(stderr, "drmtop: BPF: %s\n", drmtop_bpf_reason(s->bpf));
	snprintf(s->bpf_reason, sizeof(s->bpf_reason), "%s", drmtop_bpf_reason(s->bpf));
	s->bpf_active = drmtop_bpf_ready(s->bpf);
	if (!s->bpf_active)
		return 0;
	if (s->have_snap)
		drmtop_bpf_snapshot_free(&s->snap);
	s->have_snap = false;
	err = drmtop_bpf_snapshot(s->bpf, &s->snap);
	if (err) {
		fprintf(stderr, "drmtop: reading the BPF maps failed: %s\n", strerror(-err));
		return err;
	}
	s->have_snap = true;
	err = drmtop_reconcile(s->rec, &s->snap, f->clients, f->nr_clients);
	if (!err && drmtop_reconcile_wants_fds(s->rec) &&
	    !drmtop_bpf_fds(s->bpf, &fds, &nr_fds)) {
		err = drmtop_reconcile_fds(s->rec, f->clients, f->nr_clients, fds, nr_fds);
		free(fds);
	}
	if (err)
		return err;
	f->bpf = &s->snap;
	f->rec = s->rec;
	return 0;
}

int drmtop_sampler_init(struct drmtop_sampler *s, const struct drmtop_options *opts,
			const char *dev_root)
{
	struct drm_scan_opts so = {
		.proc_root = opts->proc_root,
		.sys_root = opts->sys_root,
		.read_cmdline = true,
	};
	int err;

	memset(s, 0, sizeof(*s));
	s->opts = opts;
	s->dev_root = dev_root;
	s->scan = drm_scan_new(&so);
	if (!s->scan) {
		err = -errno;
		fprintf(stderr, "drmtop: cannot set up the fdinfo scan of %s: %s\n", opts->proc_root,
			strerror(errno));
		return err;
	}
	err = open_bpf(s);
	if (err)
		drmtop_sampler_fini(s);
	return err;
}

int drmtop_sampler_next(struct drmtop_sampler *s, struct drmtop_frame *f)
{
	uint64_t now;
	int err;

	err = drm_scan_sample(s->scan);
	if (err) {
		fprintf(stderr, "drmtop: cannot read %s: %s\n", s->opts->proc_root, strerror(-err));
		return err;
	}
	now = drm_scan_stats(s->scan)->sample_ns;
	memset(f, 0, sizeof(*f));
	f->iteration = ++s->iteration;
	f->realtime_ns = drmtop_real_ns();
	f->interval_ns = s->prev_ns ? now - s->prev_ns : 0;
	s->prev_ns = now;
	f->clients = drm_scan_clients(s->scan, &f->nr_clients);
	f->gone = drm_scan_gone(s->scan, &f->nr_gone);
	f->devices = drm_scan_devices(s->scan, &f->nr_devices);
	f->stats = drm_scan_stats(s->scan);
	f->device_nodes = drmtop_count_device_nodes(s->dev_root);
	if (f->nr_clients)
		f->status = DRMTOP_STATUS_OK;
	else if (f->device_nodes)
		f->status = DRMTOP_STATUS_NO_CLIENT;
	else
		f->status = DRMTOP_STATUS_NO_DEVICE;
	f->opts = s->opts;
	if (s->bpf) {
		err = sample_bpf(s, f);
		if (err)
			return err;
	}
	f->bpf_active = s->bpf_active;
	f->bpf_reason = s->bpf_reason;
	return 0;
}

void drmtop_sampler_fini(struct drmtop_sampler *s)
{
	if (s->have_snap)
		drmtop_bpf_snapshot_free(&s->snap);
	s->have_snap = false;
	drmtop_reconciler_free(s->rec);
	s->rec = NULL;
	drmtop_bpf_close(s->bpf);
	s->bpf = NULL;
	drm_scan_free(s->scan);
	s->scan = NULL;
}
