/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test helper: the verbatim fdinfo samples of shared/fdinfo_samples. A file holds one or more
 * samples separated by lines starting with "# ---"; lines starting with '#' are commentary and
 * are dropped, everything else is kept byte for byte.
 */
#ifndef DRMTOP_TEST_FIXTURE_H
#define DRMTOP_TEST_FIXTURE_H

#include <stddef.h>

struct fx_sample {
	char *text;	/* NUL-terminated fdinfo text of one sample */
	size_t len;
};

struct fx_file {
	struct fx_sample *samples;
	size_t nr;
};

/* Load FIXTURE_DIR/@name; aborts the test program with a message if the file is unreadable. */
void fx_load(const char *name, struct fx_file *f);
void fx_free(struct fx_file *f);

#endif /* DRMTOP_TEST_FIXTURE_H */
