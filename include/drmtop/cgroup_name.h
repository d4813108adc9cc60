/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a cgroup v2 path says about the workload a process belongs to, from the names systemd,
 * Docker, Podman, containerd, CRI-O and the kubelet give the cgroups they make: the systemd
 * unit and slice, the container (its runtime and id) and the Kubernetes pod (UID, QoS class).
 */
#ifndef DRMTOP_CGROUP_NAME_H
#define DRMTOP_CGROUP_NAME_H

#include <stddef.h>

enum drmtop_runtime {
	DRMTOP_RUNTIME_NONE,
	DRMTOP_RUNTIME_DOCKER,
	DRMTOP_RUNTIME_PODMAN,
	DRMTOP_RUNTIME_CONTAINERD,
	DRMTOP_RUNTIME_CRIO,
	DRMTOP_RUNTIME_CRI,		/* a pod's container under the cgroupfs driver: no prefix */
};

enum drmtop_pod_qos {
	DRMTOP_QOS_NONE,		/* not in a pod */
	DRMTOP_QOS_GUARANTEED,
	DRMTOP_QOS_BURSTABLE,
	DRMTOP_QOS_BESTEFFORT,
};

#define DRMTOP_CONTAINER_ID_LEN	64	/* hex digits */
#define DRMTOP_POD_UID_LEN	36	/* 8-4-4-4-12 */
#define DRMTOP_UNIT_NAME_MAX	256	/* systemd's own limit on unit names */

struct drmtop_cgroup_name {
	enum drmtop_runtime runtime;
	char container[DRMTOP_CONTAINER_ID_LEN + 1];	/* "" outside containers */
	char pod[DRMTOP_POD_UID_LEN + 1];		/* "" outside pods; with dashes */
	enum drmtop_pod_qos qos;
	char unit[DRMTOP_UNIT_NAME_MAX];	/* innermost .service or .scope, "" if none */
	char slice[DRMTOP_UNIT_NAME_MAX];	/* innermost .slice, "" if none */
};

/* Parse @path ("/system.slice/docker-<id>.scope", ...); unknown names leave fields empty. */
void drmtop_cgroup_name_parse(const char *path, struct drmtop_cgroup_name *n);

const char *drmtop_runtime_name(enum drmtop_runtime r);	/* NULL for NONE */
const char *drmtop_pod_qos_name(enum drmtop_pod_qos q);	/* NULL for NONE */

/*
 * The workload as a user names it, to group by: "pod/<uid>/<container id, 12>" in a pod,
 * "<runtime>/<container id, 12>" in a container, else the systemd unit, else the slice, else
 * @path itself ("/" at the root). Written to @buf.
 */
const char *drmtop_cgroup_workload(const struct drmtop_cgroup_name *n, const char *path,
				   char *buf, size_t len);

#endif /* DRMTOP_CGROUP_NAME_H */
