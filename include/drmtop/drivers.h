/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The driver table: for every in-tree user of the DRM GPU scheduler, which hardware rings
 * (struct drm_gpu_scheduler, by the name its driver gives drm_sched_init()) feed which fdinfo
 * engine (the <e> of drm-engine-<e> / drm-cycles-<e>), what the tracer's run -> done interval
 * means on that driver, and which drm_client_id values are the driver's own kernel jobs.
 *
 * Everything a driver needs is one row of data in src/model/drivers.c; each row cites the
 * kernel sources it was read from (Debian linux-source 6.1.192, 6.12.117 and 7.2.13).
 *
 * Ring rules are fnmatch(3) globs tried in order: the first match wins, so a narrow pattern
 * ("uvd_enc*") goes before a wider one ("uvd*"). A rule whose engine is NULL matches rings that
 * feed no fdinfo engine (kernel-only rings, rings whose name does not tell the engine, drivers
 * that print no engine keys): such a ring is shown under the rule's label, the name the driver's
 * users know it by, or its own name. A ring no rule matches is unmapped.
 *
 * Drivers the table does not know keep the older rule, drmtop_ring_prefix_engine().
 */
#ifndef DRMTOP_DRIVERS_H
#define DRMTOP_DRIVERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What run -> done of one job on a ring measures, against the driver's own fdinfo figure:
 *  - EXECUTION: the interval the driver's fdinfo counts for that engine (once overlapping jobs
 *    of one in-order ring are counted once): the two figures should agree, a difference is a
 *    finding.
 *  - OCCUPANCY: the job was handed to firmware that schedules or time-slices it (one scheduler
 *    per user queue: xe/GuC, panthor/CSF, imagination, amdxdna), or a higher-priority ring can
 *    preempt it (msm rings 1-3): run -> done includes time it did not execute. A difference from
 *    fdinfo is expected and says nothing about the driver.
 */
enum drmtop_timing { DRMTOP_TIMING_EXECUTION, DRMTOP_TIMING_OCCUPANCY };

struct drmtop_ring_rule {
	const char *pattern;	/* fnmatch(3) glob on the scheduler's name */
	const char *engine;	/* fdinfo engine name; NULL: the ring feeds no fdinfo engine */
	int timing;		/* enum drmtop_timing, or -1 for the driver's default */
	const char *label;	/* with no engine: the name shown (NULL: the ring's own) */
};

/* Inclusive range of drm_client_id values. */
struct drmtop_id_range {
	uint64_t first, last;
};

struct drmtop_driver_info {
	const char *driver;		/* drm-driver as fdinfo prints it (drm_driver.name) */
	const char *const *aliases;	/* other names: the kernel module, the sysfs driver */
	size_t nr_aliases;
	enum drmtop_timing timing;	/* default for rules with timing -1 */
	const struct drmtop_ring_rule *rings;
	size_t nr_rings;
	/*
	 * drm_client_id values that mark the driver's own jobs (drm_sched_fence.drm_client_id,
	 * 6.12.10x and 6.17+); empty: every job carries its drm_file's client id.
	 */
	const struct drmtop_id_range *kernel_ids;
	size_t nr_kernel_ids;
	const char *since;		/* oldest checked kernel where the driver uses drm_sched */
	const char *notes;
};

/* The row for a drm-driver name or one of its aliases; NULL for an unknown driver. */
const struct drmtop_driver_info *drmtop_driver_find(const char *driver);

/* Every row, in table order; returns how many. */
size_t drmtop_drivers(const struct drmtop_driver_info *const **all);

/* The first rule of @d matching @ring, or NULL (ring unmapped). */
const struct drmtop_ring_rule *drmtop_driver_ring_rule(const struct drmtop_driver_info *d,
						       const char *ring);

/* Timing of a rule of @d (its own, or @d's default for -1). */
enum drmtop_timing drmtop_rule_timing(const struct drmtop_driver_info *d,
				      const struct drmtop_ring_rule *rule);

bool drmtop_driver_is_kernel_client_id(const struct drmtop_driver_info *d, uint64_t client_id);

/*
 * The rule for drivers the table does not know: a ring feeds the engine whose name it starts
 * with, followed by its end, '_', '.', '-' or a digit ("gfx" owns "gfx", "gfx_0.0.0", "gfx.1",
 * "gfx0"; not "gfxhub"). Returns the first of @engines that @ring feeds, or NULL.
 */
const char *drmtop_ring_prefix_engine(const char *ring, const char *const *engines,
				      size_t nr_engines);

/*
 * One call for both cases: the table's engine when @driver is known (then @engines is not
 * consulted: an engine the client's fdinfo lacks is still the ring's engine; a ring a rule maps
 * to no fdinfo engine is shown under the rule's label or @ring itself), else the prefix rule
 * over @engines (timing EXECUTION, the only comparison the old rule knew). NULL when nothing
 * maps @ring: it is unmapped. *@known tells which (may be NULL).
 */
const char *drmtop_ring_engine(const char *driver, const char *ring, const char *const *engines,
			       size_t nr_engines, enum drmtop_timing *timing, bool *known);

/* "execution" or "occupancy". */
const char *drmtop_timing_name(enum drmtop_timing t);

#endif /* DRMTOP_DRIVERS_H */
