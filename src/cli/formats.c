// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>

#include "drmtop/formats.h"

static const struct drmtop_format formats[] = {
	{ "text", drmtop_text_frame, record_session_print_text },
	{ "json", drmtop_json_frame, record_session_print_json },
	{ "csv", drmtop_csv_frame, NULL },
};

const struct drmtop_format *drmtop_format_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

const char *drmtop_format_names(void)
{
	static char names[128];
	size_t i, off = 0;

	if (names[0])
		return names;
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]) && off < sizeof(names); i++)
		off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s", i ? ", " : "",
					formats[i].name);
	return names;
}
