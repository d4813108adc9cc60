// SPDX-License-Identifier: GPL-2.0-only
#include "truth_sampler.h"
#include "units.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SAMPLES (4U << 20)

static const char *const busy_keys[3] = { "gfx_busy_ns=", "compute_busy_ns=", "copy_busy_ns=" };

int truth_sampler_init(struct truth_sampler *ts, const char *path, uint64_t period_ns)
{
	FILE *f = fopen(path, "re");

	memset(ts, 0, sizeof(*ts));
	if (!f) {
		perror(path);
		return -1;
	}
	fclose(f);
	ts->path = path;
	ts->period_ns = (int64_t)period_ns;
	return 0;
}

static bool push(struct truth_sampler *ts, const struct truth_sample *s)
{
	if (ts->nr == ts->cap) {
		unsigned int cap = ts->cap ? ts->cap * 2 : 4096;
		struct truth_sample *n;

		if (cap > MAX_SAMPLES)
			return false;
		n = realloc(ts->s, cap * sizeof(*n));
		if (!n)
			return false;
		ts->s = n;
		ts->cap = cap;
	}
	ts->s[ts->nr++] = *s;
	return true;
}

/* "client id=N kind=user ... gfx_busy_ns=X ... compute_busy_ns=Y ... copy_busy_ns=Z ..." */
static bool parse_client(const char *line, struct truth_sample *s)
{
	const char *p;

	if (strncmp(line, "client ", 7) || !strstr(line, " kind=user "))
		return false;
	if (sscanf(line, "client id=%" SCNu64, &s->client_id) != 1)
		return false;
	for (int e = 0; e < 3; e++) {
		p = strstr(line, busy_keys[e]);
		if (!p || sscanf(p + strlen(busy_keys[e]), "%" SCNu64, &s->busy_ns[e]) != 1)
			return false;
	}
	return true;
}

static void sample(struct truth_sampler *ts)
{
	struct truth_sample batch[256];
	unsigned int n = 0;
	char line[1024];
	int64_t t;
	FILE *f;

	f = fopen(ts->path, "re");
	if (!f) {
		ts->lost = true;
		return;
	}
	/* debugfs makes the whole file, every figure at one ktime_get(), in the first read. */
	t = wl_now_ns();
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		ts->lost = true;
		return;
	}
	t += (wl_now_ns() - t) / 2;
	do {
		if (n < sizeof(batch) / sizeof(batch[0]) && parse_client(line, &batch[n]))
			n++;
	} while (fgets(line, sizeof(line), f));
	fclose(f);
	for (unsigned int i = 0; i < n; i++) {
		batch[i].t_ns = t;
		if (!push(ts, &batch[i]))
			ts->lost = true;
	}
}

int64_t truth_sampler_tick(struct truth_sampler *ts, int64_t now)
{
	if (!ts->path)
		return INT64_MAX;
	if (now >= ts->next_ns) {
		sample(ts);
		ts->next_ns = now + ts->period_ns;
	}
	return ts->next_ns;
}

void truth_sampler_write(struct truth_sampler *ts, struct json_out *j)
{
	if (!ts->path)
		return;
	json_begin(j, "truth_samples", '{');
	json_str(j, "source", ts->path);
	json_i64(j, "period_ns", ts->period_ns);
	json_bool(j, "complete", !ts->lost);
	json_str(j, "columns", "t_ns client_id gfx_busy_ns compute_busy_ns copy_busy_ns");
	json_begin(j, "samples", '[');
	for (unsigned int i = 0; i < ts->nr; i++) {
		const struct truth_sample *s = &ts->s[i];

		char row[128];

		snprintf(row, sizeof(row),
			 "[%" PRId64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", s->t_ns,
			 s->client_id, s->busy_ns[0], s->busy_ns[1], s->busy_ns[2]);
		json_raw(j, NULL, row);
	}
	json_end(j, ']');
	json_end(j, '}');
}

void truth_sampler_free(struct truth_sampler *ts)
{
	free(ts->s);
	memset(ts, 0, sizeof(*ts));
}
