// SPDX-License-Identifier: GPL-2.0-only
/*
 * cgroup_ids.c: cgroup v2 ids to paths (include/drmtop/cgroup_ids.h). Checked on kernels 6.1,
 * 6.12 and 7.2 (tests/vm/cases/60-drmtop-bpf.sh) and the host's (tests/unit/test_cgroup_ids.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drmtop/cgroup_ids.h"
#include "drmtop/util/strmap.h"

/* include/linux/exportfs.h: kernfs's file handle, its node id (= the cgroup id), 8 bytes */
#define FILEID_KERNFS	0xfe

struct drmtop_cgroup_ids {
	pthread_mutex_t lock;
	int mount_fd;			/* the cgroup2 mount's root, -1 if none */
	char *mount;			/* its mount point */
	char *root;			/* the hierarchy's directory mounted there ("/" mostly) */
	int err;			/* once found, nothing resolves: -ENODEV, -EPERM, ... */
	struct strmap paths;		/* hex id -> malloc'ed path; "" for a cgroup found gone */
	uint64_t order[DRMTOP_CGROUP_IDS_MAX];	/* ids in the order cached: the oldest goes */
	uint64_t added;
};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/*
 * The first cgroup2 mount of @mountinfo, preferring one of the hierarchy's root: its mount point
 * and root into r. "<id> <parent> <dev> <root> <mount point> <options> [<optional>...] - <type>".
 */
static void find_mount(struct drmtop_cgroup_ids *r, const char *mountinfo)
{
	FILE *f = fopen(mountinfo, "re");
	char *line = NULL, *root, *point, *sep, *save;
	size_t cap = 0;

	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		*sep = '\0';
		if (!strtok_r(line, " ", &save) || !strtok_r(NULL, " ", &save) ||
		    !strtok_r(NULL, " ", &save))
			continue;
		root = strtok_r(NULL, " ", &save);
		point = strtok_r(NULL, " ", &save);
		if (!root || !point || (r->mount && strcmp(root, "/")))
			continue;
		unescape(root);
		unescape(point);
		free(r->mount);
		free(r->root);
		r->mount = strdup(point);
		r->root = strdup(root);
		if (!strcmp(root, "/"))
			break;
	}
	free(line);
	fclose(f);
}

struct drmtop_cgroup_ids *drmtop_cgroup_ids_new(const char *mountinfo)
{
	struct drmtop_cgroup_ids *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	pthread_mutex_init(&r->lock, NULL);
	strmap_init(&r->paths);
	r->mount_fd = -1;
	find_mount(r, mountinfo ? mountinfo : "/proc/self/mountinfo");
	if (!r->mount || !r->root)
		r->err = -ENODEV;
	else if ((r->mount_fd = open(r->mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		r->err = -errno;
	return r;
}

const char *drmtop_cgroup_ids_mount(const struct drmtop_cgroup_ids *r)
{
	return r && r->mount_fd >= 0 ? r->mount : NULL;
}

/*
 * The path of @id, malloc'ed, from the directory its handle opens: the link /proc/self/fd
 * shows is a path in this mount namespace, made one in the hierarchy by the mount's root.
 */
static int lookup(struct drmtop_cgroup_ids *r, uint64_t id, char **out)
{
	struct {
		struct file_handle fh;
		unsigned char id[sizeof(uint64_t)];
	} h = { .fh = { .handle_bytes = sizeof(uint64_t), .handle_type = FILEID_KERNFS } };
	char link[64], target[PATH_MAX];
	size_t mlen = strlen(r->mount);
	const char *rest;
	ssize_t n;
	int fd;

	memcpy(h.fh.f_handle, &id, sizeof(id));
	fd = open_by_handle_at(r->mount_fd, &h.fh, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target));
	close(fd);
	if (n < 0)
		return -errno;
	if ((size_t)n >= sizeof(target))
		return -ENAMETOOLONG;
	target[n] = '\0';
	/* d_path's mark of a directory removed while the handle was open */
	if (n > 10 && !strcmp(target + n - 10, " (deleted)"))
		return -ESTALE;
	if (mlen == 1)
		mlen = 0;	/* mounted on "/": every path is under it as it is */
	if (strncmp(target, r->mount, mlen) || (target[mlen] && target[mlen] != '/'))
		return -ESTALE;	/* not under the mount (removed, moved out of sight) */
	rest = target[mlen] ? target + mlen : "/";
	if (strcmp(r->root, "/"))
		n = asprintf(out, "%s%s", r->root, strcmp(rest, "/") ? rest : "");
	else
		n = asprintf(out, "%s", rest);
	return n < 0 ? -ENOMEM : 0;
}

/* Caches @path (taken) for @id, pushing the oldest entry out when full. */
static void cache(struct drmtop_cgroup_ids *r, uint64_t id, char *path)
{
	size_t slot = r->added % DRMTOP_CGROUP_IDS_MAX;
	char key[STRMAP_U64_KEY];

	if (r->added >= DRMTOP_CGROUP_IDS_MAX) {
		strmap_key_u64(key, r->order[slot]);
		free(strmap_get(&r->paths, key));
		strmap_del(&r->paths, key);
	}
	strmap_key_u64(key, id);
	if (strmap_put(&r->paths, key, path)) {
		free(path);
		id = 0;		/* the slot holds nothing */
	}
	r->order[slot] = id;
	r->added++;
}

static int path_locked(struct drmtop_cgroup_ids *r, uint64_t id, char *buf, size_t len)
{
	char key[STRMAP_U64_KEY], *path;
	int err;

	if (r->err)
		return r->err;
	strmap_key_u64(key, id);
	path = strmap_get(&r->paths, key);
	if (!path) {
		err = lookup(r, id, &path);
		/* ids are never reused: one gone stays gone, and is not looked up again */
		if (err == -ESTALE || err == -ENOENT)
			path = strdup("");
		else if (err == -EPERM || err == -EOPNOTSUPP || err == -EBADF)
			return r->err = err;
		else if (err)
			return err;
		if (!path)
			return -ENOMEM;
		cache(r, id, path);
	}
	if (!path[0])
		return -ENOENT;
	if (buf && strlen(path) >= len)
		return -ENAMETOOLONG;
	if (buf)
		strcpy(buf, path);
	return 0;
}

int drmtop_cgroup_ids_path(struct drmtop_cgroup_ids *r, uint64_t id, char *buf, size_t len)
{
	int err;

	if (!r || !id)
		return -ENOENT;
	pthread_mutex_lock(&r->lock);
	err = path_locked(r, id, buf, len);
	pthread_mutex_unlock(&r->lock);
	return err;
}

void drmtop_cgroup_ids_free(struct drmtop_cgroup_ids *r)
{
	char key[STRMAP_U64_KEY];
	size_t i, n;

	if (!r)
		return;
	n = r->added < DRMTOP_CGROUP_IDS_MAX ? r->added : DRMTOP_CGROUP_IDS_MAX;
	for (i = 0; i < n; i++) {
		strmap_key_u64(key, r->order[i]);
		free(strmap_get(&r->paths, key));
		strmap_del(&r->paths, key);
	}
	strmap_fini(&r->paths);
	if (r->mount_fd >= 0)
		close(r->mount_fd);
	free(r->mount);
	free(r->root);
	pthread_mutex_destroy(&r->lock);
	free(r);
}
