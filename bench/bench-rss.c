// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-rss: runs a command, passes SIGINT/SIGTERM on to it, and when it ends prints its peak
 * RSS and CPU time (wait4's rusage) on stderr: "rss maxrss_kib=N user_s=U sys_s=S". Exits
 * with the command's status.
 *   bench-rss COMMAND [ARGS...]
 */
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "bench-common.h"

static pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int main(int argc, char **argv)
{
	struct rusage ru;
	int st;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-rss COMMAND [ARGS...]\n");
		return 2;
	}
	signal(SIGINT, forward);
	signal(SIGTERM, forward);
	child = fork();
	if (child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	while (wait4(child, &st, 0, &ru) < 0)
		if (errno != EINTR) {
			perror("wait4");
			return 1;
		}
	fprintf(stderr, "rss maxrss_kib=%ld user_s=%.3f sys_s=%.3f\n", ru.ru_maxrss,
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
