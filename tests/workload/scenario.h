/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A scenario: named process declarations, each with a script of steps. The language is
 * documented in tests/workload/README.md; scenario.c parses it, runner.c executes it.
 */
#ifndef WL_SCENARIO_H
#define WL_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#define WL_NAME_MAX		24	/* fd, BO, tag names incl. NUL */
#define WL_COMM_MAX		16	/* TASK_COMM_LEN */
#define WL_SUBMIT_BOS_MAX	8
#define WL_STREAM_MAX		8
#define WL_GROUP_MAX		64	/* members of an "open NAME count=M" group */
#define WL_THREADS_MAX		64

enum wl_op {
	OP_OPEN,	/* open FD [count=M]: new simgpu client(s) */
	OP_CLOSE,	/* close FD */
	OP_DUP,		/* dup FD NEW: same client, second descriptor */
	OP_BO,		/* bo FD NAME size=S [count=K] */
	OP_FREE,	/* free FD NAME|* : GEM_CLOSE */
	OP_SUBMIT,	/* submit FD engine=E dur=D [count=K] [threads=T] [wait=..] [bos=..] */
	OP_DUTY,	/* duty FD engine=E dur=D period=P (for=D | until=stop) */
	OP_EXPORT,	/* export FD NAME to=PROC: dma-buf fd sent over SCM_RIGHTS */
	OP_IMPORT,	/* import FD NAME [as=NEW]: receive that dma-buf, PRIME import */
	OP_SENDFD,	/* sendfd FD to=PROC: the client fd itself over SCM_RIGHTS */
	OP_RECVFD,	/* recvfd FD */
	OP_SEND,	/* send TAG to=PROC: a token, to order steps across processes */
	OP_RECV,	/* recv TAG */
	OP_FORK,	/* fork PROC: child inherits every fd and runs PROC's script */
	OP_JOIN,	/* join: wait for every forked child */
	OP_SLEEP,	/* sleep D */
	OP_HOLD,	/* hold: keep everything open until stopped */
	OP_EXIT,	/* exit: close everything and exit now, never held */
	OP_STREAM,	/* stream FD:DUR,FD:DUR.. engine=E (for=D | until=stop) [backlog=D] */
};

enum wl_wait { WAIT_END, WAIT_EACH, WAIT_NONE };

struct wl_step {
	enum wl_op op;
	int line;
	char fd[WL_NAME_MAX];	/* first operand: an fd (or fd group) name, or a tag */
	char name[WL_NAME_MAX];	/* second operand: BO name, new fd name */
	char as[WL_NAME_MAX];	/* import ... as=NEW */
	char peer_name[WL_COMM_MAX];
	int peer;		/* to=PROC / fork PROC: index in scenario.procs */
	int engine;
	enum wl_wait wait;
	bool until_stop;
	unsigned int count;
	unsigned int threads;
	uint64_t size;
	uint64_t dur_ns;
	uint64_t period_ns;
	uint64_t for_ns;
	unsigned int nr_bos;
	char bos[WL_SUBMIT_BOS_MAX][WL_NAME_MAX];
	/* stream: the fds whose jobs alternate, each with its job duration */
	unsigned int nr_members;
	char members[WL_STREAM_MAX][WL_NAME_MAX];
	uint64_t member_ns[WL_STREAM_MAX];
	uint64_t backlog_ns;
};

struct wl_proc_decl {
	char name[WL_COMM_MAX];	/* also the comm (PR_SET_NAME) */
	int line;
	unsigned int count;	/* instances started */
	uint64_t start_ns;	/* first instance starts this long after the scenario */
	uint64_t every_ns;	/* instance i starts at start + i * every */
	bool respawn;		/* restarted respawn_ns after it exits, until stopped */
	uint64_t respawn_ns;
	bool child;		/* only started by a "fork" step */
	bool transient;		/* not waited for before signalling readiness */
	char cgroup[256];	/* cgroup v2 directory it moves into first, "" stays */
	unsigned int nr_steps;
	struct wl_step *steps;
};

struct wl_scenario {
	char name[64];
	unsigned int nr_procs;
	struct wl_proc_decl *procs;
};

/*
 * Parses text (newline- or ';'-separated lines) into sc. On error prints
 * "<origin>:<line>: <why>" to stderr and returns -1.
 */
int wl_scenario_parse(const char *text, const char *origin, struct wl_scenario *sc);
void wl_scenario_free(struct wl_scenario *sc);

const char *wl_engine_name(int engine);
int wl_engine_by_name(const char *name);

#endif
