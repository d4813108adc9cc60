// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-refresh: the CPU time a frame-printing command (drmtop -J) spends per frame. Runs the
 * command with its stdout on a pipe, counts the lines (one JSON frame each), and reads the
 * command's CPU time after frame -w (warm-up: BPF load and attach come before it) and after
 * frame -w + -n: user+sys from /proc/PID/stat (clock ticks) and the scheduler's run time of
 * every thread (/proc/PID/task/T/schedstat, ns). Prints per-frame means and the peak RSS
 * (VmHWM), then ends the command with SIGTERM.
 *   bench-refresh [-w WARMUP] [-n FRAMES] [-o FILE] -- COMMAND [ARGS...]
 * -o keeps the last frame in FILE.
 */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "bench-common.h"

int main(int argc, char **argv)
{
	int warm = 2, frames = 10, opt, pfd[2], lines = 0, st;
	const char *keep = NULL;
	struct bench_cpu a = { 0 }, b = { 0 };
	static char buf[1 << 16];
	FILE *kf = NULL;
	long hz = sysconf(_SC_CLK_TCK);
	unsigned long hwm = 0;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+w:n:o:")) != -1) {
		switch (opt) {
		case 'w': warm = atoi(optarg); break;
		case 'n': frames = atoi(optarg); break;
		case 'o': keep = optarg; break;
		default:
			fprintf(stderr, "usage: bench-refresh [-w WARMUP] [-n FRAMES] [-o FILE] -- CMD...\n");
			return 2;
		}
	}
	if (optind >= argc || warm < 1 || frames < 1) {
		fprintf(stderr, "bench-refresh: no command, or bad -w/-n\n");
		return 2;
	}
	if (keep && !(kf = fopen(keep, "w"))) {
		perror(keep);
		return 1;
	}
	if (pipe(pfd)) {
		perror("pipe");
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	close(pfd[1]);
	while (lines < warm + frames) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		ssize_t n, i;

		if (poll(&p, 1, 600000) <= 0) {
			fprintf(stderr, "bench-refresh: no frame for 600 s\n");
			break;
		}
		n = read(pfd[0], buf, sizeof(buf));
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			if (kf && lines == warm + frames - 1)
				fputc(buf[i], kf);
			if (buf[i] != '\n')
				continue;
			lines++;
			if (lines == warm)
				bench_read_cpu(pid, &a);
			if (lines == warm + frames)
				bench_read_cpu(pid, &b);
		}
	}
	hwm = bench_hwm_kib(pid);
	kill(pid, SIGTERM);
	close(pfd[0]);
	waitpid(pid, &st, 0);
	if (kf)
		fclose(kf);
	if (lines < warm + frames) {
		fprintf(stderr, "bench-refresh: %d of %d frames\n", lines, warm + frames);
		return 1;
	}
	printf("refresh frames=%d cpu_ms_per_frame=%.2f sched_ms_per_frame=%.2f wall_ms_per_frame=%.1f hwm_kib=%lu\n",
	       frames, (b.ticks - a.ticks) * 1000.0 / hz / frames,
	       (b.sched_ns - a.sched_ns) / 1e6 / frames, (b.wall_ns - a.wall_ns) / 1e6 / frames,
	       hwm);
	return 0;
}
