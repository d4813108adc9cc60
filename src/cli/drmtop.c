// SPDX-License-Identifier: GPL-2.0-only
/*
 * drmtop: per-client GPU and accelerator usage.
 *
 * The first figure of a rate needs two samples, so batch and JSON output show their first frame
 * one interval after start, except when there is no client at all: then there is nothing to
 * measure and the frame says so at once.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "drmtop/options.h"
#include "drmtop/output.h"
#include "drmtop/record.h"
#include "drmtop/sampler.h"
#include "drmtop/tui.h"

#ifndef DRMTOP_VERSION
#define DRMTOP_VERSION "0.1.0"
#endif

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: sleeps end early on a signal */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Sleeps until the absolute monotonic time @deadline_ns or a stop signal. */
static void sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / 1000000000ull),
		.tv_nsec = (long)(deadline_ns % 1000000000ull),
	};

	while (!stop_requested &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int emit(const struct drmtop_options *opts, const struct drmtop_frame *f)
{
	int rc = opts->output == DRMTOP_OUT_JSON ? drmtop_json_frame(stdout, f)
						 : drmtop_text_frame(stdout, f);

	if (rc && errno != EPIPE)
		fprintf(stderr, "drmtop: cannot write output: %s\n", strerror(errno));
	return rc;
}

static int run_batch(struct drmtop_sampler *s, const struct drmtop_options *opts)
{
	uint64_t step = (uint64_t)(opts->interval_s * 1e9), deadline;
	unsigned long shown = 0;
	struct drmtop_frame f;
	int err;

	err = drmtop_sampler_next(s, &f);
	if (err)
		return 1;
	if (!f.nr_clients) {
		f.iteration = shown + 1;
		if (emit(opts, &f))
			return errno == EPIPE ? 0 : 1;
		shown++;
		/* Without -n, a machine with no device would print the same frame forever. */
		if (f.status == DRMTOP_STATUS_NO_DEVICE && !opts->iterations)
			return 0;
	}
	deadline = drmtop_mono_ns() + step;
	while (!stop_requested && (!opts->iterations || shown < opts->iterations)) {
		sleep_until(deadline);
		if (stop_requested)
			break;
		deadline += step;
		err = drmtop_sampler_next(s, &f);
		if (err)
			return 1;
		/* Frames shown, counted from 1: the baseline sample above is not one of them. */
		f.iteration = shown + 1;
		if (emit(opts, &f))
			return errno == EPIPE ? 0 : 1;
		shown++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct drmtop_options opts;
	struct drmtop_sampler sampler;
	int rc;

	if (drmtop_options_parse(&opts, argc, argv, stderr))
		return 2;
	if (opts.show_help) {
		drmtop_usage(stdout, "drmtop");
		drmtop_options_free(&opts);
		return 0;
	}
	if (opts.show_version) {
		printf("drmtop %s\n", DRMTOP_VERSION);
		drmtop_options_free(&opts);
		return 0;
	}
	if (opts.output == DRMTOP_OUT_AUTO)
		opts.output = isatty(STDOUT_FILENO) ? DRMTOP_OUT_TUI : DRMTOP_OUT_BATCH;

	install_signals();
	if (drmtop_sampler_init(&sampler, &opts, "/dev")) {
		drmtop_options_free(&opts);
		return 1;
	}
	if (opts.command == DRMTOP_CMD_RECORD)
		rc = drmtop_record_run(&sampler, &stop_requested);
	else if (opts.output == DRMTOP_OUT_TUI)
		rc = drmtop_tui_run(&sampler, &stop_requested) ? 1 : 0;
	else
		rc = run_batch(&sampler, &opts);
	drmtop_sampler_fini(&sampler);
	drmtop_options_free(&opts);
	return rc;
}
