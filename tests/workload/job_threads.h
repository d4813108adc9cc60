/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The threads that put jobs on simgpu: a burst of submits, a duty cycle, a stream. Each records
 * every job SUBMIT accepted in the shared record; a failing ioctl ends the thread with err set.
 */
#ifndef WL_JOB_THREADS_H
#define WL_JOB_THREADS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"

#define WL_MAX_HANDLES		64
/* No job of a few ms takes this long, even under QEMU TCG. */
#define WL_WAIT_TIMEOUT_NS	(120LL * 1000000000)

struct job_arg {
	int fd, client, engine;
	uint64_t dur_ns;
	/* submit */
	unsigned int count;
	enum wl_wait wait;
	unsigned int nr_handles;
	uint32_t handles[WL_MAX_HANDLES];
	/* duty */
	int phase;
	uint64_t period_ns, for_ns;
	bool until_stop;
	const atomic_bool *quit;	/* the process's "exit" with threads still running */
	/* result */
	int err;
	const char *what;
	pthread_t thread;
};

struct stream_arg {
	unsigned int n;
	int fd[WL_STREAM_MAX], client[WL_STREAM_MAX], phase[WL_STREAM_MAX];
	uint64_t ns[WL_STREAM_MAX];
	int engine;
	uint64_t backlog_ns, for_ns;
	bool until_stop;
	const atomic_bool *quit;
	int err;
	const char *what;
	pthread_t thread;
};

/* Each takes its struct job_arg / struct stream_arg. */
void *wl_submit_thread(void *arg);
void *wl_duty_thread(void *arg);
void *wl_stream_thread(void *arg);

#endif
