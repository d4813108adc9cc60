/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench-common.h: what the bench/ loop programs share: the clock, a process's CPU time and
 * peak RSS, finding simgpu's render node, and the one-line result they print ("<name> ops=N secs=S ns_per_op=X ops_per_s=Y").
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <drm.h>

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CPU time of a process: user+sys (clock ticks), every thread's run time, and when read. */
struct bench_cpu {
	uint64_t ticks;		/* utime + stime */
	uint64_t sched_ns;
	uint64_t wall_ns;
};

static inline int bench_read_cpu(pid_t pid, struct bench_cpu *c)
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

static inline unsigned long bench_hwm_kib(pid_t pid)
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

/* The render node whose DRM_IOCTL_VERSION name is "simgpu", or NULL. */
static inline const char *bench_find_simgpu(void)
{
	static char path[64];
	int minor;

	for (minor = 128; minor < 192; minor++) {
		struct drm_version v;
		char name[32] = "";
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/renderD%d", minor);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(&v, 0, sizeof(v));
		v.name = name;
		v.name_len = sizeof(name) - 1;
		if (ioctl(fd, DRM_IOCTL_VERSION, &v) == 0 && strcmp(name, "simgpu") == 0) {
			close(fd);
			return path;
		}
		close(fd);
	}
	return NULL;
}

/* @node, or simgpu's render node when NULL, opened read-write; -1 (said on stderr) if not. */
static inline int bench_open_node(const char *node, const char *prog)
{
	int fd;

	if (!node && !(node = bench_find_simgpu())) {
		fprintf(stderr, "%s: no simgpu render node\n", prog);
		return -1;
	}
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		perror(node);
	return fd;
}

static inline double bench_parse_secs(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v <= 0) {
		fprintf(stderr, "bad duration '%s' (seconds)\n", s);
		exit(2);
	}
	return v;
}

static inline void bench_result(const char *name, uint64_t ops, uint64_t ns)
{
	printf("%s ops=%llu secs=%.3f ns_per_op=%.1f ops_per_s=%.1f\n", name,
	       (unsigned long long)ops, ns / 1e9, ops ? (double)ns / ops : 0.0,
	       ns ? ops * 1e9 / ns : 0.0);
}

#endif /* BENCH_COMMON_H */
