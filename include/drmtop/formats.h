/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The output formats: a name, the view that writes one refresh, and the view of a record
 * session. A new format is one view file under src/views/ and one line in src/cli/formats.c.
 */
#ifndef DRMTOP_FORMATS_H
#define DRMTOP_FORMATS_H

#include <stdio.h>

#include "drmtop/record.h"
#include "drmtop/views.h"

struct drmtop_format {
	const char *name;
	drmtop_frame_fn frame;
	/* NULL: record has no such output */
	int (*record)(const struct record_session *rs, const struct drmtop_model *last, FILE *out);
};

/* NULL for an unknown name. */
const struct drmtop_format *drmtop_format_find(const char *name);
/* "text, json, ..." for messages. */
const char *drmtop_format_names(void);

#endif /* DRMTOP_FORMATS_H */
