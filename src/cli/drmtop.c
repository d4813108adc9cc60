// SPDX-License-Identifier: GPL-2.0-only
/*
 * drmtop: per-client GPU and accelerator usage. Subcommands dispatch from one table, as in
 * bpftool; without one (or with options first) drmtop runs "top".
 *
 * The first figure of a rate needs two samples, so batch output shows its first frame one
 * interval after start, except when there is no client at all: then there is nothing to
 * measure and the frame says so at once.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drmtop/commands.h"
#include "drmtop/formats.h"
#include "drmtop/options.h"
#include "drmtop/probe.h"
#include "drmtop/sampler.h"
#include "drmtop/serve.h"
#include "drmtop/signals.h"
#include "drmtop/util/clock.h"
#include "drmtop/version.h"

static const volatile sig_atomic_t *stop;

/* 0, 1 on a write error (reported), -1 when the reader went away (a clean end). */
static int emit(const struct drmtop_options *opts, struct drmtop_model *m, unsigned long shown)
{
	m->iteration = shown + 1;	/* the baseline sample is not a frame */
	if (!opts->format->frame(stdout, m))
		return 0;
	if (errno == EPIPE)
		return -1;
	fprintf(stderr, "drmtop: cannot write output: %s\n", strerror(errno));
	return 1;
}

static int run_stream(struct drmtop_sampler *s, const struct drmtop_options *opts)
{
	uint64_t step = (uint64_t)(opts->interval_s * 1e9), deadline;
	struct drmtop_model m = { 0 };
	unsigned long shown = 0;
	int rc = 0;

	if (drmtop_sampler_next(s, &m))
		goto fail;
	/* Only the tracer's clients (or none): no fdinfo rate to wait for, say so at once. */
	if (!m.nr_fdinfo_clients) {
		rc = emit(opts, &m, shown++);
		/* Without -n, a machine with no device would print the same frame forever. */
		if (rc || (m.status == DRMTOP_STATUS_NO_DEVICE && !opts->iterations))
			goto out;
	}
	deadline = drmtop_mono_ns() + step;
	while (!*stop && (!opts->iterations || shown < opts->iterations)) {
		if (drmtop_sleep_until(deadline, stop))
			break;
		if (drmtop_sampler_next(s, &m))
			goto fail;
		rc = emit(opts, &m, shown++);
		if (rc)
			break;
		deadline = drmtop_next_tick(deadline, step, drmtop_mono_ns());
	}
out:
	drmtop_model_fini(&m);
	return rc > 0 ? 1 : 0;
fail:
	fprintf(stderr, "drmtop: %s\n", drmtop_sampler_error(s));
	drmtop_model_fini(&m);
	return 1;
}

/* top and record share their options and the sampler. */
static int run_sampling(int argc, char **argv, enum drmtop_command cmd)
{
	struct drmtop_options opts;
	struct drmtop_sampler *sampler;
	int rc;

	if (drmtop_options_parse(&opts, cmd, argc, argv, stderr))
		return 2;
	if (opts.show_help || opts.show_version) {
		if (opts.show_help)
			drmtop_usage(stdout, "drmtop");
		else
			drmtop_print_version(stdout);
		drmtop_options_free(&opts);
		return 0;
	}
	if (opts.output == DRMTOP_OUT_AUTO)
		opts.output = isatty(STDOUT_FILENO) && cmd == DRMTOP_CMD_TOP ? DRMTOP_OUT_TUI
									       : DRMTOP_OUT_STREAM;
	if (!opts.format)
		opts.format = drmtop_format_find("text");

	/* Before the tracer loads (seconds on a slow machine): a signal then still ends cleanly. */
	stop = drmtop_stop_signals(opts.output == DRMTOP_OUT_TUI);
	if (drmtop_sampler_new(&sampler, &opts, "/dev")) {
		drmtop_options_free(&opts);
		return 1;
	}
	if (cmd == DRMTOP_CMD_RECORD)
		rc = drmtop_record_run(sampler, stop);
	else if (opts.output == DRMTOP_OUT_TUI)
		rc = drmtop_tui_run(sampler, stop) ? 1 : 0;
	else
		rc = run_stream(sampler, &opts);
	drmtop_sampler_free(sampler);
	drmtop_options_free(&opts);
	return rc;
}

static int cmd_top(int argc, char **argv)
{
	return run_sampling(argc, argv, DRMTOP_CMD_TOP);
}

static int cmd_record(int argc, char **argv)
{
	return run_sampling(argc, argv, DRMTOP_CMD_RECORD);
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "top", cmd_top },
	{ "record", cmd_record },
	{ "probe", drmtop_probe_main },
	{ "serve", drmtop_serve_main },
};

int main(int argc, char **argv)
{
	size_t i;

	for (i = 0; argc > 1 && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	if (argc > 1 && argv[1][0] != '-') {
		fprintf(stderr, "drmtop: unknown command '%s' (see --help)\n", argv[1]);
		return 2;
	}
	return cmd_top(argc, argv);
}
