// SPDX-License-Identifier: GPL-2.0-only
/* Splits the fdinfo sample files into samples; see fixture.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#ifndef FIXTURE_DIR
#error "FIXTURE_DIR must name the fdinfo_samples directory"
#endif

static void die(const char *what, const char *name)
{
	fprintf(stderr, "fixture %s: %s\n", name, what);
	exit(2);
}

static void start_sample(struct fx_file *f, const char *name)
{
	struct fx_sample *n = realloc(f->samples, (f->nr + 1) * sizeof(*n));

	if (!n)
		die("out of memory", name);
	f->samples = n;
	n[f->nr].text = calloc(1, 1);
	if (!n[f->nr].text)
		die("out of memory", name);
	n[f->nr].len = 0;
	f->nr++;
}

static void append_line(struct fx_sample *s, const char *line, size_t n, const char *name)
{
	char *t = realloc(s->text, s->len + n + 1);

	if (!t)
		die("out of memory", name);
	memcpy(t + s->len, line, n);
	s->len += n;
	t[s->len] = '\0';
	s->text = t;
}

void fx_load(const char *name, struct fx_file *f)
{
	char path[4096];
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *fp;

	memset(f, 0, sizeof(*f));
	snprintf(path, sizeof(path), "%s/%s", FIXTURE_DIR, name);
	fp = fopen(path, "r");
	if (!fp)
		die("cannot open", path);
	while ((n = getline(&line, &cap, fp)) >= 0) {
		if (!strncmp(line, "# ---", 5)) {
			start_sample(f, name);
			continue;
		}
		if (line[0] == '#')
			continue;
		/* files without separators are one sample */
		if (!f->nr)
			start_sample(f, name);
		append_line(&f->samples[f->nr - 1], line, (size_t)n, name);
	}
	free(line);
	fclose(fp);
}

void fx_free(struct fx_file *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		free(f->samples[i].text);
	free(f->samples);
	memset(f, 0, sizeof(*f));
}
