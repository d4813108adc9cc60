// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-tui: the CPU time a full-screen monitor (drmtop's live view, igt's gputop, nvtop)
 * spends per second. Runs the command on a pseudo-terminal of -c columns and -r rows (as a
 * user's terminal: these tools draw only to a terminal), reads and drops what it draws, and
 * reads its CPU time (every thread's run time, /proc/PID/task/T/schedstat) after -w seconds
 * and again -s seconds later. At one refresh a second that is the CPU per refresh. Prints
 * "tui secs=S cpu_ms_per_s=X sched_ms_per_s=Y drawn_kib=D hwm_kib=H", then ends the command
 * with SIGTERM. A command that ends before the window is over is an error: it drew nothing to
 * measure.
 *   bench-tui [-w WARMUP] [-s SECS] [-c COLS] [-r ROWS] -- COMMAND [ARGS...]
 */
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "bench-common.h"

/* The first bytes the command drew, printable: what a command that ended at once said. */
static char first[128];

static void keep_first(const char *buf, size_t n, unsigned long long drawn)
{
	size_t i, at = strlen(first);

	for (i = 0; i < n && drawn + i < sizeof(first) - 1 && at < sizeof(first) - 1; i++)
		first[at++] = buf[i] >= 0x20 && buf[i] < 0x7f ? buf[i] : ' ';
	first[at] = 0;
}

/* Reads and drops what the command drew until @until_ns; false if it ended first. */
static bool drain(int fd, uint64_t until_ns, unsigned long long *drawn)
{
	static char buf[1 << 16];
	uint64_t now;

	while ((now = bench_now_ns()) < until_ns) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left_ms = (int)((until_ns - now) / 1000000) + 1;
		ssize_t n;

		if (poll(&p, 1, left_ms) < 0)
			return false;
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			return false;
		keep_first(buf, (size_t)n, *drawn);
		*drawn += (unsigned long long)n;
	}
	return true;
}

int main(int argc, char **argv)
{
	double warm = 3, secs = 15;
	struct winsize ws = { .ws_row = 50, .ws_col = 160 };
	struct bench_cpu a = { 0 }, b = { 0 };
	unsigned long long drawn = 0, drawn_at_a;
	long hz = sysconf(_SC_CLK_TCK);
	unsigned long hwm;
	int opt, fd, st;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+w:s:c:r:")) != -1) {
		switch (opt) {
		case 'w': warm = bench_parse_secs(optarg); break;
		case 's': secs = bench_parse_secs(optarg); break;
		case 'c': ws.ws_col = (unsigned short)atoi(optarg); break;
		case 'r': ws.ws_row = (unsigned short)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: bench-tui [-w WARMUP] [-s SECS] [-c COLS] [-r ROWS] -- CMD...\n");
			return 2;
		}
	}
	if (optind >= argc || !ws.ws_col || !ws.ws_row) {
		fprintf(stderr, "bench-tui: no command, or bad -c/-r\n");
		return 2;
	}
	pid = forkpty(&fd, NULL, NULL, &ws);
	if (pid < 0) {
		perror("forkpty");
		return 1;
	}
	if (pid == 0) {
		setenv("TERM", "xterm-256color", 1);
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	if (!drain(fd, bench_now_ns() + (uint64_t)(warm * 1e9), &drawn) ||
	    bench_read_cpu(pid, &a)) {
		fprintf(stderr, "bench-tui: %s ended during the warm-up, having drawn %llu bytes: '%s'\n",
			argv[optind], drawn, first);
		goto fail;
	}
	drawn_at_a = drawn;
	if (!drain(fd, a.wall_ns + (uint64_t)(secs * 1e9), &drawn) || bench_read_cpu(pid, &b)) {
		fprintf(stderr, "bench-tui: %s ended during the window\n", argv[optind]);
		goto fail;
	}
	hwm = bench_hwm_kib(pid);
	kill(pid, SIGTERM);
	close(fd);
	waitpid(pid, &st, 0);
	if (drawn == drawn_at_a) {
		fprintf(stderr, "bench-tui: %s drew nothing in %.0f s\n", argv[optind], secs);
		return 1;
	}
	secs = (b.wall_ns - a.wall_ns) / 1e9;
	printf("tui secs=%.1f cpu_ms_per_s=%.2f sched_ms_per_s=%.2f drawn_kib=%llu hwm_kib=%lu\n",
	       secs, (b.ticks - a.ticks) * 1000.0 / hz / secs,
	       (b.sched_ns - a.sched_ns) / 1e6 / secs, (drawn - drawn_at_a) / 1024, hwm);
	return 0;
fail:
	kill(pid, SIGTERM);
	close(fd);
	waitpid(pid, &st, 0);
	return 1;
}
