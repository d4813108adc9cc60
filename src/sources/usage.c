// SPDX-License-Identifier: GPL-2.0-only
/*
 * Engine utilisation of one client between two fdinfo samples (drm-usage-stats.rst: busy time,
 * cycles against total-cycles or against maxfreq, capacity, counters that go backwards).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/usage.h"

uint64_t drm_counter_advance(uint64_t *effective, uint64_t raw, bool *backwards)
{
	uint64_t d;

	if (raw < *effective) {
		if (backwards)
			*backwards = true;
		return 0;
	}
	d = raw - *effective;
	*effective = raw;
	return d;
}

int drm_engine_track_init(struct drm_engine_track *t, const struct drm_fdinfo_engine *e)
{
	memset(t, 0, sizeof(*t));
	t->name = strdup(e->name);
	if (!t->name)
		return -ENOMEM;
	t->present = e->present & (DRM_ENGINE_HAS_BUSY | DRM_ENGINE_HAS_CYCLES |
				   DRM_ENGINE_HAS_TOTAL_CYCLES);
	t->busy_ns = e->busy_ns;
	t->cycles = e->cycles;
	t->total_cycles = e->total_cycles;
	return 0;
}

void drm_engine_track_free(struct drm_engine_track *t)
{
	free(t->name);
	memset(t, 0, sizeof(*t));
}

/* a > b * m without overflowing: if b * m does not fit in u64, a cannot exceed it. */
static bool exceeds(uint64_t a, uint64_t b, uint64_t m)
{
	if (m && b > UINT64_MAX / m)
		return false;
	return a > b * m;
}

void drm_engine_usage_update(struct drm_engine_track *t, const struct drm_fdinfo_engine *e,
			     uint64_t dt_ns, uint64_t dt_slack_ns, struct drm_engine_usage *u)
{
	uint64_t cap = (e->present & DRM_ENGINE_HAS_CAPACITY) && e->capacity ? e->capacity : 1;
	bool back = false;
	bool have_total = false;

	/* the longest the driver's interval can have been (saturating) */
	uint64_t dt_max = dt_ns + dt_slack_ns < dt_ns ? UINT64_MAX : dt_ns + dt_slack_ns;

	memset(u, 0, sizeof(*u));
	u->dt_ns = dt_ns;
	u->dt_slack_ns = dt_slack_ns;
	u->capacity = cap;

	/*
	 * Busy time and cycles of an engine the track has not seen count from 0: amdgpu leaves an
	 * engine out until the client first uses it.
	 */
	if (e->present & DRM_ENGINE_HAS_BUSY) {
		if (!(t->present & DRM_ENGINE_HAS_BUSY))
			t->busy_ns = 0;
		t->present |= DRM_ENGINE_HAS_BUSY;
		u->busy_delta_ns = drm_counter_advance(&t->busy_ns, e->busy_ns, &back);
		if (dt_ns) {
			u->busy_pct =
				(double)u->busy_delta_ns / (double)dt_ns * 100.0 / (double)cap;
			u->flags |= DRM_USAGE_BUSY_VALID;
			if (exceeds(u->busy_delta_ns, dt_max, cap))
				u->flags |= DRM_USAGE_BUSY_OVER;
		}
	}

	/* total-cycles is a timestamp, not a per-client count: a first reading is only a base. */
	if (e->present & DRM_ENGINE_HAS_TOTAL_CYCLES) {
		if (t->present & DRM_ENGINE_HAS_TOTAL_CYCLES) {
			u->total_cycles_delta = drm_counter_advance(&t->total_cycles,
								    e->total_cycles, &back);
			have_total = true;
		} else {
			t->total_cycles = e->total_cycles;
			t->present |= DRM_ENGINE_HAS_TOTAL_CYCLES;
		}
	}

	if (e->present & DRM_ENGINE_HAS_CYCLES) {
		if (!(t->present & DRM_ENGINE_HAS_CYCLES))
			t->cycles = 0;
		t->present |= DRM_ENGINE_HAS_CYCLES;
		u->cycles_delta = drm_counter_advance(&t->cycles, e->cycles, &back);

		if (have_total) {
			if (u->total_cycles_delta) {
				u->cycles_pct = (double)u->cycles_delta /
						(double)u->total_cycles_delta * 100.0 / (double)cap;
				u->flags |= DRM_USAGE_CYCLES_VALID | DRM_USAGE_BY_TOTAL;
				if (exceeds(u->cycles_delta, u->total_cycles_delta, cap))
					u->flags |= DRM_USAGE_CYCLES_OVER;
			}
		} else if (!(e->present & DRM_ENGINE_HAS_TOTAL_CYCLES) &&
			   (e->present & DRM_ENGINE_HAS_MAXFREQ) && e->maxfreq_hz && dt_ns) {
			/* cycles the engine could have run at maxfreq during dt */
			double possible = (double)dt_ns * (double)e->maxfreq_hz / 1e9;
			double most = (double)dt_max * (double)e->maxfreq_hz / 1e9;

			u->cycles_pct = (double)u->cycles_delta / possible * 100.0 / (double)cap;
			u->flags |= DRM_USAGE_CYCLES_VALID | DRM_USAGE_BY_MAXFREQ;
			if ((double)u->cycles_delta / most * 100.0 / (double)cap > 100.0)
				u->flags |= DRM_USAGE_CYCLES_OVER;
		}
	}
	if (back)
		u->flags |= DRM_USAGE_BACKWARDS;
}

bool drm_engine_usage_pct(const struct drm_engine_usage *u, double *pct, bool *over)
{
	if (u->flags & DRM_USAGE_BUSY_VALID) {
		*pct = u->busy_pct;
		*over = u->flags & DRM_USAGE_BUSY_OVER;
		return true;
	}
	if (u->flags & DRM_USAGE_CYCLES_VALID) {
		*pct = u->cycles_pct;
		*over = u->flags & DRM_USAGE_CYCLES_OVER;
		return true;
	}
	return false;
}
