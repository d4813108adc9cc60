// SPDX-License-Identifier: GPL-2.0-only
/*
 * heapwatch.so (built by tests/vm/vm.mk), LD_PRELOADed into drmtop by the churn soak
 * (tests/vm/cases/90-drmtop-soak.sh): every HEAPWATCH_MS (default 250) ms a thread of its own
 * appends "<CLOCK_MONOTONIC ns> <bytes>" to HEAPWATCH_FILE, bytes being what malloc has handed
 * out and not had back (mallinfo2: in use in the arenas plus mmapped chunks). VmRSS counts the
 * pages a process has touched, so a large allocation filled slowly (the tracer reader's ring of
 * the last 4096 closed clients) grows it like a leak would until it is full; malloc counts that
 * allocation whole from the start, so a leak is what makes this figure climb. Run the program
 * with GLIBC_TUNABLES=glibc.malloc.tcache_count=0: mallinfo2 counts chunks parked in the
 * per-thread cache as in use, and that cache fills a size class at a time as the sizes seen
 * vary, a slow bounded creep that looks like a small leak (17 bytes a client over 600 churned
 * fdinfo clients on the host).
 */
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static FILE *out;
static long period_ms = 250;

static void *watch(void *arg)
{
	struct timespec ts, nap = {
		.tv_sec = period_ms / 1000,
		.tv_nsec = period_ms % 1000 * 1000000,
	};

	(void)arg;
	for (;;) {
		struct mallinfo2 mi = mallinfo2();

		clock_gettime(CLOCK_MONOTONIC, &ts);
		fprintf(out, "%lld %zu\n", (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec,
			mi.uordblks + mi.hblkhd);
		fflush(out);
		nanosleep(&nap, NULL);
	}
	return NULL;
}

__attribute__((constructor)) static void heapwatch_start(void)
{
	const char *path = getenv("HEAPWATCH_FILE"), *ms = getenv("HEAPWATCH_MS");
	sigset_t all, old;
	pthread_t th;

	if (!path || !(out = fopen(path, "a")))
		return;
	if (ms && atol(ms) > 0)
		period_ms = atol(ms);
	/* Every signal stays with the program's own threads: drmtop's sleep must see its stop. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (!pthread_create(&th, NULL, watch, NULL))
		pthread_detach(th);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
