// SPDX-License-Identifier: GPL-2.0-only
/*
 * `drmtop probe [-J]`: report what this kernel and machine give drmtop (like `bpftool feature
 * probe`). The subcommand table in drmtop.c calls drmtop_probe_main with argv[0] = "probe".
 * Exit status: 0 when the report was written (whatever it says is missing), 2 for bad usage,
 * 1 when it could not be made or written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/probe.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: drmtop probe [-J|--json]\n"
		     "  Report what this kernel and machine give drmtop: scheduler tracepoints,\n"
		     "  BTF, privileges, each BPF hook, DRM/accel devices and the driver table.\n"
		     "  -J, --json   one JSON object instead of text\n");
}

int drmtop_probe_main(int argc, char **argv)
{
	struct drmtop_probe *p;
	bool json = false;
	int i, err;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-J") || !strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "drmtop probe: unknown argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	/* large (devices, hooks): not on the stack */
	p = calloc(1, sizeof(*p));
	if (!p) {
		fprintf(stderr, "drmtop probe: out of memory\n");
		return 1;
	}
	err = drmtop_probe_run(p, NULL);
	if (err) {
		fprintf(stderr, "drmtop probe: %s\n", strerror(-err));
		drmtop_probe_free(p);
		free(p);
		return 1;
	}
	err = json ? drmtop_probe_print_json(stdout, p) : drmtop_probe_print_text(stdout, p);
	drmtop_probe_free(p);
	free(p);
	if (err) {
		fprintf(stderr, "drmtop probe: writing the report failed\n");
		return 1;
	}
	return 0;
}
