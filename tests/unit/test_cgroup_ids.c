// SPDX-License-Identifier: GPL-2.0-only
/*
 * cgroup ids to paths (src/sources/cgroup_ids.c) against the host's real cgroup2 hierarchy:
 * cgroups made here (the id is the directory's inode number, as bpf_get_current_cgroup_id()
 * gives it), named back, removed. Without a cgroup2 mount, or without the right to make
 * cgroups and open handles (root), those tests are skipped and say so, never passed.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "drmtop/cgroup_ids.h"

#define DOCKER_SCOPE	"docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope"

struct host {
	struct drmtop_cgroup_ids *r;
	const char *mount;
	char top[PATH_MAX], leaf[2 * PATH_MAX];	/* directories made, under mount */
	char top_name[64];
};

static uint64_t ino_of(const char *dir)
{
	struct stat st;

	assert_int_equal(stat(dir, &st), 0);
	return (uint64_t)st.st_ino;
}

/* A resolver on the host, and a cgroup "/<top>/<docker scope>" made for the test. */
static void host_setup(struct host *h)
{
	h->r = drmtop_cgroup_ids_new(NULL);
	assert_non_null(h->r);
	h->mount = drmtop_cgroup_ids_mount(h->r);
	if (!h->mount) {
		drmtop_cgroup_ids_free(h->r);
		print_message("no cgroup2 mount on this host: not tested\n");
		skip();
	}
	snprintf(h->top_name, sizeof(h->top_name), "drmtop-test-%d", (int)getpid());
	snprintf(h->top, sizeof(h->top), "%s/%s", h->mount, h->top_name);
	snprintf(h->leaf, sizeof(h->leaf), "%s/%s", h->top, DOCKER_SCOPE);
	if (mkdir(h->top, 0755) || mkdir(h->leaf, 0755)) {
		print_message("cannot make a cgroup under %s (%s): not tested\n", h->mount,
			      strerror(errno));
		rmdir(h->top);
		drmtop_cgroup_ids_free(h->r);
		skip();
	}
}

static void host_teardown(struct host *h)
{
	rmdir(h->leaf);
	rmdir(h->top);
	drmtop_cgroup_ids_free(h->r);
}

/* A cgroup made here is named by its path in the hierarchy, as /proc/<pid>/cgroup names it. */
static void test_id_named_while_it_exists(void **state)
{
	char want[PATH_MAX], got[PATH_MAX];
	struct host h;
	int err;

	(void)state;
	host_setup(&h);
	err = drmtop_cgroup_ids_path(h.r, ino_of(h.leaf), got, sizeof(got));
	if (err == -EPERM) {
		host_teardown(&h);
		print_message("no CAP_DAC_READ_SEARCH: not tested\n");
		skip();
	}
	assert_int_equal(err, 0);
	snprintf(want, sizeof(want), "/%s/%s", h.top_name, DOCKER_SCOPE);
	assert_string_equal(got, want);
	assert_int_equal(drmtop_cgroup_ids_path(h.r, ino_of(h.top), got, sizeof(got)), 0);
	snprintf(want, sizeof(want), "/%s", h.top_name);
	assert_string_equal(got, want);
	assert_int_equal(drmtop_cgroup_ids_path(h.r, ino_of(h.mount), got, sizeof(got)), 0);
	assert_string_equal(got, "/");
	/* too small a buffer is said, not cut */
	assert_int_equal(drmtop_cgroup_ids_path(h.r, ino_of(h.leaf), got, 8), -ENAMETOOLONG);
	host_teardown(&h);
}

/* This process's own cgroup, by the kernel's word (/proc/self/cgroup's "0::" line). */
static void test_own_cgroup_as_proc_says(void **state)
{
	char line[PATH_MAX + 8], dir[2 * PATH_MAX], got[PATH_MAX];
	const char *own = NULL;
	struct host h;
	FILE *f;

	(void)state;
	host_setup(&h);
	f = fopen("/proc/self/cgroup", "re");
	assert_non_null(f);
	while (!own && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3))
			own = line + 3;
	fclose(f);
	assert_non_null(own);
	line[strcspn(line, "\n")] = '\0';
	snprintf(dir, sizeof(dir), "%s%s", h.mount, strcmp(own, "/") ? own : "");
	assert_int_equal(drmtop_cgroup_ids_path(h.r, ino_of(dir), got, sizeof(got)), 0);
	assert_string_equal(got, own);
	host_teardown(&h);
}

/*
 * Once named, a cgroup keeps its name after it is removed (a container's scope goes when it
 * stops, before the refresh that reports its client's close); one removed before it was ever
 * named has none. The cache is bounded: DRMTOP_CGROUP_IDS_MAX more ids push it out.
 */
static void test_removed_cgroup_keeps_its_cached_path(void **state)
{
	struct drmtop_cgroup_ids *fresh;
	char got[PATH_MAX], want[PATH_MAX];
	struct host h;
	uint64_t id, i;

	(void)state;
	host_setup(&h);
	id = ino_of(h.leaf);
	assert_int_equal(drmtop_cgroup_ids_path(h.r, id, NULL, 0), 0);
	assert_int_equal(rmdir(h.leaf), 0);
	assert_int_equal(drmtop_cgroup_ids_path(h.r, id, got, sizeof(got)), 0);
	snprintf(want, sizeof(want), "/%s/%s", h.top_name, DOCKER_SCOPE);
	assert_string_equal(got, want);

	fresh = drmtop_cgroup_ids_new(NULL);
	assert_int_equal(drmtop_cgroup_ids_path(fresh, id, got, sizeof(got)), -ENOENT);
	drmtop_cgroup_ids_free(fresh);

	/* ids no cgroup has (kernfs ids are far below 2^62 here): each takes a cache slot */
	for (i = 0; i < DRMTOP_CGROUP_IDS_MAX; i++)
		assert_int_equal(drmtop_cgroup_ids_path(h.r, (1ull << 62) + i, NULL, 0), -ENOENT);
	assert_int_equal(drmtop_cgroup_ids_path(h.r, id, got, sizeof(got)), -ENOENT);
	assert_int_equal(drmtop_cgroup_ids_path(h.r, 0, got, sizeof(got)), -ENOENT);
	host_teardown(&h);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/*
 * The mount is found in mountinfo whatever else it lists; a mount of a subtree (root field not
 * "/") gives paths in the whole hierarchy, as /proc/<pid>/cgroup does outside cgroup
 * namespaces; with no cgroup2 mount nothing resolves, and says why.
 */
static void test_mountinfo(void **state)
{
	char mi[] = "/tmp/drmtop-mountinfo-XXXXXX", text[3 * PATH_MAX], got[PATH_MAX];
	struct drmtop_cgroup_ids *r;
	struct host h;
	int fd, err;

	(void)state;
	fd = mkstemp(mi);
	assert_true(fd >= 0);
	close(fd);
	write_file(mi, "22 1 0:21 / /proc rw - proc proc rw\n"
		       "31 23 0:28 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n");
	r = drmtop_cgroup_ids_new(mi);
	assert_null(drmtop_cgroup_ids_mount(r));
	assert_int_equal(drmtop_cgroup_ids_path(r, 1, got, sizeof(got)), -ENODEV);
	drmtop_cgroup_ids_free(r);
	r = drmtop_cgroup_ids_new("/nonexistent/mountinfo");
	assert_int_equal(drmtop_cgroup_ids_path(r, 1, got, sizeof(got)), -ENODEV);
	drmtop_cgroup_ids_free(r);

	host_setup(&h);
	/* the same mount, said to hold /kube\040pods (an escaped space) of the hierarchy */
	snprintf(text, sizeof(text),
		 "22 1 0:21 / /proc rw - proc proc rw\n"
		 "41 31 0:38 /kube\\040pods %s rw,relatime - cgroup2 cgroup2 rw\n", h.mount);
	write_file(mi, text);
	r = drmtop_cgroup_ids_new(mi);
	assert_string_equal(drmtop_cgroup_ids_mount(r), h.mount);
	err = drmtop_cgroup_ids_path(r, ino_of(h.top), got, sizeof(got));
	drmtop_cgroup_ids_free(r);
	unlink(mi);
	host_teardown(&h);
	if (err == -EPERM) {
		print_message("no CAP_DAC_READ_SEARCH: subtree mounts not tested\n");
		skip();
	}
	assert_int_equal(err, 0);
	snprintf(text, sizeof(text), "/kube pods/%s", h.top_name);
	assert_string_equal(got, text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_id_named_while_it_exists),
		cmocka_unit_test(test_own_cgroup_as_proc_says),
		cmocka_unit_test(test_removed_cgroup_keeps_its_cached_path),
		cmocka_unit_test(test_mountinfo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
