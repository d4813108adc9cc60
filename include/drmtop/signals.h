/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The signals that end drmtop (SIGINT, SIGTERM, SIGHUP): each sets a flag the running command
 * checks, so it stops at the end of what it is doing, with its output whole and status 0.
 */
#ifndef DRMTOP_SIGNALS_H
#define DRMTOP_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * Installs the handlers and returns the flag they set. SIGHUP that was ignored when drmtop
 * started (nohup) stays ignored unless @hup_always (the live view cannot outlive its terminal).
 */
const volatile sig_atomic_t *drmtop_stop_signals(bool hup_always);
/* The set of those signals, for threads and loops that block them. */
void drmtop_stop_sigset(sigset_t *set);
/*
 * Sleeps until the monotonic time @deadline_ns or until *@stop is set, whichever is first.
 * No signal is lost between the check of *@stop and the sleep. Returns *@stop.
 */
bool drmtop_sleep_until(uint64_t deadline_ns, const volatile sig_atomic_t *stop);

#endif /* DRMTOP_SIGNALS_H */
