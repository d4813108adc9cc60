// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-spawn: a population for the refresh-cost benchmark. Forks -p sleeping processes (no
 * exec: cheap under QEMU TCG), the first -c of which each hold one DRM client of the render
 * node, prints "ready" once all are in place and keeps them until SIGTERM/SIGINT, then ends
 * them all. Each sleeper has the usual three descriptors; a client holder has three more
 * than it holds clients (-k per holder, default 1).
 *   bench-spawn [-D /dev/dri/renderDN] [-p PROCS] [-c HOLDERS] [-k CLIENTS_PER_HOLDER]
 */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "bench-common.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	const char *node = NULL;
	int procs = 2000, clients = 100, per = 1, opt, i, k, ready[2];
	pid_t *pids;
	char c;

	while ((opt = getopt(argc, argv, "D:p:c:k:")) != -1) {
		switch (opt) {
		case 'D': node = optarg; break;
		case 'p': procs = atoi(optarg); break;
		case 'c': clients = atoi(optarg); break;
		case 'k': per = atoi(optarg); break;
		default: fprintf(stderr, "usage: bench-spawn [-D NODE] [-p PROCS] [-c HOLDERS] [-k PER]\n");
			return 2;
		}
	}
	if (procs < 0 || clients < 0 || clients > procs) {
		fprintf(stderr, "bench-spawn: need 0 <= CLIENTS <= PROCS\n");
		return 2;
	}
	if (clients && !node && !(node = bench_find_simgpu())) {
		fprintf(stderr, "bench-spawn: no simgpu render node\n");
		return 1;
	}
	pids = calloc(procs ? procs : 1, sizeof(*pids));
	if (!pids || pipe(ready)) {
		perror("bench-spawn");
		return 1;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	for (i = 0; i < procs; i++) {
		pid_t p = fork();

		if (p < 0) {
			perror("fork");
			stop = 1;
			break;
		}
		if (p == 0) {
			int fd = -1;

			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			prctl(PR_SET_NAME, i < clients ? "bench-client" : "bench-sleeper");
			close(ready[0]);
			for (k = 0; i < clients && k < per; k++)
				if ((fd = open(node, O_RDWR)) < 0)
					_exit(1);
			if (write(ready[1], "r", 1) != 1)
				_exit(1);
			close(ready[1]);
			for (;;)
				pause();
		}
		pids[i] = p;
	}
	close(ready[1]);
	for (opt = 0; opt < procs && read(ready[0], &c, 1) == 1; opt++)
		;
	if (opt < procs) {
		fprintf(stderr, "bench-spawn: only %d of %d processes came up\n", opt, procs);
		stop = 1;
	} else {
		printf("ready procs=%d clients=%d\n", procs, clients * per);
		fflush(stdout);
	}
	while (!stop)
		pause();
	for (i = 0; i < procs; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	return opt < procs;
}
