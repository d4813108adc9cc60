// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-jobs: GPU job throughput through simgpu. -c processes, each its own DRM client, submit
 * zero-duration jobs (simgpu's duration_ns = 0) in batches of -b and wait for each batch's last
 * job, for -t seconds; client i uses engine i % 3 (gfx, compute, copy) unless -e names one.
 * Prints the jobs completed by all clients per second. Each job goes through drm_sched's queue,
 * run and done tracepoints, the SUBMIT and WAIT ioctls (drm_ioctl) and drm_sched_job_cleanup:
 * every per-job hook of drmtop.
 *   bench-jobs [-D /dev/dri/renderDN] [-c CLIENTS] [-t SECS] [-b BATCH] [-e 0|1|2]
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "bench-common.h"
#include "../tests/kmod/simgpu/simgpu_drm.h"

struct slot {
	uint64_t jobs;
	uint64_t ns;
	int err;
};

static int run_client(const char *node, int engine, int batch, double secs, int go,
		      struct slot *out)
{
	uint64_t t0, t1, jobs = 0;
	char c;
	int fd = open(node, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		out->err = errno;
		return 1;
	}
	if (read(go, &c, 1) < 0)	/* the start line: the parent closes its end */
		return 1;
	t0 = bench_now_ns();
	t1 = t0 + (uint64_t)(secs * 1e9);
	do {
		struct drm_simgpu_submit s;
		struct drm_simgpu_wait w;
		int i;

		for (i = 0; i < batch; i++) {
			memset(&s, 0, sizeof(s));
			s.engine = engine;
			s.duration_ns = 0;
			if (ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s)) {
				out->err = errno;
				return 1;
			}
		}
		memset(&w, 0, sizeof(w));
		w.engine = engine;
		w.seqno = s.seqno;
		w.timeout_ns = -1;
		while (ioctl(fd, DRM_IOCTL_SIMGPU_WAIT, &w))
			if (errno != EINTR) {
				out->err = errno;
				return 1;
			}
		jobs += batch;
	} while (bench_now_ns() < t1);
	out->ns = bench_now_ns() - t0;
	out->jobs = jobs;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *node = NULL;
	int clients = 6, batch = 16, engine = -1, opt, i, fail = 0, go[2];
	double secs = 2;
	struct slot *slots;
	uint64_t jobs = 0, ns = 0;

	while ((opt = getopt(argc, argv, "D:c:t:b:e:")) != -1) {
		switch (opt) {
		case 'D': node = optarg; break;
		case 'c': clients = atoi(optarg); break;
		case 't': secs = bench_parse_secs(optarg); break;
		case 'b': batch = atoi(optarg); break;
		case 'e': engine = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: bench-jobs [-D NODE] [-c CLIENTS] [-t SECS] [-b BATCH] [-e ENGINE]\n");
			return 2;
		}
	}
	if (clients < 1 || clients > 1024 || batch < 1 || engine > 2) {
		fprintf(stderr, "bench-jobs: bad -c, -b or -e\n");
		return 2;
	}
	if (!node && !(node = bench_find_simgpu())) {
		fprintf(stderr, "bench-jobs: no simgpu render node\n");
		return 1;
	}
	slots = mmap(NULL, clients * sizeof(*slots), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (slots == MAP_FAILED || pipe(go)) {
		perror("bench-jobs");
		return 1;
	}
	memset(slots, 0, clients * sizeof(*slots));
	for (i = 0; i < clients; i++) {
		pid_t p = fork();

		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (p == 0) {
			close(go[1]);
			int e = engine >= 0 ? engine : i % SIMGPU_ENGINE_COUNT;

			_exit(run_client(node, e, batch, secs, go[0], &slots[i]));
		}
	}
	close(go[0]);
	usleep(200000);		/* let every child open its client first */
	close(go[1]);
	for (i = 0; i < clients; i++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			fail = 1;
	}
	for (i = 0; i < clients; i++) {
		if (slots[i].err) {
			fprintf(stderr, "bench-jobs: client %d: %s\n", i, strerror(slots[i].err));
			fail = 1;
		}
		jobs += slots[i].jobs;
		if (slots[i].ns > ns)
			ns = slots[i].ns;
	}
	if (fail)
		return 1;
	bench_result("jobs", jobs, ns);
	return 0;
}
