// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload names from cgroup v2 paths, on the paths each tool makes (the shapes written by
 * systemd 252, Docker 20.10/26, Podman 4.3, containerd 1.6/1.7 and CRI-O through the kubelet's
 * cgroup manager, systemd and cgroupfs drivers): the unit, the slice, the container's runtime
 * and id, the pod's UID and QoS class, and the name to group by. Look-alikes name nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "drmtop/cgroup_name.h"

#define ID "3f4e1c2b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"
#define UID "2b8a4f1e-7c3d-4e5f-9a0b-1c2d3e4f5a6b"
#define UID_ "2b8a4f1e_7c3d_4e5f_9a0b_1c2d3e4f5a6b"

struct want {
	const char *path;
	enum drmtop_runtime runtime;
	const char *container, *pod;
	enum drmtop_pod_qos qos;
	const char *unit, *slice, *workload;
};

static void check(const struct want *w)
{
	struct drmtop_cgroup_name n;
	char buf[512];

	drmtop_cgroup_name_parse(w->path, &n);
	drmtop_cgroup_workload(&n, w->path, buf, sizeof(buf));
	if (n.runtime != w->runtime || strcmp(n.container, w->container) ||
	    strcmp(n.pod, w->pod) || n.qos != w->qos || strcmp(n.unit, w->unit) ||
	    strcmp(n.slice, w->slice) || strcmp(buf, w->workload))
		fail_msg("%s:\n got runtime %d container '%s' pod '%s' qos %d unit '%s' slice '%s' "
			 "workload '%s'\nwant runtime %d container '%s' pod '%s' qos %d unit '%s' "
			 "slice '%s' workload '%s'", w->path, n.runtime, n.container, n.pod, n.qos,
			 n.unit, n.slice, buf, w->runtime, w->container, w->pod, w->qos, w->unit,
			 w->slice, w->workload);
}

#define NONE DRMTOP_RUNTIME_NONE
#define CHECK_ALL(w)                                                               \
	do {                                                                       \
		size_t i_;                                                         \
		(void)state;                                                       \
		for (i_ = 0; i_ < sizeof(w) / sizeof((w)[0]); i_++)                \
			check(&(w)[i_]);                                           \
	} while (0)

static void systemd_units(void **state)
{
	static const struct want w[] = {
		{ "/system.slice/ollama.service", NONE, "", "", 0, "ollama.service",
		  "system.slice", "ollama.service" },
		{ "/user.slice/user-1000.slice/session-3.scope", NONE, "", "", 0,
		  "session-3.scope", "user-1000.slice", "session-3.scope" },
		/* a desktop app: the innermost scope in the user's manager */
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/"
		  "app-gnome-firefox-4242.scope", NONE, "", "", 0, "app-gnome-firefox-4242.scope",
		  "app.slice", "app-gnome-firefox-4242.scope" },
		{ "/init.scope", NONE, "", "", 0, "init.scope", "", "init.scope" },
		{ "/user.slice", NONE, "", "", 0, "", "user.slice", "user.slice" },
		{ "/", NONE, "", "", 0, "", "", "/" },
		{ "", NONE, "", "", 0, "", "", "/" },
		/* a cgroup nobody named by convention */
		{ "/mygroup/job7", NONE, "", "", 0, "", "", "/mygroup/job7" },
	};
	CHECK_ALL(w);
}

static void containers(void **state)
{
	static const struct want w[] = {
		{ "/system.slice/docker-" ID ".scope", DRMTOP_RUNTIME_DOCKER, ID, "", 0,
		  "docker-" ID ".scope", "system.slice", "docker/3f4e1c2b9a8d" },
		{ "/docker/" ID, DRMTOP_RUNTIME_DOCKER, ID, "", 0, "", "", "docker/3f4e1c2b9a8d" },
		{ "/machine.slice/libpod-" ID ".scope", DRMTOP_RUNTIME_PODMAN, ID, "", 0,
		  "libpod-" ID ".scope", "machine.slice", "podman/3f4e1c2b9a8d" },
		/* podman's systemd mode: the payload in a "container" child of the scope */
		{ "/machine.slice/libpod-" ID ".scope/container", DRMTOP_RUNTIME_PODMAN, ID, "", 0,
		  "libpod-" ID ".scope", "machine.slice", "podman/3f4e1c2b9a8d" },
		/* rootless podman, in the user's manager */
		{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope",
		  DRMTOP_RUNTIME_PODMAN, ID, "", 0, "libpod-" ID ".scope", "user.slice",
		  "podman/3f4e1c2b9a8d" },
		{ "/libpod_parent/libpod-" ID, DRMTOP_RUNTIME_PODMAN, ID, "", 0, "", "",
		  "podman/3f4e1c2b9a8d" },
		/* podman's monitor is not the container */
		{ "/machine.slice/libpod-conmon-" ID ".scope", NONE, "", "", 0,
		  "libpod-conmon-" ID ".scope", "machine.slice", "libpod-conmon-" ID ".scope" },
		/* look-alikes: short, upper case, a 64-hex name outside any runtime's parent */
		{ "/system.slice/docker-3f4e1c2b.scope", NONE, "", "", 0, "docker-3f4e1c2b.scope",
		  "system.slice", "docker-3f4e1c2b.scope" },
		{ "/docker/3F4E1C2B9A8D7E6F5A4B3C2D1E0F9A8B7C6D5E4F3A2B1C0D9E8F7A6B5C4D3E2F", NONE,
		  "", "", 0, "", "", "/docker/3F4E1C2B9A8D7E6F5A4B3C2D1E0F9A8B7C6D5E4F3A2B1C0D9E8F7A6B5C4D3E2F" },
		{ "/work/" ID, NONE, "", "", 0, "", "", "/work/" ID },
		{ "/system.slice/docker.service", NONE, "", "", 0, "docker.service", "system.slice",
		  "docker.service" },
	};
	CHECK_ALL(w);
}

static void kubernetes(void **state)
{
	static const struct want w[] = {
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice/"
		  "cri-containerd-" ID ".scope", DRMTOP_RUNTIME_CONTAINERD, ID, UID,
		  DRMTOP_QOS_BURSTABLE, "cri-containerd-" ID ".scope",
		  "kubepods-burstable-pod" UID_ ".slice", "pod/" UID "/3f4e1c2b9a8d" },
		{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice/"
		  "crio-" ID ".scope", DRMTOP_RUNTIME_CRIO, ID, UID, DRMTOP_QOS_BESTEFFORT,
		  "crio-" ID ".scope", "kubepods-besteffort-pod" UID_ ".slice",
		  "pod/" UID "/3f4e1c2b9a8d" },
		/* Guaranteed: no QoS level */
		{ "/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" ID ".scope",
		  DRMTOP_RUNTIME_CONTAINERD, ID, UID, DRMTOP_QOS_GUARANTEED,
		  "cri-containerd-" ID ".scope", "kubepods-pod" UID_ ".slice",
		  "pod/" UID "/3f4e1c2b9a8d" },
		/* the pod's own cgroup (a pause process, or between containers) */
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice",
		  NONE, "", UID, DRMTOP_QOS_BURSTABLE, "", "kubepods-burstable-pod" UID_ ".slice",
		  "pod/" UID },
		{ "/kubepods.slice/kubepods-besteffort.slice", NONE, "", "", DRMTOP_QOS_BESTEFFORT,
		  "", "kubepods-besteffort.slice", "kubepods-besteffort.slice" },
		/* cgroupfs driver */
		{ "/kubepods/burstable/pod" UID "/" ID, DRMTOP_RUNTIME_CRI, ID, UID,
		  DRMTOP_QOS_BURSTABLE, "", "", "pod/" UID "/3f4e1c2b9a8d" },
		{ "/kubepods/besteffort/pod" UID "/" ID, DRMTOP_RUNTIME_CRI, ID, UID,
		  DRMTOP_QOS_BESTEFFORT, "", "", "pod/" UID "/3f4e1c2b9a8d" },
		{ "/kubepods/pod" UID "/" ID, DRMTOP_RUNTIME_CRI, ID, UID, DRMTOP_QOS_GUARANTEED,
		  "", "", "pod/" UID "/3f4e1c2b9a8d" },
		/* a UID that is not one */
		{ "/kubepods.slice/kubepods-pod2b8a4f1e.slice", NONE, "", "", 0, "",
		  "kubepods-pod2b8a4f1e.slice", "kubepods-pod2b8a4f1e.slice" },
	};
	CHECK_ALL(w);
}

static void names(void **state)
{
	(void)state;
	assert_string_equal(drmtop_runtime_name(DRMTOP_RUNTIME_CRIO), "cri-o");
	assert_null(drmtop_runtime_name(DRMTOP_RUNTIME_NONE));
	assert_string_equal(drmtop_pod_qos_name(DRMTOP_QOS_BESTEFFORT), "besteffort");
	assert_null(drmtop_pod_qos_name(DRMTOP_QOS_NONE));
	assert_null(drmtop_pod_qos_name((enum drmtop_pod_qos)99));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(systemd_units),
		cmocka_unit_test(containers),
		cmocka_unit_test(kubernetes),
		cmocka_unit_test(names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
