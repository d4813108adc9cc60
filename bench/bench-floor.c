// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-floor OBJ NAME...: loads and attaches the programs NAME... of OBJ (build/bench/
 * floor.bpf.o: empty programs on drmtop's hooks; floor-lookup.bpf.o: each looks up the key
 * this puts in its floor_map), prints "attached N" and holds them until SIGINT or SIGTERM.
 * Fails if a NAME is not in OBJ or does not attach: the floor phases must hook exactly what
 * drmtop hooked (iterators, which hook nothing, are named and skipped).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static bool wanted(const char *name, int argc, char **argv)
{
	int i;

	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

/* The key floor-lookup.bpf.o's programs look up, present as drmtop's mostly are. */
static int add_key(struct bpf_object *obj)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "floor_map");
	uint64_t k = 0, v = 1;

	if (m && bpf_map__update_elem(m, &k, sizeof(k), &v, sizeof(v), 0)) {
		fprintf(stderr, "bench-floor: floor_map: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_program *p;
	struct bpf_object *obj;
	int i, n = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-floor OBJ NAME...\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "bench-floor: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 2; i < argc; i++)
		if (!bpf_object__find_program_by_name(obj, argv[i])) {
			fprintf(stderr, "bench-floor: no program %s in %s\n", argv[i], argv[1]);
			return 1;
		}
	/* iterators run only when drmtop reads them: no hook to measure */
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, wanted(bpf_program__name(p), argc, argv) &&
					     strncmp(bpf_program__section_name(p), "iter/", 5));
	if (bpf_object__load(obj)) {
		fprintf(stderr, "bench-floor: load: %s\n", strerror(errno));
		return 1;
	}
	if (add_key(obj))
		return 1;
	bpf_object__for_each_program(p, obj) {
		if (!bpf_program__autoload(p))
			continue;
		if (!bpf_program__attach(p)) {
			fprintf(stderr, "bench-floor: attach %s: %s\n", bpf_program__name(p),
				strerror(errno));
			return 1;
		}
		n++;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("attached %d\n", n);
	fflush(stdout);
	while (!stop)
		pause();
	bpf_object__close(obj);
	return 0;
}
