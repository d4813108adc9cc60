/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgroup v2 ids to paths (src/sources/cgroup_ids.c). The tracer records the cgroup id of a
 * client's opener (drmtop_client.cgroup_id); a client that lived between two refreshes has no
 * process left whose /proc/<pid>/cgroup could name it, so its cgroup is found from the id: the
 * id is the cgroup directory's kernfs node id, which open_by_handle_at() on the cgroup2 mount
 * takes as a file handle (needs CAP_DAC_READ_SEARCH). Only a cgroup that still exists resolves;
 * paths are cached (bounded), so a cgroup removed after it was first resolved keeps its path.
 * Safe to call from several threads (the tracer's drain thread resolves close records as they
 * come, while the cgroup is most likely still there).
 */
#ifndef DRMTOP_CGROUP_IDS_H
#define DRMTOP_CGROUP_IDS_H

#include <stddef.h>
#include <stdint.h>

#define DRMTOP_CGROUP_IDS_MAX	4096	/* ids cached; the oldest goes first */

struct drmtop_cgroup_ids;

/*
 * A resolver on the first cgroup2 mount listed in @mountinfo (NULL: /proc/self/mountinfo: the
 * mount must be in drmtop's own mount namespace, whatever --proc-root says). Never NULL unless
 * out of memory: without a cgroup2 mount or the right to open handles nothing resolves.
 */
struct drmtop_cgroup_ids *drmtop_cgroup_ids_new(const char *mountinfo);
void drmtop_cgroup_ids_free(struct drmtop_cgroup_ids *r);

/* Where the cgroup2 hierarchy it resolves in is mounted ("/sys/fs/cgroup"), or NULL if none. */
const char *drmtop_cgroup_ids_mount(const struct drmtop_cgroup_ids *r);

/*
 * Copies the path of cgroup @id, as /proc/<pid>/cgroup would print it ("/system.slice/x.scope",
 * "/" for the root), into @buf (@len bytes; @buf NULL: only resolve and cache). 0, -ENOENT
 * (id 0, or a cgroup gone before it was first resolved), -ENODEV (no cgroup2 mount), -EPERM
 * (no right to open handles), -ENAMETOOLONG, or another -errno of the lookup (not cached).
 */
int drmtop_cgroup_ids_path(struct drmtop_cgroup_ids *r, uint64_t id, char *buf, size_t len);

#endif /* DRMTOP_CGROUP_IDS_H */
