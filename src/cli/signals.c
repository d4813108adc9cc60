// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stop signals. SA_RESTART matters: a signal that arrives while a frame or the record's
 * summary waits in write() for a slow reader (a full pipe) would otherwise fail that write with
 * EINTR, and stdio drops the buffer it held: a frame cut in two, or 4 KiB missing from the middle
 * of a summary that may still parse. With SA_RESTART the write goes on and the loop sees the flag
 * after it. Sleeps still end at once: clock_nanosleep, poll and ppoll are never restarted
 * (signal(7)), which is what the live view's getch() and drmtop_sleep_until() rely on.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include "drmtop/signals.h"
#include "drmtop/util/clock.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

void drmtop_stop_sigset(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

const volatile sig_atomic_t *drmtop_stop_signals(bool hup_always)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	drmtop_stop_sigset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/*
	 * nohup(1) ignores SIGHUP so that a command outlives the terminal it was started from: a
	 * handler of our own would undo that. SIGINT is handled even when ignored: a shell without
	 * job control starts background commands with SIGINT ignored, and scripts end a background
	 * record with kill -INT, as they do perf record.
	 */
	if (hup_always || sigaction(SIGHUP, NULL, &old) || old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return &stop_requested;
}

bool drmtop_sleep_until(uint64_t deadline_ns, const volatile sig_atomic_t *stop)
{
	sigset_t block, old;

	/*
	 * Blocked from the check to the sleep, unblocked by ppoll() atomically: a signal landing
	 * between the two would otherwise be noticed only at the deadline, up to -d (a day) later.
	 */
	drmtop_stop_sigset(&block);
	sigprocmask(SIG_BLOCK, &block, &old);
	for (;;) {
		uint64_t now = drmtop_mono_ns();
		struct timespec ts;

		if (*stop || now >= deadline_ns)
			break;
		ts.tv_sec = (time_t)((deadline_ns - now) / 1000000000ull);
		ts.tv_nsec = (long)((deadline_ns - now) % 1000000000ull);
		if (ppoll(NULL, 0, &ts, &old) < 0 && errno != EINTR)
			break;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return *stop;
}
