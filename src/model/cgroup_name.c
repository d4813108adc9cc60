// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload names from cgroup v2 paths. The conventions, as each tool makes them:
 *  - systemd: units are path components ending in .slice (nesting: a-b.slice in a.slice),
 *    .service or .scope; processes live in services and scopes.
 *  - Docker: docker-<64 hex>.scope under the systemd cgroup driver, /docker/<64 hex> under
 *    cgroupfs. Podman: libpod-<id>.scope (libpod-conmon-<id>.scope is its monitor, not the
 *    container), /libpod_parent/libpod-<id> under cgroupfs.
 *  - Kubernetes (kubelet's pod cgroups, then the runtime's container cgroup in them): systemd
 *    driver kubepods.slice/kubepods-<qos>.slice/kubepods-<qos>-pod<uid, '_' for '-'>.slice/
 *    cri-containerd-<id>.scope (containerd) or crio-<id>.scope (CRI-O); a Guaranteed pod has
 *    no QoS level (kubepods-pod<uid>.slice). cgroupfs driver: /kubepods/<qos>/pod<uid>/<id>,
 *    Guaranteed /kubepods/pod<uid>/<id>.
 * The innermost match wins: a container in a pod names both.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "drmtop/cgroup_name.h"
#include "drmtop/util/span.h"

static bool is_hex(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

/* A pod UID (8-4-4-4-12 lowercase hex) with @sep between the groups, copied with dashes. */
static bool take_uid(const char *s, size_t len, char sep, char out[DRMTOP_POD_UID_LEN + 1])
{
	size_t i;

	if (len != DRMTOP_POD_UID_LEN)
		return false;
	for (i = 0; i < len; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != sep : !is_hex(s + i, 1))
			return false;
	}
	for (i = 0; i < len; i++)
		out[i] = s[i] == sep ? '-' : s[i];
	out[len] = '\0';
	return true;
}

static void copy(char *dst, size_t size, const char *s, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* <prefix><64 hex><suffix> names a container of @rt. */
static bool take_container(struct drmtop_cgroup_name *n, const char *s, size_t len,
			   const char *prefix, const char *suffix, enum drmtop_runtime rt)
{
	size_t p = strlen(prefix), q = strlen(suffix);

	if (len != p + DRMTOP_CONTAINER_ID_LEN + q || !span_has_prefix(s, len, prefix) ||
	    !span_has_suffix(s, len, suffix) || !is_hex(s + p, DRMTOP_CONTAINER_ID_LEN))
		return false;
	copy(n->container, sizeof(n->container), s + p, DRMTOP_CONTAINER_ID_LEN);
	n->runtime = rt;
	return true;
}

static enum drmtop_pod_qos qos_of(const char *s, size_t len)
{
	if (len == 9 && !memcmp(s, "burstable", 9))
		return DRMTOP_QOS_BURSTABLE;
	if (len == 10 && !memcmp(s, "besteffort", 10))
		return DRMTOP_QOS_BESTEFFORT;
	return DRMTOP_QOS_NONE;
}

/* kubepods[-<qos>][-pod<uid>].slice */
static void kube_slice(struct drmtop_cgroup_name *n, const char *s, size_t len)
{
	const char *rest = s + strlen("kubepods");
	size_t left = len - strlen("kubepods") - strlen(".slice");
	enum drmtop_pod_qos qos;
	const char *dash;

	if (*rest == '-') {
		rest++;
		left--;
		dash = memchr(rest, '-', left);
		qos = qos_of(rest, dash ? (size_t)(dash - rest) : left);
		if (qos != DRMTOP_QOS_NONE) {
			n->qos = qos;
			if (!dash)
				return;
			left -= (size_t)(dash + 1 - rest);
			rest = dash + 1;
		}
		if (span_has_prefix(rest, left, "pod") &&
		    take_uid(rest + 3, left - 3, '_', n->pod) && n->qos == DRMTOP_QOS_NONE)
			n->qos = DRMTOP_QOS_GUARANTEED;
	}
}

static void component(struct drmtop_cgroup_name *n, const char *s, size_t len,
		      const char *parent, size_t plen)
{
	/* cgroupfs kubelet: the QoS level is the directory under kubepods */
	enum drmtop_pod_qos qos = plen == 8 && !memcmp(parent, "kubepods", 8) ?
				  qos_of(s, len) : DRMTOP_QOS_NONE;

	if (span_has_suffix(s, len, ".slice")) {
		copy(n->slice, sizeof(n->slice), s, len);
		if (span_has_prefix(s, len, "kubepods"))
			kube_slice(n, s, len);
		return;
	}
	if (span_has_suffix(s, len, ".scope") || span_has_suffix(s, len, ".service")) {
		copy(n->unit, sizeof(n->unit), s, len);
		if (!take_container(n, s, len, "docker-", ".scope", DRMTOP_RUNTIME_DOCKER) &&
		    !take_container(n, s, len, "libpod-", ".scope", DRMTOP_RUNTIME_PODMAN) &&
		    !take_container(n, s, len, "cri-containerd-", ".scope",
				    DRMTOP_RUNTIME_CONTAINERD))
			take_container(n, s, len, "crio-", ".scope", DRMTOP_RUNTIME_CRIO);
		return;
	}
	/* cgroupfs drivers: plain directory names */
	if (qos != DRMTOP_QOS_NONE) {
		n->qos = qos;
	} else if (span_has_prefix(s, len, "pod") && take_uid(s + 3, len - 3, '-', n->pod)) {
		if (n->qos == DRMTOP_QOS_NONE)
			n->qos = DRMTOP_QOS_GUARANTEED;
	} else if (len == DRMTOP_CONTAINER_ID_LEN && is_hex(s, len)) {
		copy(n->container, sizeof(n->container), s, len);
		n->runtime = n->pod[0] ? DRMTOP_RUNTIME_CRI :
			     plen == 6 && !memcmp(parent, "docker", 6) ? DRMTOP_RUNTIME_DOCKER :
			     DRMTOP_RUNTIME_NONE;
		if (n->runtime == DRMTOP_RUNTIME_NONE)
			n->container[0] = '\0';
	} else {
		take_container(n, s, len, "libpod-", "", DRMTOP_RUNTIME_PODMAN);
	}
}

void drmtop_cgroup_name_parse(const char *path, struct drmtop_cgroup_name *n)
{
	const char *s = path, *parent = "";
	size_t plen = 0;

	memset(n, 0, sizeof(*n));
	while (s && *s) {
		const char *end = strchr(s, '/');
		size_t len = end ? (size_t)(end - s) : strlen(s);

		if (len) {
			component(n, s, len, parent, plen);
			parent = s;
			plen = len;
		}
		s = end ? end + 1 : NULL;
	}
}

const char *drmtop_runtime_name(enum drmtop_runtime r)
{
	static const char *const names[] = {
		[DRMTOP_RUNTIME_DOCKER] = "docker",
		[DRMTOP_RUNTIME_PODMAN] = "podman",
		[DRMTOP_RUNTIME_CONTAINERD] = "containerd",
		[DRMTOP_RUNTIME_CRIO] = "cri-o",
		[DRMTOP_RUNTIME_CRI] = "cri",
	};

	return (size_t)r < sizeof(names) / sizeof(names[0]) ? names[r] : NULL;
}

const char *drmtop_pod_qos_name(enum drmtop_pod_qos q)
{
	static const char *const names[] = {
		[DRMTOP_QOS_GUARANTEED] = "guaranteed",
		[DRMTOP_QOS_BURSTABLE] = "burstable",
		[DRMTOP_QOS_BESTEFFORT] = "besteffort",
	};

	return (size_t)q < sizeof(names) / sizeof(names[0]) ? names[q] : NULL;
}

const char *drmtop_cgroup_workload(const struct drmtop_cgroup_name *n, const char *path,
				   char *buf, size_t len)
{
	if (n->pod[0] && n->container[0])
		snprintf(buf, len, "pod/%s/%.12s", n->pod, n->container);
	else if (n->pod[0])
		snprintf(buf, len, "pod/%s", n->pod);
	else if (n->container[0])
		snprintf(buf, len, "%s/%.12s", drmtop_runtime_name(n->runtime), n->container);
	else if (n->unit[0])
		snprintf(buf, len, "%s", n->unit);
	else if (n->slice[0])
		snprintf(buf, len, "%s", n->slice);
	else
		snprintf(buf, len, "%s", path && *path ? path : "/");
	return buf;
}
