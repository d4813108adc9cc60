/* SPDX-License-Identifier: GPL-2.0-only */
/* The named scenarios the workload carries, in the scenario language. */
#ifndef WL_BUILTIN_SCENARIOS_H
#define WL_BUILTIN_SCENARIOS_H

struct wl_builtin {
	const char *name;
	const char *summary;
	const char *text;
};

extern const struct wl_builtin wl_builtins[];

const struct wl_builtin *wl_builtin_find(const char *name);

#endif
