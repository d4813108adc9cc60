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
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "bench-common.h"

struct cpu {
	uint64_t ticks;		/* utime + stime */
	uint64_t sched_ns;
	uint64_t wall_ns;
};

static int read_cpu(pid_t pid, struct cpu *c)
{
	char path[64], buf[4096], *p;
	unsigned long long ut, st;
	struct dirent *d;
	DIR *dir;
	FILE *f;
	size_t n;

	c->wall_ns = bench_now_ns();
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	/* after "comm)": state ppid pgrp session tty tpgid flags minflt cminflt majflt
	 * cmajflt utime stime */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	c->ticks = ut + st;
	c->sched_ns = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		unsigned long long run;
		char tp[300];

		if (d->d_name[0] == '.')
			continue;
		snprintf(tp, sizeof(tp), "/proc/%d/task/%s/schedstat", pid, d->d_name);
		f = fopen(tp, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &run) == 1)
			c->sched_ns += run;
		fclose(f);
	}
	closedir(dir);
	return 0;
}

static unsigned long hwm_kib(pid_t pid)
{
	char path[64], line[256];
	unsigned long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %lu", &v) == 1)
			break;
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	int warm = 2, frames = 10, opt, pfd[2], lines = 0, st;
	const char *keep = NULL;
	struct cpu a = { 0 }, b = { 0 };
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
				read_cpu(pid, &a);
			if (lines == warm + frames)
				read_cpu(pid, &b);
		}
	}
	hwm = hwm_kib(pid);
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
