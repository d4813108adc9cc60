// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
 * Why the BPF source is not running, in the words a user needs to fix it. The checks are the
 * tracer's prerequisites in the order a user meets them.
 */
static void probe_bpf_prerequisites(struct drmtop_sampler *s)
{
	const char *why;

	if (s->opts->source == DRMTOP_SRC_FDINFO)
		why = "--source fdinfo";
	else if (geteuid() != 0)
		why = "not root (the tracer needs CAP_BPF and CAP_PERFMON)";
	else if (access("/sys/kernel/btf/vmlinux", R_OK))
		why = "kernel has no BTF (/sys/kernel/btf/vmlinux missing)";
	else if (access("/sys/kernel/btf/drm", R_OK))
		why = "drm module not loaded (no /sys/kernel/btf/drm)";
	else
		why = "BPF tracer not loaded";
	snprintf(s->bpf_reason, sizeof(s->bpf_reason), "%s", why);
	s->bpf_active = false;
}

int drmtop_sampler_init(struct drmtop_sampler *s, const struct drmtop_options *opts,
			const char *dev_root)
{
	struct drm_scan_opts so = { .proc_root = opts->proc_root, .read_cmdline = true };
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
	probe_bpf_prerequisites(s);
	return 0;
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
	f->bpf_active = s->bpf_active;
	f->bpf_reason = s->bpf_reason;
	f->opts = s->opts;
	return 0;
}

void drmtop_sampler_fini(struct drmtop_sampler *s)
{
	drm_scan_free(s->scan);
	s->scan = NULL;
}
