// SPDX-License-Identifier: GPL-2.0-only
/*
 * The driver table (see include/drmtop/drivers.h). Every fact below was read in Debian's
 * linux-source 6.1.192, 6.12.117 and 7.2.13 ("6.1", "6.12", "7.2" below): the name each driver
 * passes to drm_sched_init(), the engine names its show_fdinfo prints, and the client id its
 * drm_sched_job_init() calls pass (that argument exists in 6.12.117 and 7.2, not in 6.1).
 * Paths are relative to the kernel tree.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <string.h>

#include "drmtop/drivers.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define DEF (-1)
#define EXE DRMTOP_TIMING_EXECUTION
#define OCC DRMTOP_TIMING_OCCUPANCY
#define RULE(p, e, t) { .pattern = (p), .engine = (e), .timing = (t) }
/* A ring that feeds no fdinfo engine, shown as its users know it. */
#define SHOWN_AS(p, l, t) { .pattern = (p), .timing = (t), .label = (l) }

/*
 * amdgpu: drm_sched_init(..., .name = ring->name) for every ring without no_scheduler
 * (amdgpu_device.c, amdgpu_device_init_schedulers, 6.1/6.12/7.2). A ring joins
 * gpu_sched[ring->funcs->type] (amdgpu_ring.c amdgpu_ring_init), so only entities of that
 * hw_ip run on it, and fdinfo sums per hw_ip the finished - scheduled fence times of its jobs
 * (amdgpu_ctx.c amdgpu_ctx_fence_time, amdgpu_fdinfo.c amdgpu_ip_name[]: gfx, compute, dma,
 * dec (UVD and VCN_DEC), enc (VCE and VCN_ENC), enc_1 (UVD_ENC), jpeg, vpe (6.12+)).
 * "scheduled" is signalled when the job is run: run -> done is exactly what fdinfo counts.
 * Names from the sprintf(ring->name, ...) of each IP block; kiq_*, mes_*, mes_kiq_*, umsch,
 * cper, the MES self-test rings (and gfx_v11 rings with disable_kq, 7.2) set no_scheduler and
 * never reach drm_sched.
 */
static const struct drmtop_ring_rule amdgpu_rings[] = {
	/* gfx_v6..v9: "gfx"; gfx_v9 second ring "gfx_%d"; gfx_v10..v12 "gfx_%d.%d.%d" (me.pipe.
	 * queue); gfx9 software rings under MCBP "gfx_low", "gfx_high" (amdgpu_ring_mux.c, 6.12+) */
	RULE("gfx*", "gfx", DEF),
	/* every gfx_v*: "comp_%d.%d.%d"; gfx_v9_4_3 (6.12+) and gfx_v12_1 (7.2): "comp_%d.%d.%d.%d" */
	RULE("comp_*", "compute", DEF),
	/* sdma_v*, cik_sdma, si_dma: "sdma%d"; sdma_v4_4_2 (6.12+) and sdma_v7_1 (7.2) "sdma%d.%d" */
	RULE("sdma*", "dma", DEF),
	/* sdma_v4_0, sdma_v4_4_2: "page%d", "page%d.%d" (AMDGPU_RING_TYPE_SDMA) */
	RULE("page*", "dma", DEF),
	/* uvd_v6/v7: "uvd_enc%d", "uvd_enc_%d.%d": type UVD_ENC -> enc_1; before "uvd*" */
	RULE("uvd_enc*", "enc_1", DEF),
	/* uvd_v3_1..v6_0: "uvd"; uvd_v7_0 (two instances): "uvd_%d" */
	RULE("uvd*", "dec", DEF),
	/* vce_v2..v4: "vce%d" */
	RULE("vce*", "enc", DEF),
	/* vcn_v1..v3: "vcn_dec", "vcn_dec_%d" */
	RULE("vcn_dec*", "dec", DEF),
	/* vcn_v1..v3: "vcn_enc%d", "vcn_enc_%d.%d" */
	RULE("vcn_enc*", "enc", DEF),
	/* vcn_v4_0+ and vcn_v5_0_*: "vcn_unified_%d", type VCN_ENC: decode goes there through the ENC hw_ip */
	RULE("vcn_unified_*", "enc", DEF),
	/* jpeg_v*: "jpeg_dec", "jpeg_dec_%d"; jpeg_v4_0_3+ (6.12+): "jpeg_dec_%d.%d" */
	RULE("jpeg_dec*", "jpeg", DEF),
	/* amdgpu_vpe.c (6.12+): snprintf(ring->name, 4, "vpe") */
	RULE("vpe", "vpe", DEF),
};

/*
 * amdgpu kernel jobs pass AMDGPU_KERNEL_JOB_ID_* to drm_sched_job_init (amdgpu_job.h):
 * 2^64-1 (VM_UPDATE) down to 2^64-14 in 6.12.117, 2^64-18 (RUN_SHADER) in 7.2. New ones keep
 * counting down; drm_file.client_id is a counter from 1 and never gets near.
 */
static const struct drmtop_id_range amdgpu_kernel_ids[] = {
	{ UINT64_MAX - 255, UINT64_MAX },
};

/*
 * xe (6.12+): GuC submission names the scheduler of each exec queue after the queue,
 * xe_exec_queue_assign_name(q, q->guc->id) (xe_guc_submit.c): "rcs%d", "vcs%d", "vecs%d",
 * "bcs%d", "ccs%d", "gsccs%d" where the number is the GuC id, not the engine instance
 * (xe_exec_queue.c). Execlist submission uses hwe->name ("rcs0", "ccs1", xe_hw_engine.c;
 * xe_execlist.c). 7.2 adds a dependency scheduler per queue for TLB invalidation jobs with the
 * queue's name (xe_dep_scheduler.c, xe_exec_queue.c): its jobs are not engine time and cannot
 * be told apart by name. fdinfo prints drm-cycles-/drm-total-cycles- per class from
 * xe_hw_engine_class_to_str(): rcs, vcs, vecs, bcs, ccs, "other" (xe_drm_client.c), only for
 * classes with user-visible engines. Kernel queues (migration on bcs, GSC, workarounds) have
 * no xef: client id 0 (xe_sched_job.c, xe_tlb_inval_job.c: q->xef ? ... : 0).
 */
static const struct drmtop_ring_rule xe_rings[] = {
	RULE("rcs*", "rcs", DEF),
	RULE("bcs*", "bcs", DEF),
	RULE("vcs*", "vcs", DEF),
	RULE("vecs*", "vecs", DEF),
	RULE("ccs*", "ccs", DEF),
	RULE("gsccs*", "other", DEF),
};

static const struct drmtop_id_range xe_kernel_ids[] = {
	{ 0, 0 },
};

/*
 * v3d: "v3d_bin", "v3d_render", "v3d_tfu", "v3d_csd", "v3d_cache_clean" (v3d_sched.c
 * v3d_sched_init, v3d_queue_sched_init in 6.12+; 6.1/6.12/7.2), "v3d_cpu" (6.12+). fdinfo (not in
 * 6.1) prints drm-engine-<v3d_queue_to_string()>: bin, render, tfu, csd, cache_clean, cpu
 * (v3d_drv.h, v3d_drv.c v3d_show_fdinfo), counted from run_job (v3d_job_start_stats) to the done
 * interrupt on rings of one job at a time (credit_limit 1).
 */
static const struct drmtop_ring_rule v3d_rings[] = {
	RULE("v3d_bin", "bin", DEF),
	RULE("v3d_render", "render", DEF),
	RULE("v3d_tfu", "tfu", DEF),
	RULE("v3d_csd", "csd", DEF),
	RULE("v3d_cache_clean", "cache_clean", DEF),
	RULE("v3d_cpu", "cpu", DEF),
};

/*
 * msm: one scheduler per ringbuffer, named after the ring's BO, "ring%d" (msm_ringbuffer.c
 * msm_ringbuffer_new, 6.1/6.12/7.2); 7.2 adds "msm-vm-bind" per VM for VM_BIND jobs (msm_gem_vma.c
 * msm_gem_vm_create), which are page table updates, not GPU time. fdinfo: drm-engine-gpu,
 * drm-cycles-gpu, drm-maxfreq-gpu for every ring together (msm_gpu.c msm_gpu_show_fdinfo). Ring 0
 * has the highest priority (msm_gpu.h msm_gpu_convert_priority); with preemption (a5xx 6.1+,
 * a6xx/a7xx 7.2, nr_rings > 1) a higher ring preempts rings 1-3 mid-job, so their run -> done
 * includes time another ring ran. msm's own elapsed time comes from CP always-on counter samples
 * written around the submit (a6xx_gpu.c a6xx_submit), so it spans that too.
 */
static const struct drmtop_ring_rule msm_rings[] = {
	RULE("ring0", "gpu", EXE),
	RULE("ring[1-9]*", "gpu", OCC),
	RULE("msm-vm-bind", NULL, DEF),
};

/*
 * panfrost: every job slot's scheduler was named "pan_js" in 6.1 and 6.12 (panfrost_job.c
 * panfrost_job_init), so the ring does not tell the slot; 7.2 names them after the slots,
 * panfrost_engine_names[] = "fragment", "vertex-tiler", "compute-only" (panfrost_job.c
 * panfrost_jm_init). fdinfo (not in 6.1; 6.12 and 7.2 with profiling enabled in sysfs) prints
 * drm-engine- and drm-cycles- for the first NUM_JOB_SLOTS - 1 slots only: fragment, vertex-tiler
 * (panfrost_drv.c), timed from the hardware submit to the done interrupt (panfrost_job.c
 * start_time).
 */
static const struct drmtop_ring_rule panfrost_rings[] = {
	RULE("fragment", "fragment", DEF),
	RULE("vertex-tiler", "vertex-tiler", DEF),
	RULE("compute-only", NULL, DEF),
	RULE("pan_js", NULL, DEF),
};

/*
 * panthor (6.12+): one scheduler per CSF queue, "panthor-queue" in 6.12, "panthor-queue-
 * <client id>-<group>-<queue>" in 7.2 (panthor_sched.c group_create_queue); one per VM,
 * "panthor-vm-bind" (panthor_mmu.c). Queues are scheduled by the CSF firmware. fdinfo: none in
 * 6.12; 7.2 prints drm-engine-panthor (profiling timestamps) and drm-cycles-panthor (profiling
 * cycles) for all queues together (panthor_drv.c panthor_gpu_show_fdinfo).
 */
static const struct drmtop_ring_rule panthor_rings[] = {
	RULE("panthor-queue*", "panthor", DEF),
	RULE("panthor-vm-bind", NULL, DEF),
};

/*
 * lima: lima_sched_pipe_init(pipe, "gp") and (pipe, "pp") (lima_device.c, 6.1/6.12/7.2),
 * credit_limit 1. lima has no show_fdinfo: its rings feed no fdinfo engine.
 */
static const struct drmtop_ring_rule lima_rings[] = {
	RULE("gp", NULL, DEF),
	RULE("pp", NULL, DEF),
};

/*
 * etnaviv: one scheduler per GPU core named dev_name(gpu->dev), the core's platform device
 * (e.g. "130000.gpu"; etnaviv_sched.c etnaviv_sched_init, 6.1/6.12/7.2), credit_limit
 * hw_job_limit. fdinfo: nothing in 6.1 and 6.12, memory keys only in 7.2 (etnaviv_drv.c).
 */
static const struct drmtop_ring_rule etnaviv_rings[] = {
	RULE("*", NULL, DEF),
};

/*
 * nouveau (6.12+): "nouveau_sched" for every channel's scheduler (nouveau_sched.c
 * nouveau_sched_init), the channel run by the GPU's own scheduler, and for each client's VM_BIND
 * one. No fdinfo engine keys. The name does not tell the engine: the client's whole GPU, "gpu".
 */
static const struct drmtop_ring_rule nouveau_rings[] = {
	SHOWN_AS("nouveau_sched", "gpu", DEF),
};

/*
 * imagination, drm-driver "powervr" (pvr_drv.h PVR_DRIVER_NAME; 6.12+): "pvr-queue" for every
 * queue (pvr_queue.c pvr_queue_create), queues run by the firmware. No fdinfo engine keys. The
 * name does not tell the queue's type (geometry, fragment, compute, transfer): "gpu".
 */
static const struct drmtop_ring_rule powervr_rings[] = {
	SHOWN_AS("pvr-queue", "gpu", DEF),
};

/*
 * amdxdna (accel, 7.2), drm-driver "amdxdna_accel_driver" (amdxdna_pci_drv.c drm_driver.name;
 * the module and PCI driver are "amdxdna"): "amdxdna_js" for every hardware context
 * (aie2_ctx.c aie2_hwctx_init), run by the NPU firmware. fdinfo: amdxdna-*-alloc and memory
 * keys, no engine (amdxdna_pci_drv.c amdxdna_show_fdinfo).
 */
static const struct drmtop_ring_rule amdxdna_rings[] = {
	SHOWN_AS("amdxdna_js", "npu", DEF),
};

/*
 * rocket (accel, 7.2): one scheduler per NPU core, dev_name(core->dev) (rocket_job.c
 * rocket_job_init), credit_limit 1. No fdinfo.
 */
static const struct drmtop_ring_rule rocket_rings[] = {
	RULE("*", NULL, DEF),
};

/*
 * ethosu (accel, 7.2): one scheduler per device, dev_name(dev) (ethosu_job.c ethosu_job_init),
 * credit_limit 1. No fdinfo.
 */
static const struct drmtop_ring_rule ethosu_rings[] = {
	RULE("*", NULL, DEF),
};

static const char *const amdxdna_aliases[] = { "amdxdna" };
static const char *const powervr_aliases[] = { "imagination" };

#define RULES(r) .rings = r, .nr_rings = ARRAY_SIZE(r)
#define KIDS(k) .kernel_ids = k, .nr_kernel_ids = ARRAY_SIZE(k)
#define ALIASES(a) .aliases = a, .nr_aliases = ARRAY_SIZE(a)

static const struct drmtop_driver_info drivers[] = {
	{ .driver = "amdgpu", .timing = EXE, RULES(amdgpu_rings), KIDS(amdgpu_kernel_ids),
	  .since = "6.1",
	  .notes = "shared in-order hardware rings; fdinfo counts scheduled->finished fence time "
		   "per hw_ip, the tracer's run->done; kernel jobs (moves, clears, page tables) "
		   "carry reserved ids counting down from 2^64-1" },
	{ .driver = "xe", .timing = OCC, RULES(xe_rings), KIDS(xe_kernel_ids), .since = "6.12",
	  .notes = "one scheduler per exec queue, scheduled by GuC firmware; fdinfo has cycles "
		   "only (drm-cycles/drm-total-cycles per class); ring number is the GuC id; "
		   "kernel queues carry client id 0" },
	{ .driver = "v3d", .timing = EXE, RULES(v3d_rings), .since = "6.1",
	  .notes = "one job per ring at a time; no fdinfo engines in 6.1" },
	{ .driver = "msm", .timing = EXE, RULES(msm_rings), .since = "6.1",
	  .notes = "ringN is priority N (0 highest); rings 1-3 preemptible where nr_rings > 1; "
		   "every ring feeds drm-engine-gpu" },
	{ .driver = "panfrost", .timing = EXE, RULES(panfrost_rings), .since = "6.1",
	  .notes = "rings were all named pan_js before 7.x (slot unknown); fdinfo engines only "
		   "with profiling enabled; two jobs per slot in hardware" },
	{ .driver = "panthor", .timing = OCC, RULES(panthor_rings), .since = "6.12",
	  .notes = "one scheduler per CSF queue, firmware scheduled; fdinfo engine after 6.12 and "
		   "only with profiling enabled" },
	{ .driver = "lima", .timing = EXE, RULES(lima_rings), .since = "6.1",
	  .notes = "no fdinfo" },
	{ .driver = "etnaviv", .timing = EXE, RULES(etnaviv_rings), .since = "6.1",
	  .notes = "ring named after the GPU core's device; fdinfo memory keys only (7.x)" },
	{ .driver = "nouveau", .timing = OCC, RULES(nouveau_rings), .since = "6.12",
	  .notes = "one scheduler per channel; no fdinfo engine keys" },
	{ .driver = "powervr", ALIASES(powervr_aliases), .timing = OCC, RULES(powervr_rings),
	  .since = "6.12", .notes = "imagination; firmware scheduled queues; no fdinfo engine keys" },
	{ .driver = "amdxdna_accel_driver", ALIASES(amdxdna_aliases), .timing = OCC,
	  RULES(amdxdna_rings), .since = "7.2",
	  .notes = "NPU hardware contexts, firmware scheduled; fdinfo memory keys only" },
	{ .driver = "rocket", .timing = EXE, RULES(rocket_rings), .since = "7.2",
	  .notes = "one ring per NPU core, named after its device; no fdinfo" },
	{ .driver = "ethosu", .timing = EXE, RULES(ethosu_rings), .since = "7.2",
	  .notes = "one ring per device, named after it; no fdinfo" },
};

static const struct drmtop_driver_info *const driver_ptrs[] = {
	&drivers[0], &drivers[1], &drivers[2], &drivers[3], &drivers[4], &drivers[5],
	&drivers[6], &drivers[7], &drivers[8], &drivers[9], &drivers[10], &drivers[11],
	&drivers[12],
};

_Static_assert(ARRAY_SIZE(driver_ptrs) == ARRAY_SIZE(drivers), "driver_ptrs out of date");

size_t drmtop_drivers(const struct drmtop_driver_info *const **all)
{
	*all = driver_ptrs;
	return ARRAY_SIZE(driver_ptrs);
}

const struct drmtop_driver_info *drmtop_driver_find(const char *driver)
{
	size_t i, j;

	if (!driver)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(drivers); i++) {
		if (!strcmp(drivers[i].driver, driver))
			return &drivers[i];
		for (j = 0; j < drivers[i].nr_aliases; j++)
			if (!strcmp(drivers[i].aliases[j], driver))
				return &drivers[i];
	}
	return NULL;
}

const struct drmtop_ring_rule *drmtop_driver_ring_rule(const struct drmtop_driver_info *d,
						       const char *ring)
{
	size_t i;

	if (!d || !ring)
		return NULL;
	for (i = 0; i < d->nr_rings; i++)
		if (!fnmatch(d->rings[i].pattern, ring, 0))
			return &d->rings[i];
	return NULL;
}

enum drmtop_timing drmtop_rule_timing(const struct drmtop_driver_info *d,
				      const struct drmtop_ring_rule *rule)
{
	if (rule && (rule->timing == EXE || rule->timing == OCC))
		return (enum drmtop_timing)rule->timing;
	return d->timing;
}

bool drmtop_driver_is_kernel_client_id(const struct drmtop_driver_info *d, uint64_t client_id)
{
	size_t i;

	if (!d)
		return false;
	for (i = 0; i < d->nr_kernel_ids; i++)
		if (client_id >= d->kernel_ids[i].first && client_id <= d->kernel_ids[i].last)
			return true;
	return false;
}

const char *drmtop_ring_prefix_engine(const char *ring, const char *const *engines,
				      size_t nr_engines)
{
	size_t i;

	if (!ring)
		return NULL;
	for (i = 0; i < nr_engines; i++) {
		size_t n = engines[i] ? strlen(engines[i]) : 0;
		char c;

		if (!n || strncmp(ring, engines[i], n))
			continue;
		c = ring[n];
		if (c == '\0' || c == '_' || c == '.' || c == '-' || isdigit((unsigned char)c))
			return engines[i];
	}
	return NULL;
}

const char *drmtop_ring_engine(const char *driver, const char *ring, const char *const *engines,
			       size_t nr_engines, enum drmtop_timing *timing, bool *known)
{
	const struct drmtop_driver_info *d = drmtop_driver_find(driver);
	const struct drmtop_ring_rule *rule;

	if (known)
		*known = d != NULL;
	if (d) {
		rule = drmtop_driver_ring_rule(d, ring);
		if (timing)
			*timing = drmtop_rule_timing(d, rule);
		if (!rule)
			return NULL;
		return rule->engine ? rule->engine : rule->label ? rule->label : ring;
	}
	if (timing)
		*timing = EXE;
	return drmtop_ring_prefix_engine(ring, engines, nr_engines);
}

const char *drmtop_timing_name(enum drmtop_timing t)
{
	return t == OCC ? "occupancy" : "execution";
}
