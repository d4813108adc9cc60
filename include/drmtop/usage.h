/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Utilisation math over two fdinfo samples of one DRM client (per-device totals are the model's).
 *
 * Spec rule for counters that go backwards (drm-usage-stats.rst): keep the larger previous value
 * until a monotonic update is seen. So each counter has an "effective" value that is
 * max(previous effective, new reading); the delta is new - effective when the reading is ahead,
 * else 0. No wrap-around is ever assumed.
 *
 * Percentages are never clamped: a figure above 100 % is returned as is, and flagged when timing
 * cannot explain it (drm_engine_usage_update). A zero
 * interval (or zero denominator) gives no figure at all, never NaN or inf.
 */
#ifndef DRMTOP_USAGE_H
#define DRMTOP_USAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "drmtop/fdinfo.h"

/*
 * Fold a raw counter reading into its effective value. Returns the delta (0 when @raw is not
 * ahead of *@effective). Sets *@backwards (if non-NULL) when @raw < *@effective.
 */
uint64_t drm_counter_advance(uint64_t *effective, uint64_t raw, bool *backwards);

/* Effective (monotonic) counters of one engine of one client, carried from sample to sample. */
struct drm_engine_track {
	char *name;
	unsigned int present;	/* DRM_ENGINE_HAS_* bits ever seen for the counters below */
	uint64_t busy_ns;
	uint64_t cycles;
	uint64_t total_cycles;
};

/* drm_engine_usage.flags */
#define DRM_USAGE_BUSY_VALID	(1u << 0)	/* busy_pct holds a figure (from drm-engine ns) */
#define DRM_USAGE_CYCLES_VALID	(1u << 1)	/* cycles_pct holds a figure (from drm-cycles) */
/* over 100 % of the longest interval the two readings can span (see _update) */
#define DRM_USAGE_BUSY_OVER	(1u << 2)
#define DRM_USAGE_CYCLES_OVER	(1u << 3)
#define DRM_USAGE_BACKWARDS	(1u << 4)	/* a counter read lower than its effective value */
#define DRM_USAGE_BY_TOTAL	(1u << 5)	/* cycles_pct = dcycles / dtotal-cycles */
#define DRM_USAGE_BY_MAXFREQ	(1u << 6)	/* cycles_pct = dcycles / (dt * maxfreq) */

/* Usage of one engine over one interval. */
struct drm_engine_usage {
	unsigned int flags;	/* DRM_USAGE_* */
	double busy_pct;	/* 100 * dbusy_ns / dt_ns / capacity */
	double cycles_pct;	/* 100 * dcycles / dtotal_cycles / capacity, or by maxfreq */
	uint64_t capacity;	/* capacity used (1 if not printed) */
	uint64_t busy_delta_ns;
	uint64_t cycles_delta;
	uint64_t total_cycles_delta;
	uint64_t dt_ns;		/* wall interval used */
	uint64_t dt_slack_ns;	/* the readings may be up to dt_ns + this apart */
};

/* Start tracking @e (first sample of a client): effective counters = the readings, no figure. */
int drm_engine_track_init(struct drm_engine_track *t, const struct drm_fdinfo_engine *e);
void drm_engine_track_free(struct drm_engine_track *t);

/*
 * Advance @t with the new reading @e taken @dt_ns of monotonic time after the previous one and
 * compute @u. Counters @t has never seen start from 0 (amdgpu prints an engine only once it has
 * been used). @dt_ns == 0 gives no figure, but the counters still advance.
 *
 * The figure is over @dt_ns; the driver's two readings are of instants inside the two reads of
 * the file, so they may be up to @dt_ns + @dt_slack_ns apart (the slack: how long the previous
 * read took, timed around it). A saturated engine can thus read a little over 100 % from timing
 * alone; "over" is only set when the counter advanced more than the longest possible interval
 * allows: the driver over-reports.
 */
void drm_engine_usage_update(struct drm_engine_track *t, const struct drm_fdinfo_engine *e,
			     uint64_t dt_ns, uint64_t dt_slack_ns, struct drm_engine_usage *u);

/*
 * The figure to show for an engine: busy (ns based) when valid, else cycles based. Returns false
 * when there is none. *@over is set when the figure exceeds 100 %.
 */
bool drm_engine_usage_pct(const struct drm_engine_usage *u, double *pct, bool *over);

#endif /* DRMTOP_USAGE_H */
