// SPDX-License-Identifier: GPL-2.0-only
/* drmtop record: sample often for a fixed time, then print the session in the chosen format. */
#include <stdio.h>

#include "drmtop/commands.h"
#include "drmtop/formats.h"
#include "drmtop/signals.h"
#include "drmtop/util/clock.h"

/* fdinfo sampling can only see clients alive at a sample, so record samples often. */
#define RECORD_MAX_STEP_S 0.25

int drmtop_record_run(struct drmtop_sampler *s, const volatile sig_atomic_t *stop)
{
	const struct drmtop_options *opts = drmtop_sampler_opts(s);
	const struct drmtop_format *fmt = opts->format ? opts->format : drmtop_format_find("text");
	double step_s = opts->interval_s < RECORD_MAX_STEP_S ? opts->interval_s : RECORD_MAX_STEP_S;
	struct record_session rs = { 0 };
	struct drmtop_model m = { 0 };
	uint64_t end, now, next;
	int rc = 0;

	rs.start_ns = drmtop_mono_ns();
	end = rs.start_ns + (uint64_t)(opts->duration_s * 1e9);
	/* On stderr even with -J: scripts wait for this line, the tracer is attached by then. */
	fprintf(stderr, "drmtop: recording for %.1f s (Ctrl-C ends early)...\n", opts->duration_s);
	for (;;) {
		if (drmtop_sampler_next(s, &m)) {
			fprintf(stderr, "drmtop: %s\n", drmtop_sampler_error(s));
			rc = 1;
			goto out;
		}
		now = drmtop_mono_ns();
		if (record_session_add(&rs, &m, now)) {
			fprintf(stderr, "drmtop: out of memory\n");
			rc = 1;
			goto out;
		}
		if (now >= end || *stop)
			break;
		next = now + (uint64_t)(step_s * 1e9);
		drmtop_sleep_until(next > end ? end : next, stop);
	}
	rc = fmt->record(&rs, &m, stdout) ? 1 : 0;
out:
	record_session_free(&rs);
	drmtop_model_fini(&m);
	return rc;
}
