// SPDX-License-Identifier: GPL-2.0-only
#include <bpf/libbpf.h>
#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/formats.h"
#include "drmtop/options.h"
#include "drmtop/version.h"
#include "drmtop/util/vec.h"


#define DEFAULT_INTERVAL_S	2.0
#define DEFAULT_DIVERGE_PCT	5.0

enum {
	OPT_PROC_ROOT = 0x100,
	OPT_SYS_ROOT,
	OPT_SOURCE,
	OPT_DIVERGE,
	OPT_BPF_MAP,
};

static const struct option long_opts[] = {
	{ "delay", required_argument, NULL, 'd' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "pid", required_argument, NULL, 'p' },
	{ "json", no_argument, NULL, 'J' },
	{ "batch", no_argument, NULL, 'b' },
	{ "output", required_argument, NULL, 'o' },
	{ "duration", required_argument, NULL, 't' },
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "proc-root", required_argument, NULL, OPT_PROC_ROOT },
	{ "sys-root", required_argument, NULL, OPT_SYS_ROOT },
	{ "diverge-threshold", required_argument, NULL, OPT_DIVERGE },
	{ "bpf-map", required_argument, NULL, OPT_BPF_MAP },
	{ "no-color", no_argument, NULL, 'C' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

void drmtop_usage(FILE *out, const char *prog)
{
	fprintf(out,
		"Usage: %1$s [top] [OPTIONS]\n"
		"       %1$s record -t DURATION [OPTIONS]\n"
		"       %1$s probe [-J]             what this kernel and machine give drmtop\n"
		"       %1$s serve [--listen ADDR:PORT] Prometheus metrics (%1$s serve --help)\n"
		"\n"
		"Per-client GPU and accelerator usage: engine busy time, jobs and memory of every DRM\n"
		"client, from the kernel's fdinfo and, as root, from BPF tracing of the GPU scheduler\n"
		"and GEM buffers. Without root or BPF it runs from fdinfo alone and says so.\n"
		"\n"
		"Options:\n"
		"  -d, --delay SECONDS       refresh interval (default %2$.0f; fractions allowed)\n"
		"  -n, --iterations COUNT    stop after COUNT refreshes (default: run until q or Ctrl-C)\n"
		"  -p, --pid PID[,PID...]    only clients held by these processes (repeatable)\n"
		"  -b, --batch               plain text, one table per refresh (default when not a tty)\n"
		"  -J, --json                JSON lines: one object per refresh (= -o json)\n"
		"  -o, --output FORMAT       frames in FORMAT, one per refresh: %4$s\n"
		"  -C, --no-color            live view without colours (also when NO_COLOR is set)\n"
		"  -t, --duration SECONDS    with record: how long to trace\n"
		"      --source SRC          auto (default), fdinfo (never BPF) or bpf (fail without it)\n"
		"      --diverge-threshold P flag BPF and fdinfo figures more than P%% apart (default %3$.0f)\n"
		"      --bpf-map NAME=N      size of a tracer map (repeatable): clients, engines, jobs,\n"
		"                            handles, objects, ... (drmtop probe lists them; see OVERHEAD\n"
		"                            in drmtop(8)), ringbuf=BYTES\n"
		"      --proc-root DIR       read processes from DIR instead of /proc\n"
		"      --sys-root DIR        read device links from DIR instead of /sys (\"\" = none)\n"
		"  -h, --help                this text\n"
		"  -V, --version             version and what it was built with\n"
		"\n"
		"Examples:\n"
		"  %1$s                      live view, refreshed every 2 s\n"
		"  %1$s -b -n 5 -d 1         five plain-text tables, one a second\n"
		"  %1$s -J -n 1              one JSON object (waits one interval for rates)\n"
		"  %1$s -o csv -d 5 -n 720   an hour of CSV: a row per client and engine every 5 s\n"
		"  %1$s -p 1234,1240         only the clients of two processes\n"
		"  %1$s record -t 30 -J      trace 30 s, then one JSON summary of every client\n"
		"\n"
		"\n"
		"Keys in the live view: q quit, h or ? help, / filter, Enter details, s sort, r reverse.\n"
		"See drmtop(8).\n",
		prog, DEFAULT_INTERVAL_S, DEFAULT_DIVERGE_PCT, drmtop_format_names());
}

static int parse_seconds(const char *arg, double *out, const char *what, FILE *err)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < DRMTOP_MIN_INTERVAL_S ||
	    v > DRMTOP_MAX_INTERVAL_S) {
		fprintf(err, "drmtop: invalid %s '%s': want seconds >= %g and <= %.0f\n", what, arg,
			DRMTOP_MIN_INTERVAL_S, DRMTOP_MAX_INTERVAL_S);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_count(const char *arg, unsigned long *out, FILE *err)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v == 0) {
		fprintf(err, "drmtop: invalid iteration count '%s': want a whole number > 0\n", arg);
		return -1;
	}
	*out = v;
	return 0;
}

static int add_pids(struct drmtop_options *opts, const char *arg, FILE *err)
{
	const char *p = arg;

	while (*p) {
		char *end;
		long v;
		pid_t *slot;

		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || v <= 0 || v > INT_MAX || (*end && *end != ',')) {
			fprintf(err, "drmtop: invalid pid list '%s': want PID[,PID...]\n", arg);
			return -1;
		}
		slot = vec_push(opts->pids, opts->nr_pids, opts->pids_cap);
		if (!slot) {
			fprintf(err, "drmtop: out of memory\n");
			return -1;
		}
		*slot = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	return 0;
}

static int parse_source(const char *arg, enum drmtop_source *out, FILE *err)
{
	if (!strcmp(arg, "auto"))
		*out = DRMTOP_SRC_AUTO;
	else if (!strcmp(arg, "fdinfo"))
		*out = DRMTOP_SRC_FDINFO;
	else if (!strcmp(arg, "bpf"))
		*out = DRMTOP_SRC_BPF;
	else {
		fprintf(err, "drmtop: invalid source '%s': want auto, fdinfo or bpf\n", arg);
		return -1;
	}
	return 0;
}

static int parse_percent(const char *arg, double *out, FILE *err)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 0) {
		fprintf(err, "drmtop: invalid divergence threshold '%s': want a percentage >= 0\n",
			arg);
		return -1;
	}
	*out = v;
	return 0;
}

int drmtop_options_parse(struct drmtop_options *opts, enum drmtop_command cmd, int argc,
			 char **argv, FILE *err)
{
	bool have_duration = false;
	const char *no_color;
	int c;

	memset(opts, 0, sizeof(*opts));
	opts->interval_s = DEFAULT_INTERVAL_S;
	opts->proc_root = "/proc";
	opts->sys_root = "/sys";
	opts->diverge_pct = DEFAULT_DIVERGE_PCT;

	opts->command = cmd;
	opts->each_closed = cmd == DRMTOP_CMD_RECORD;
	/* https://no-color.org: present and not empty disables colour; -C says the same. */
	no_color = getenv("NO_COLOR");
	opts->no_color = no_color && no_color[0];

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:n:p:Jbo:t:ChV", long_opts, NULL)) != -1) {
		int rc = 0;

		switch (c) {
		case 'd':
			rc = parse_seconds(optarg, &opts->interval_s, "interval", err);
			break;
		case 'n':
			rc = parse_count(optarg, &opts->iterations, err);
			break;
		case 'p':
			rc = add_pids(opts, optarg, err);
			break;
		case 'J':
			opts->output = DRMTOP_OUT_STREAM;
			opts->format = drmtop_format_find("json");
			break;
		case 'b':
			/* -b keeps a format chosen with -J or -o: it only rules out the TUI. */
			if (opts->output != DRMTOP_OUT_STREAM)
				opts->format = drmtop_format_find("text");
			opts->output = DRMTOP_OUT_STREAM;
			break;
		case 'o':
			opts->output = DRMTOP_OUT_STREAM;
			opts->format = drmtop_format_find(optarg);
			if (!opts->format) {
				fprintf(err, "drmtop: unknown output format '%s': want %s\n", optarg,
					drmtop_format_names());
				rc = -1;
			}
			break;
		case 't':
			rc = parse_seconds(optarg, &opts->duration_s, "duration", err);
			have_duration = true;
			break;
		case OPT_SOURCE:
			rc = parse_source(optarg, &opts->source, err);
			break;
		case OPT_PROC_ROOT:
			opts->proc_root = optarg;
			break;
		case OPT_SYS_ROOT:
			opts->sys_root = optarg;
			break;
		case OPT_DIVERGE:
			rc = parse_percent(optarg, &opts->diverge_pct, err);
			break;
		case OPT_BPF_MAP: {
			char why[192];

			rc = drmtop_bpf_limit_parse(&opts->bpf_limits, optarg, why, sizeof(why));
			if (rc)
				fprintf(err, "drmtop: %s\n", why);
			break;
		}
		case 'C':
			opts->no_color = true;
			break;
		case 'h':
			opts->show_help = true;
			break;
		case 'V':
			opts->show_version = true;
			break;
		case ':':
			fprintf(err, "drmtop: option '%s' needs a value\n", argv[optind - 1]);
			rc = -1;
			break;
		default:
			fprintf(err, "drmtop: unknown option '%s' (see --help)\n", argv[optind - 1]);
			rc = -1;
			break;
		}
		if (rc)
			goto fail;
	}
	if (optind < argc) {
		fprintf(err, "drmtop: unexpected argument '%s' (see --help)\n", argv[optind]);
		goto fail;
	}
	if (opts->show_help || opts->show_version)
		return 0;
	if (opts->command == DRMTOP_CMD_RECORD && !have_duration) {
		fprintf(err, "drmtop: record needs -t DURATION\n");
		goto fail;
	}
	if (opts->command == DRMTOP_CMD_RECORD && opts->format && !opts->format->record) {
		fprintf(err, "drmtop: record has no %s output\n", opts->format->name);
		goto fail;
	}
	if (opts->command == DRMTOP_CMD_TOP && have_duration) {
		fprintf(err, "drmtop: -t goes with record; for a bounded live run use -n\n");
		goto fail;
	}
	return 0;
fail:
	drmtop_options_free(opts);
	return -1;
}

void drmtop_options_free(struct drmtop_options *opts)
{
	free(opts->pids);
	opts->pids = NULL;
	opts->nr_pids = opts->pids_cap = 0;
}

void drmtop_print_version(FILE *out)
{
	fprintf(out, "drmtop %s\n", DRMTOP_VERSION);
#ifdef __VERSION__
	fprintf(out, "built with: cc %s, C%ld\n", __VERSION__, (long)__STDC_VERSION__);
#endif
	fprintf(out, "libbpf: %u.%u (built against %d.%d), ncurses: %s\n", libbpf_major_version(),
		libbpf_minor_version(), LIBBPF_MAJOR_VERSION, LIBBPF_MINOR_VERSION,
		curses_version());
	fprintf(out, "sources: fdinfo, BPF (drm and gpu_sched programs, CO-RE); outputs: tui, %s\n",
		drmtop_format_names());
}

bool drmtop_options_want_pid(const struct drmtop_options *opts, pid_t pid)
{
	size_t i;

	if (!opts->nr_pids)
		return true;
	for (i = 0; i < opts->nr_pids; i++)
		if (opts->pids[i] == pid)
			return true;
	return false;
}
