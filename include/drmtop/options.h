/* SPDX-License-Identifier: GPL-2.0-only */
/* drmtop's command line: what to show, how often, from which source. */
#ifndef DRMTOP_OPTIONS_H
#define DRMTOP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "drmtop/bpf_limits.h"

enum drmtop_command {
	DRMTOP_CMD_TOP,		/* live view (default) */
	DRMTOP_CMD_RECORD,	/* one-shot session summary */
};

enum drmtop_output {
	DRMTOP_OUT_AUTO,	/* TUI on a terminal, batch text otherwise */
	DRMTOP_OUT_TUI,
	DRMTOP_OUT_STREAM,	/* frames in opts->format, one per refresh */
};

/* Refresh interval limits, the same for -d and the live view's +/- keys. */
#define DRMTOP_MIN_INTERVAL_S	0.01
#define DRMTOP_MAX_INTERVAL_S	86400.0

struct drmtop_format;

enum drmtop_source {
	DRMTOP_SRC_AUTO,	/* BPF where it can load, fdinfo always */
	DRMTOP_SRC_FDINFO,	/* never try BPF */
	DRMTOP_SRC_BPF,		/* fail if BPF cannot load */
};

struct drmtop_options {
	enum drmtop_command command;
	enum drmtop_output output;
	const struct drmtop_format *format;	/* with DRMTOP_OUT_STREAM (and for record) */
	enum drmtop_source source;
	double interval_s;	/* -d */
	unsigned long iterations; /* -n; 0 = until interrupted */
	double duration_s;	/* record -t */
	pid_t *pids;		/* -p, repeatable; empty = every process */
	size_t nr_pids, pids_cap;
	const char *proc_root;	/* --proc-root, for tests and containers */
	const char *sys_root;	/* --sys-root; "" = no sysfs look-ups */
	double diverge_pct;	/* --diverge-threshold, percent */
	struct drmtop_bpf_limits bpf_limits;	/* --bpf-map, repeatable */
	/* record and serve follow each client: the model lists idle closed ones too */
	bool each_closed;
	bool no_color;		/* -C, --no-color, or NO_COLOR set and not empty (no-color.org) */
	bool show_help;
	bool show_version;
};

/*
 * Parses the options of @cmd (argv[0] is the command's name) into opts. Returns 0 on success,
 * -1 on bad usage after writing a one-line reason to err. opts owns opts->pids; release
 * with drmtop_options_free().
 */
int drmtop_options_parse(struct drmtop_options *opts, enum drmtop_command cmd, int argc,
			 char **argv, FILE *err);
void drmtop_options_free(struct drmtop_options *opts);
void drmtop_usage(FILE *out, const char *prog);
/* "drmtop <version>" and what it was built with (compiler, libbpf, ncurses). */
void drmtop_print_version(FILE *out);
bool drmtop_options_want_pid(const struct drmtop_options *opts, pid_t pid);

#endif /* DRMTOP_OPTIONS_H */
