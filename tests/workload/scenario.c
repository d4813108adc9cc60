// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parser for the line-based scenario language (see README.md): "proc" lines declare processes,
 * the lines after one are its script. Every line is "verb operand... key=value...".
 */
#include "scenario.h"
#include "units.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 16

static const char *const engine_names[] = { "gfx", "compute", "copy" };

const char *wl_engine_name(int engine)
{
	return engine >= 0 && engine < 3 ? engine_names[engine] : "?";
}

int wl_engine_by_name(const char *name)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(name, engine_names[i]))
			return i;
	return -1;
}

struct verb {
	const char *name;
	enum wl_op op;
	unsigned int min_pos, max_pos;
	const char *keys;	/* allowed keys, each followed by a space */
};

static const struct verb verbs[] = {
	{ "open", OP_OPEN, 1, 1, "count " },
	{ "close", OP_CLOSE, 1, 1, "" },
	{ "dup", OP_DUP, 2, 2, "" },
	{ "bo", OP_BO, 2, 2, "size count " },
	{ "free", OP_FREE, 2, 2, "" },
	{ "submit", OP_SUBMIT, 1, 1, "engine dur count threads wait bos " },
	{ "duty", OP_DUTY, 1, 1, "engine dur period for until " },
	{ "export", OP_EXPORT, 2, 2, "to " },
	{ "import", OP_IMPORT, 2, 2, "as " },
	{ "sendfd", OP_SENDFD, 1, 1, "to " },
	{ "recvfd", OP_RECVFD, 1, 1, "" },
	{ "send", OP_SEND, 1, 1, "to " },
	{ "recv", OP_RECV, 1, 1, "" },
	{ "fork", OP_FORK, 1, 1, "" },
	{ "join", OP_JOIN, 0, 0, "" },
	{ "sleep", OP_SLEEP, 1, 1, "" },
	{ "hold", OP_HOLD, 0, 0, "" },
	{ "exit", OP_EXIT, 0, 0, "" },
	{ "stream", OP_STREAM, 1, 1, "engine for until backlog " },
};

struct parser {
	const char *origin;
	int line;
	struct wl_scenario *sc;
};

static int perr(const struct parser *p, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", p->origin, p->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* Names declared by a scenario: letters, digits, '_' and '-'. '.' is kept for group members. */
static bool valid_name(const char *s, size_t max, bool allow_dot)
{
	size_t n = strlen(s);

	if (!n || n >= max)
		return false;
	for (const char *c = s; *c; c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || *c == '_' || *c == '-')
			continue;
		if (allow_dot && *c == '.')
			continue;
		return false;
	}
	return true;
}

static bool key_allowed(const char *keys, const char *key)
{
	size_t n = strlen(key);

	for (const char *k = keys; (k = strstr(k, key)); k += n)
		if ((k == keys || k[-1] == ' ') && k[n] == ' ')
			return true;
	return false;
}

static int copy_name(const struct parser *p, char *dst, const char *src, size_t max,
		     bool allow_dot, const char *what)
{
	if (!valid_name(src, max, allow_dot))
		return perr(p, "bad %s name '%s' (letters, digits, '_', '-'%s; at most %zu chars)",
			    what, src, allow_dot ? ", '.'" : "", max - 1);
	strcpy(dst, src);
	return 0;
}

static int parse_bos(const struct parser *p, struct wl_step *st, char *list)
{
	char *save = NULL;

	for (char *b = strtok_r(list, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
		if (st->nr_bos == WL_SUBMIT_BOS_MAX)
			return perr(p, "at most %d bos per submit", WL_SUBMIT_BOS_MAX);
		if (copy_name(p, st->bos[st->nr_bos++], b, WL_NAME_MAX, true, "BO"))
			return -1;
	}
	if (!st->nr_bos)
		return perr(p, "empty bos= list");
	return 0;
}

static int parse_key(const struct parser *p, struct wl_step *st, const char *key, char *val,
		     bool *has_for)
{
	if (!strcmp(key, "count")) {
		if (!wl_parse_uint(val, 1, 1000000, &st->count))
			return perr(p, "bad count '%s' (1..1000000)", val);
		if (st->op == OP_OPEN && st->count > WL_GROUP_MAX)
			return perr(p, "at most %d fds per open", WL_GROUP_MAX);
	} else if (!strcmp(key, "threads")) {
		if (!wl_parse_uint(val, 1, WL_THREADS_MAX, &st->threads))
			return perr(p, "bad threads '%s' (1..%d)", val, WL_THREADS_MAX);
	} else if (!strcmp(key, "size")) {
		if (!wl_parse_size(val, &st->size) || !st->size)
			return perr(p, "bad size '%s' (e.g. 4096, 64K, 2M)", val);
	} else if (!strcmp(key, "engine")) {
		st->engine = wl_engine_by_name(val);
		if (st->engine < 0)
			return perr(p, "unknown engine '%s' (gfx, compute, copy)", val);
	} else if (!strcmp(key, "backlog")) {
		if (!wl_parse_duration(val, &st->backlog_ns) || !st->backlog_ns)
			return perr(p, "bad backlog '%s' (e.g. 1s)", val);
	} else if (!strcmp(key, "dur") || !strcmp(key, "period") || !strcmp(key, "for")) {
		uint64_t *dst = key[0] == 'd' ? &st->dur_ns : key[0] == 'p' ? &st->period_ns :
						   &st->for_ns;

		if (!wl_parse_duration(val, dst) || !*dst)
			return perr(p, "bad %s '%s' (e.g. 500us, 10ms, 2s)", key, val);
		if (key[0] == 'f')
			*has_for = true;
	} else if (!strcmp(key, "until")) {
		if (strcmp(val, "stop"))
			return perr(p, "until= takes only 'stop'");
		st->until_stop = true;
	} else if (!strcmp(key, "wait")) {
		if (!strcmp(val, "end"))
			st->wait = WAIT_END;
		else if (!strcmp(val, "each"))
			st->wait = WAIT_EACH;
		else if (!strcmp(val, "none"))
			st->wait = WAIT_NONE;
		else
			return perr(p, "bad wait '%s' (end, each, none)", val);
	} else if (!strcmp(key, "bos")) {
		return parse_bos(p, st, val);
	} else if (!strcmp(key, "to")) {
		return copy_name(p, st->peer_name, val, WL_COMM_MAX, false, "process");
	} else if (!strcmp(key, "as")) {
		return copy_name(p, st->as, val, WL_NAME_MAX, false, "BO");
	}
	return 0;
}

/* "a:3ms,b:1ms": the fds of a stream and the duration of each one's jobs. */
static int parse_members(const struct parser *p, struct wl_step *st, char *list)
{
	char *save = NULL;

	for (char *m = strtok_r(list, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(m, ':');
		unsigned int i = st->nr_members;

		if (i == WL_STREAM_MAX)
			return perr(p, "at most %d fds per stream", WL_STREAM_MAX);
		if (!colon)
			return perr(p, "stream member '%s' is not FD:DURATION", m);
		*colon = '\0';
		if (copy_name(p, st->members[i], m, WL_NAME_MAX, true, "fd"))
			return -1;
		if (!wl_parse_duration(colon + 1, &st->member_ns[i]) || !st->member_ns[i])
			return perr(p, "bad job duration '%s' (e.g. 2ms)", colon + 1);
		st->nr_members++;
	}
	if (!st->nr_members)
		return perr(p, "stream needs FD:DURATION[,FD:DURATION...]");
	return 0;
}

/* Per-verb operand rules and the keys a verb cannot do without. */
static int check_step(const struct parser *p, const struct verb *v, struct wl_step *st,
		      char **pos, unsigned int npos, bool has_for)
{
	/* Operands that declare a name take no '.': "x.N" names are made for count=N groups. */
	bool first_declares = v->op == OP_OPEN || v->op == OP_RECVFD;
	bool second_declares = v->op == OP_DUP || v->op == OP_BO;
	bool tag = v->op == OP_SEND || v->op == OP_RECV;

	if (v->op == OP_SLEEP) {
		if (!wl_parse_duration(pos[0], &st->dur_ns))
			return perr(p, "bad duration '%s' (e.g. 500us, 10ms, 2s)", pos[0]);
		return 0;
	}
	if (v->op == OP_FORK)
		return copy_name(p, st->peer_name, pos[0], WL_COMM_MAX, false, "process");
	if (v->op == OP_STREAM) {
		if (st->engine < 0)
			return perr(p, "stream needs engine=");
		if (has_for == st->until_stop)
			return perr(p, "stream needs exactly one of for= and until=stop");
		if (!st->backlog_ns)
			st->backlog_ns = 1000000000;
		return parse_members(p, st, pos[0]);
	}
	if (npos >= 1 && copy_name(p, st->fd, pos[0], WL_NAME_MAX, !first_declares && !tag,
				   tag ? "tag" : "fd"))
		return -1;
	if (npos == 2) {
		if (v->op == OP_FREE && !strcmp(pos[1], "*"))
			strcpy(st->name, "*");
		else if (copy_name(p, st->name, pos[1], WL_NAME_MAX, !second_declares,
				   v->op == OP_DUP ? "fd" : "BO"))
			return -1;
	}
	if (v->op == OP_BO && !st->size)
		return perr(p, "bo needs size=");
	if ((v->op == OP_SUBMIT || v->op == OP_DUTY) && (st->engine < 0 || !st->dur_ns))
		return perr(p, "%s needs engine= and dur=", v->name);
	if (v->op == OP_DUTY) {
		if (!st->period_ns)
			return perr(p, "duty needs period=");
		if (st->dur_ns > st->period_ns)
			return perr(p, "duty dur= is longer than period=");
		if (has_for == st->until_stop)
			return perr(p, "duty needs exactly one of for= and until=stop");
	}
	if ((v->op == OP_EXPORT || v->op == OP_SENDFD || v->op == OP_SEND) && !st->peer_name[0])
		return perr(p, "%s needs to=PROC", v->name);
	return 0;
}

static int add_step(struct parser *p, char **tok, unsigned int ntok)
{
	struct wl_scenario *sc = p->sc;
	struct wl_proc_decl *d;
	const struct verb *v = NULL;
	struct wl_step st = { .engine = -1, .peer = -1, .count = 1, .threads = 1 };
	char *pos[MAX_TOKENS];
	unsigned int npos = 0;
	bool has_for = false;

	if (!sc->nr_procs)
		return perr(p, "'%s' before the first 'proc' line", tok[0]);
	d = &sc->procs[sc->nr_procs - 1];
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(tok[0], verbs[i].name))
			v = &verbs[i];
	if (!v)
		return perr(p, "unknown step '%s'", tok[0]);
	st.op = v->op;
	st.line = p->line;
	for (unsigned int i = 1; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');

		if (!eq) {
			if (npos == v->max_pos)
				return perr(p, "%s takes at most %u operand(s)", v->name, v->max_pos);
			pos[npos++] = tok[i];
			continue;
		}
		*eq = '\0';
		if (!key_allowed(v->keys, tok[i]))
			return perr(p, "%s takes no %s=", v->name, tok[i]);
		if (parse_key(p, &st, tok[i], eq + 1, &has_for))
			return -1;
	}
	if (npos < v->min_pos)
		return perr(p, "%s needs %u operand(s)", v->name, v->min_pos);
	if (check_step(p, v, &st, pos, npos, has_for))
		return -1;

	struct wl_step *steps = realloc(d->steps, (d->nr_steps + 1) * sizeof(*steps));

	if (!steps)
		return perr(p, "out of memory");
	d->steps = steps;
	d->steps[d->nr_steps++] = st;
	return 0;
}

static int add_proc(struct parser *p, char **tok, unsigned int ntok)
{
	struct wl_scenario *sc = p->sc;
	struct wl_proc_decl d = { .line = p->line, .count = 1 };
	struct wl_proc_decl *procs;

	if (ntok < 2)
		return perr(p, "proc needs a name");
	if (copy_name(p, d.name, tok[1], WL_COMM_MAX, false, "process"))
		return -1;
	for (unsigned int i = 0; i < sc->nr_procs; i++)
		if (!strcmp(sc->procs[i].name, d.name))
			return perr(p, "process '%s' declared twice", d.name);
	for (unsigned int i = 2; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');
		const char *val = eq ? eq + 1 : NULL;

		if (eq)
			*eq = '\0';
		if (!strcmp(tok[i], "child") && !val) {
			d.child = true;
		} else if (!strcmp(tok[i], "transient") && !val) {
			d.transient = true;
		} else if (!strcmp(tok[i], "count") && val) {
			if (!wl_parse_uint(val, 1, 10000, &d.count))
				return perr(p, "bad count '%s' (1..10000)", val);
		} else if (!strcmp(tok[i], "start") && val) {
			if (!wl_parse_duration(val, &d.start_ns))
				return perr(p, "bad start '%s'", val);
		} else if (!strcmp(tok[i], "every") && val) {
			if (!wl_parse_duration(val, &d.every_ns))
				return perr(p, "bad every '%s'", val);
		} else if (!strcmp(tok[i], "respawn") && val) {
			if (!wl_parse_duration(val, &d.respawn_ns))
				return perr(p, "bad respawn '%s'", val);
			d.respawn = true;
			d.transient = true;
		} else if (!strcmp(tok[i], "cgroup") && val) {
			if (val[0] != '/' || strlen(val) >= sizeof(d.cgroup))
				return perr(p, "bad cgroup '%s' (an absolute directory)", val);
			strcpy(d.cgroup, val);
		} else {
			return perr(p, "proc takes count=, start=, every=, respawn=, cgroup=, child,"
				    " transient; not '%s'", tok[i]);
		}
	}
	if (d.child && (d.count != 1 || d.start_ns || d.every_ns || d.respawn))
		return perr(p, "a child process is started by 'fork' only: no count/start/every/respawn");
	procs = realloc(sc->procs, (sc->nr_procs + 1) * sizeof(*procs));
	if (!procs)
		return perr(p, "out of memory");
	sc->procs = procs;
	sc->procs[sc->nr_procs++] = d;
	return 0;
}

static int parse_line(struct parser *p, char *line)
{
	char *tok[MAX_TOKENS];
	unsigned int ntok = 0;
	char *save = NULL;

	for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (ntok == MAX_TOKENS)
			return perr(p, "too many words (at most %d)", MAX_TOKENS);
		tok[ntok++] = t;
	}
	if (!ntok)
		return 0;
	if (!strcmp(tok[0], "proc"))
		return add_proc(p, tok, ntok);
	return add_step(p, tok, ntok);
}

static int find_proc(const struct wl_scenario *sc, const char *name)
{
	for (unsigned int i = 0; i < sc->nr_procs; i++)
		if (!strcmp(sc->procs[i].name, name))
			return (int)i;
	return -1;
}

/* to= and fork name processes that may be declared further down: resolve them at the end. */
static int resolve(struct parser *p)
{
	struct wl_scenario *sc = p->sc;
	bool any_top = false;

	for (unsigned int i = 0; i < sc->nr_procs; i++) {
		struct wl_proc_decl *d = &sc->procs[i];

		any_top |= !d->child;
		for (unsigned int j = 0; j < d->nr_steps; j++) {
			struct wl_step *st = &d->steps[j];

			if (!st->peer_name[0])
				continue;
			p->line = st->line;
			st->peer = find_proc(sc, st->peer_name);
			if (st->peer < 0)
				return perr(p, "no process '%s' declared", st->peer_name);
			if (st->op == OP_FORK && !sc->procs[st->peer].child)
				return perr(p, "fork target '%s' must be declared 'child'",
					    st->peer_name);
			if (st->op == OP_FORK && (unsigned int)st->peer == i)
				return perr(p, "'%s' cannot fork itself", st->peer_name);
		}
	}
	if (!any_top) {
		p->line = 0;
		return perr(p, "no process to start (every proc is a 'child')");
	}
	return 0;
}

int wl_scenario_parse(const char *text, const char *origin, struct wl_scenario *sc)
{
	struct parser p = { .origin = origin, .line = 1, .sc = sc };
	char *buf = strdup(text), *start, *c;
	bool comment = false;
	int ret = 0;

	memset(sc, 0, sizeof(*sc));
	if (!buf)
		return perr(&p, "out of memory");
	/* Lines end at '\n' or ';' (so one command-line argument can hold a scenario). */
	for (start = c = buf; !ret; c++) {
		if (*c == '#')
			comment = true;
		if (comment && *c && *c != '\n') {
			*c = ' ';
			continue;
		}
		if (*c && *c != '\n' && *c != ';')
			continue;
		comment = false;

		bool last = !*c;

		*c = '\0';
		ret = parse_line(&p, start);
		p.line++;
		start = c + 1;
		if (last)
			break;
	}
	free(buf);
	if (!ret)
		ret = resolve(&p);
	if (ret)
		wl_scenario_free(sc);
	return ret;
}

void wl_scenario_free(struct wl_scenario *sc)
{
	for (unsigned int i = 0; i < sc->nr_procs; i++)
		free(sc->procs[i].steps);
	free(sc->procs);
	sc->procs = NULL;
	sc->nr_procs = 0;
}
