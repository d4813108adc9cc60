// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the kernel counts of each of the tracer's programs (struct bpf_prog_info): how often it
 * ran, for how long (with BPF stats enabled), and how often it was skipped. A skipped run is an
 * event the tracer never saw: on 7.x (PREEMPT_LAZY) a program that is preempted makes every
 * other task on that CPU skip it meanwhile, counted only in recursion_misses (kernel 5.12+).
 * Checked on Debian 6.1, 6.12 and 7.2.13 (which skips runs; the others were never seen to).
 */
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_internal.h"
#include "drmtop/bpf_reader.h"
#include "drmtop_drm.skel.h"
#include "drmtop_sched.skel.h"

/*
 * What a skipped run of each program costs (drmtop_sched.bpf.c, drmtop_drm.bpf.c): a queue event
 * is made up for by the job made from its run event (job_from_run), a run event by the start
 * bracketed by the queue time and the scheduled fence (start_from_fence), either by the job made
 * from its done event when both were lost (job_from_done), the exit of drm_file_alloc (a
 * client's open) by the client learnt at its first handle or ioctl (client_late; a client that
 * makes neither is not listed, its jobs counted job_client_unknown), the exit of drm_gem_release
 * (a client's close) by drmtop_file_free later in the same drm_file_free (close_at_free), as far
 * as those counters grow, and a done event by the job accounted when it is freed
 * (done_at_cleanup); a skipped scheduler init or fini leaves a rings entry until a scheduler is
 * made at that address again, no figure wrong; where jobs are attributed through their fence's
 * drm_client_id, the DRM ioctl entry and exit feed nothing the figures use (they tell entity and
 * job owners on kernels without it; a client first seen there is also learnt at its next
 * event). The job cleanup hook only has work for jobs whose done event never came (skipped, a
 * GPU reset, an entity killed with jobs queued) and jobs made from their done event: for every
 * other job it finds nothing to do, and a done event the kernel skipped is counted where it was
 * skipped, so a skipped cleanup run costs the figures nothing (7.2 under TCG skips it in most
 * refresh intervals); a job it leaves in the jobs map is aged out by the reader and counted
 * there (jobs_aged_out). drmtop_file_free likewise finds nothing to do after a close whose first
 * hook ran, and a skipped first hook is counted where it was skipped. Every other program's
 * skipped run is an event lost; one of the GEM hooks may leave a client's memory figure wrong
 * until it closes. A skipped end of a GEM object at drm_gem_object_release is made up at
 * dma_resv_fini of its reservation object (object_end_at_resv), and that hook finds nothing to
 * do after a release that ran (i915's objects, which only it sees, then go stale: counted
 * objects_stale when settled).
 */
static void skip_cost(const struct drmtop_bpf *b, struct drmtop_bpf_prog_stat *ps)
{
	/* GEM object and handle hooks (drmtop_drm.bpf.c): memory is a running sum of them */
	static const char *const memory[] = {
		"drmtop_gem_release_enter", "drmtop_gem_release_exit", "drmtop_gem_init",
		"drmtop_gem_object_release", "drmtop_gem_resv_fini", "drmtop_handle_create",
		"drmtop_handle_release",
		"drmtop_import_enter", "drmtop_import_exit", "drmtop_export",
	};
	bool by_id = b->sched && b->sched->bss && b->sched->bss->drmtop_by_client_id;
	size_t i;

	for (i = 0; i < sizeof(memory) / sizeof(memory[0]); i++)
		ps->memory |= !strcmp(ps->name, memory[i]);

	ps->skip_cost = DRMTOP_SKIP_LOST;
	ps->made_up_also = DRMTOP_CNT_MAX;
	if (!strncmp(ps->name, "drmtop_queue_", 13)) {
		ps->skip_cost = DRMTOP_SKIP_MADE_UP;
		ps->made_up_by = DRMTOP_CNT_JOB_FROM_RUN;
		ps->made_up_also = DRMTOP_CNT_JOB_FROM_DONE;
	} else if (!strncmp(ps->name, "drmtop_run_", 11)) {
		ps->skip_cost = DRMTOP_SKIP_MADE_UP;
		ps->made_up_by = DRMTOP_CNT_START_FROM_FENCE;
		ps->made_up_also = DRMTOP_CNT_JOB_FROM_DONE;
	} else if (!strncmp(ps->name, "drmtop_done_", 12)) {
		ps->skip_cost = DRMTOP_SKIP_MADE_UP;
		ps->made_up_by = DRMTOP_CNT_DONE_AT_CLEANUP;
	} else if (!strcmp(ps->name, "drmtop_sched_init") ||
		   !strcmp(ps->name, "drmtop_sched_fini")) {
		ps->skip_cost = DRMTOP_SKIP_HARMLESS;
	} else if (by_id && (!strcmp(ps->name, "drmtop_ioctl_enter") ||
			     !strcmp(ps->name, "drmtop_ioctl_exit"))) {
		ps->skip_cost = DRMTOP_SKIP_HARMLESS;
	} else if (!strcmp(ps->name, "drmtop_gem_release_exit")) {
		ps->skip_cost = DRMTOP_SKIP_MADE_UP;
		ps->made_up_by = DRMTOP_CNT_CLOSE_AT_FREE;
	} else if (!strcmp(ps->name, "drmtop_gem_object_release")) {
		ps->skip_cost = DRMTOP_SKIP_MADE_UP;
		ps->made_up_by = DRMTOP_CNT_OBJECT_END_AT_RESV;
	} else if (!strcmp(ps->name, "drmtop_file_alloc")) {
		ps->skip_cost = DRMTOP_SKIP_MADE_UP;
		ps->made_up_by = DRMTOP_CNT_CLIENT_LATE;
	} else if (!strcmp(ps->name, "drmtop_job_cleanup") ||
		   !strcmp(ps->name, "drmtop_file_free") || !strcmp(ps->name, "drmtop_gem_resv_fini")) {
		ps->skip_cost = DRMTOP_SKIP_HARMLESS;
	}
}

static size_t add_object(const struct drmtop_bpf *b, struct bpf_object *obj,
			 struct drmtop_bpf_prog_stat *out, size_t n, size_t max)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);

		if (fd < 0 || n == max)
			continue;	/* not loaded: this kernel lacks its hook */
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		snprintf(out[n].name, sizeof(out[n].name), "%s", bpf_program__name(p));
		out[n].run_cnt = info.run_cnt;
		out[n].run_time_ns = info.run_time_ns;
		out[n].recursion_misses = info.recursion_misses;
		out[n].verified_insns = info.verified_insns;
		skip_cost(b, &out[n]);
		n++;
	}
	return n;
}

size_t drmtop_bpf_prog_stats(const struct drmtop_bpf *b, struct drmtop_bpf_prog_stat *out,
			     size_t max)
{
	size_t n = 0;

	if (b->drm)
		n = add_object(b, b->drm->obj, out, n, max);
	if (b->sched)
		n = add_object(b, b->sched->obj, out, n, max);
	return n;
}
