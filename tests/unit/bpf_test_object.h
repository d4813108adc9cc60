/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_test_object.h: bpf/drmtop_test.bpf.c loaded for the tests that run the tracer's helpers
 * through BPF_PROG_TEST_RUN. Root is needed: without it the test fails and says so, it never
 * skips (CI runs as root).
 */
#ifndef DRMTOP_TEST_BPF_TEST_OBJECT_H
#define DRMTOP_TEST_BPF_TEST_OBJECT_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "drmtop_test.skel.h"

/* The loaded test object, or NULL once @who said why not. */
static inline struct drmtop_test_bpf *bpf_test_object_load(const char *who)
{
	struct drmtop_test_bpf *skel;

	if (geteuid() != 0) {
		fprintf(stderr, "%s: must run as root to load BPF programs (BPF_PROG_TEST_RUN); "
			"uid is %u\n", who, geteuid());
		return NULL;
	}
	skel = drmtop_test_bpf__open_and_load();
	if (!skel)
		fprintf(stderr, "%s: loading bpf/drmtop_test.bpf.c failed: %s\n", who,
			strerror(errno));
	return skel;
}

#endif /* DRMTOP_TEST_BPF_TEST_OBJECT_H */
