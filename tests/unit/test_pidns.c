// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which pid namespace the tracer translates tgids into (drmtop_pidns_of): none (0) in the
 * initial namespace or when it cannot be told; the namespace's inode inside another, as
 * bpf/drmtop_pidns.bpf.h compares it with pid_namespace.ns.inum.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "drmtop/bpf_tracer.h"

#define PID_INIT_INO	0xEFFFFFFCu	/* the kernel's PROC_PID_INIT_INO */

static void unknown_is_no_translation(void **state)
{
	(void)state;
	assert_int_equal(drmtop_pidns_of("/nonexistent/ns/pid"), 0);
}

/* Here: the inode of this process's namespace, or 0 if that is the initial one. */
static void own_namespace(void **state)
{
	struct stat st;

	(void)state;
	assert_int_equal(stat("/proc/self/ns/pid", &st), 0);
	assert_int_equal(drmtop_pidns_of("/proc/self/ns/pid"),
			 st.st_ino == PID_INIT_INO ? 0 : st.st_ino);
}

/* In a grandchild: 0 when drmtop_pidns_of gives its new namespace's inode, non-zero if not. */
static int check_in_new_namespace(void)
{
	struct stat st;
	__u64 ino;

	if (stat("/proc/self/ns/pid", &st))
		return 2;
	ino = drmtop_pidns_of("/proc/self/ns/pid");
	return ino && ino == st.st_ino && ino != PID_INIT_INO ? 0 : 3;
}

/* A process in a pid namespace of its own (a container's) is told to translate into it. */
static void child_namespace(void **state)
{
	int status = -1;
	pid_t child;

	(void)state;
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		pid_t inner;

		if (unshare(CLONE_NEWPID))
			_exit(errno == EPERM || errno == EINVAL ? 77 : 1);
		inner = fork();	/* the first child after unshare is the namespace's pid 1 */
		if (inner < 0)
			_exit(1);
		if (!inner)
			_exit(check_in_new_namespace());
		if (waitpid(inner, &status, 0) != inner || !WIFEXITED(status))
			_exit(1);
		_exit(WEXITSTATUS(status));
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();	/* not privileged for CLONE_NEWPID here: not run, and said so */
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unknown_is_no_translation),
		cmocka_unit_test(own_namespace),
		cmocka_unit_test(child_namespace),
	};

	return cmocka_run_group_tests_name("pidns", tests, NULL, NULL);
}
