// SPDX-License-Identifier: GPL-2.0-only
/*
 * The series accumulator (series.h): member records per client, growth added to series and
 * device totals, closed clients kept until scraped, folding past max_clients.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "drmtop/series.h"
#include "drmtop/util/utf8.h"
#include "drmtop/util/vec.h"

/*
 * A closed client's member record is kept this many updates: the tracer's close record can
 * come a few samples after fdinfo saw the client go, and must find the same series (a new
 * member would count the client's whole figures a second time).
 */
#define TRACKER_KEEP_GENS	16

#define DRM_MAJOR		226

/* The raw figures a client last reported for one engine of one source. */
struct raw {
	char *engine;
	enum drmtop_series_source source;
	uint64_t busy_ns, jobs;		/* the highest figures seen */
	/* The tracer's close records of the client added up (bpf_reader.h: the first has the
	 * figures since attach, later ones what jobs running at close still added). */
	uint64_t closed_busy_ns, closed_jobs;
	bool best;			/* the engine's figure drmtop stands behind (series.h) */
};

struct drmtop_series_tracker {
	char *fd_key;			/* fdinfo's client key, NULL for tracer-only clients */
	uint64_t uid;			/* the tracer's uid, 0 when none */
	struct drmtop_series_client *series;
	uint64_t seen_gen;		/* last update that listed it open */
	bool closed;
	uint64_t closed_gen;
	struct raw *raws;
	size_t nr_raws, cap_raws;
};

struct update {
	struct drmtop_series *s;
	uint64_t gen;
	bool oom;
};

const char *drmtop_series_source_name(enum drmtop_series_source src)
{
	return src == DRMTOP_SERIES_BPF ? "bpf" : src == DRMTOP_SERIES_BEST ? "best" : "fdinfo";
}

/* The one table of client labels: a new one (a container) is a row here and a case below. */
static const char *const label_names[DRMTOP_LABEL_MAX] = {
	[DRMTOP_LABEL_DRIVER] = "driver",
	[DRMTOP_LABEL_DEVICE] = "device",
	[DRMTOP_LABEL_CLIENT_ID] = "client_id",
	[DRMTOP_LABEL_PID] = "pid",
	[DRMTOP_LABEL_COMM] = "comm",
	[DRMTOP_LABEL_WORKLOAD] = "workload",
	[DRMTOP_LABEL_CONTAINER_ID] = "container_id",
	[DRMTOP_LABEL_POD_UID] = "pod_uid",
};

const char *drmtop_series_label_name(enum drmtop_series_label l)
{
	return l < DRMTOP_LABEL_MAX ? label_names[l] : "?";
}

const char *drmtop_series_label_value(const struct drmtop_series_ident *id,
				      enum drmtop_series_label l, char buf[24])
{
	buf[0] = '\0';
	switch (l) {
	case DRMTOP_LABEL_DRIVER:
		return id->driver ? id->driver : "";
	case DRMTOP_LABEL_DEVICE:
		return id->device ? id->device : "";
	case DRMTOP_LABEL_CLIENT_ID:
		if (id->has_client_id)
			snprintf(buf, 24, "%" PRIu64, id->client_id);
		return buf;
	case DRMTOP_LABEL_PID:
		if (id->has_pid)
			snprintf(buf, 24, "%d", (int)id->pid);
		return buf;
	case DRMTOP_LABEL_COMM:
		return id->comm ? id->comm : "";
	case DRMTOP_LABEL_WORKLOAD:
		return id->workload ? id->workload : "";
	case DRMTOP_LABEL_CONTAINER_ID:
		return id->container_id ? id->container_id : "";
	case DRMTOP_LABEL_POD_UID:
		return id->pod_uid ? id->pod_uid : "";
	case DRMTOP_LABEL_MAX:
		break;
	}
	return buf;
}

int drmtop_series_labels_parse(const char *list, unsigned int *mask)
{
	const char *p = list;

	*mask = DRMTOP_SERIES_LABELS_DEFAULT;
	while (*p) {
		size_t n = strcspn(p, ","), l;

		for (l = 0; l < DRMTOP_LABEL_MAX; l++)
			if (strlen(label_names[l]) == n && !strncmp(p, label_names[l], n))
				break;
		if (n && l == DRMTOP_LABEL_MAX)
			return -1;
		if (n)
			*mask |= DRMTOP_LABEL_BIT(l);
		p += n + (p[n] == ',');
	}
	return 0;
}

const char *drmtop_series_container_id(const struct drmtop_model_cgroup *g, char *buf,
				       size_t len)
{
	/* cgroup_name.h's "cri": a pod's container whose runtime its cgroup does not say */
	if (!g || !g->container)
		snprintf(buf, len, "%s", "");
	else if (!g->runtime || !strcmp(g->runtime, "cri"))
		snprintf(buf, len, "%s", g->container);
	else
		snprintf(buf, len, "%s://%s", g->runtime, g->container);
	return buf;
}

void drmtop_series_init(struct drmtop_series *s, size_t max_clients, unsigned int labels)
{
	memset(s, 0, sizeof(*s));
	s->max_clients = max_clients;
	s->labels = labels | DRMTOP_SERIES_LABELS_DEFAULT;
	strmap_init(&s->by_member);
	strmap_init(&s->by_labels);
	strmap_init(&s->by_device);
}

static void put_or_oom(struct update *u, struct strmap *m, const char *key, void *v)
{
	if (strmap_put(m, key, v))
		u->oom = true;
}

/* The index of an engine's counters (made if new), SIZE_MAX without memory. */
static size_t find_engine(struct update *u, struct drmtop_series_engine **arr, size_t *n,
			  size_t *cap, const char *name, enum drmtop_series_source src)
{
	struct drmtop_series_engine *e;
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*arr)[i].source == src && !strcmp((*arr)[i].name, name))
			return i;
	e = vec_push(*arr, *n, *cap);
	if (!e) {
		u->oom = true;
		return SIZE_MAX;
	}
	e->name = strdup(name);
	e->source = src;
	if (!e->name) {
		(*n)--;
		u->oom = true;
		return SIZE_MAX;
	}
	return *n - 1;
}

static struct drmtop_series_mem *find_mem(struct update *u, struct drmtop_series_mem **arr,
					  size_t *n, size_t *cap, const char *region,
					  enum drmtop_series_source src)
{
	struct drmtop_series_mem *m;
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*arr)[i].source == src && !strcmp((*arr)[i].region, region))
			return &(*arr)[i];
	m = vec_push(*arr, *n, *cap);
	if (!m) {
		u->oom = true;
		return NULL;
	}
	m->region = strdup(region);
	m->source = src;
	if (!m->region) {
		(*n)--;
		u->oom = true;
		return NULL;
	}
	return m;
}

/* Adds one client's figures of a region to a gauge of this update (a folded series sums). */
static void add_mem(struct drmtop_series_mem *m, unsigned int present, uint64_t total,
		    uint64_t shared, uint64_t resident, uint64_t purgeable, uint64_t active,
		    uint64_t imported)
{
	if (!m)
		return;
	if (!m->present) {
		m->total = m->shared = m->resident = m->purgeable = m->active = m->imported = 0;
	}
	m->present |= present;
	m->total += total;
	m->shared += shared;
	m->resident += resident;
	m->purgeable += purgeable;
	m->active += active;
	m->imported += imported;
}

static struct drmtop_series_device *get_device(struct update *u, const char *driver,
					       const char *device)
{
	struct drmtop_series *s = u->s;
	struct drmtop_series_device *d = NULL, **slot;
	char *drv = utf8_sanitize(driver), *dev = utf8_sanitize(device), *key = NULL;

	/* Keyed by the labels as exported, so two devices never share a label set. */
	if (!drv || !dev || asprintf(&key, "d%s\x1f%s", drv, dev) < 0)
		goto oom;
	d = strmap_get(&s->by_device, key);
	if (d)
		goto out;
	d = calloc(1, sizeof(*d));
	slot = d ? vec_push(s->devices, s->nr_devices, s->cap_devices) : NULL;
	if (!slot)
		goto oom;
	if (strmap_put(&s->by_device, key, d)) {
		s->nr_devices--;
		goto oom;
	}
	*slot = d;
	d->driver = drv;
	d->device = dev;
	free(key);
	return d;
oom:
	free(d);
	d = NULL;
	u->oom = true;
out:
	free(drv);
	free(dev);
	free(key);
	return d;
}

/* Remembers which device a character device or a DRM minor belongs to (for tracer clients). */
static void learn_device(struct update *u, struct drmtop_series_device *d, const char *driver,
			 bool has_rdev, dev_t rdev, int minor)
{
	char key[128];

	if (!d)
		return;
	if (has_rdev) {
		snprintf(key, sizeof(key), "r%u:%u", major(rdev), minor(rdev));
		put_or_oom(u, &u->s->by_device, key, d);
		/* The minor's number is the DRM minor index the tracer reports. */
		if (major(rdev) == DRM_MAJOR && minor < 0)
			minor = (int)minor(rdev);
	}
	if (minor >= 0) {
		snprintf(key, sizeof(key), "m%s:%d", driver, minor);
		put_or_oom(u, &u->s->by_device, key, d);
	}
}

/*
 * The device of a client only the tracer reports: the one fdinfo showed with the same char
 * device or DRM minor, else named as proc_scan.h's rule 4 (driver@major:minor) would.
 */
static struct drmtop_series_device *resolve_device(struct update *u, const char *driver,
						   bool has_rdev, dev_t rdev, int minor)
{
	struct drmtop_series_device *d = NULL;
	char key[128];

	if (has_rdev) {
		snprintf(key, sizeof(key), "r%u:%u", major(rdev), minor(rdev));
		d = strmap_get(&u->s->by_device, key);
	}
	if (!d && minor >= 0) {
		snprintf(key, sizeof(key), "m%s:%d", driver, minor);
		d = strmap_get(&u->s->by_device, key);
	}
	if (d)
		return d;
	if (has_rdev)
		snprintf(key, sizeof(key), "%s@%u:%u", driver, major(rdev), minor(rdev));
	else if (minor >= 0)
		snprintf(key, sizeof(key), "%s@%u:%d", driver, DRM_MAJOR, minor);
	else
		snprintf(key, sizeof(key), "%s", driver[0] ? driver : "unknown");
	d = get_device(u, driver, key);
	learn_device(u, d, driver, has_rdev, rdev, minor);
	return d;
}

/*
 * The exported label values of a new member's series: the device's names, the sanitized comm
 * and workload, no client identity when folded.
 */
static struct drmtop_series_ident series_ident(const struct drmtop_series_device *dev,
					       const struct drmtop_series_ident *l, bool folded,
					       const char *comm, const char *workload)
{
	struct drmtop_series_ident id = *l;

	id.driver = dev->driver;
	id.device = dev->device;
	id.comm = comm;
	id.workload = workload;
	id.container_id = l->container_id ? l->container_id : "";
	id.pod_uid = l->pod_uid ? l->pod_uid : "";
	if (folded)
		id.has_client_id = id.has_pid = false;
	return id;
}

/*
 * The exported labels, length-prefixed (no comm can make two label sets share a key); a folded
 * series has its own key space, as its empty pid is no client's.
 */
static char *label_key(const struct drmtop_series *s, const struct drmtop_series_ident *id,
		       bool folded)
{
	char *k = NULL, buf[24];
	size_t len = 0, l;
	FILE *f = open_memstream(&k, &len);

	if (!f)
		return NULL;
	fputc(folded ? 'F' : 'C', f);
	for (l = 0; l < DRMTOP_LABEL_MAX; l++) {
		const char *v = drmtop_series_label_value(id, (enum drmtop_series_label)l, buf);

		if (s->labels & DRMTOP_LABEL_BIT(l))
			fprintf(f, "%zu:%s", strlen(v), v);
	}
	if (fclose(f)) {
		free(k);
		return NULL;
	}
	return k;
}

static void client_free(struct drmtop_series_client *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_engines; i++)
		free(c->engines[i].name);
	for (i = 0; i < c->nr_mems; i++)
		free(c->mems[i].region);
	free(c->engines);
	free(c->mems);
	free((char *)c->id.driver);
	free((char *)c->id.device);
	free((char *)c->id.comm);
	free((char *)c->id.workload);
	free((char *)c->id.container_id);
	free((char *)c->id.pod_uid);
	free(c->label_key);
	free(c);
}

static struct drmtop_series_client *new_series(struct update *u,
					       const struct drmtop_series_ident *id,
					       struct drmtop_series_device *dev, bool folded,
					       char *key)
{
	struct drmtop_series *s = u->s;
	struct drmtop_series_client *c = calloc(1, sizeof(*c)), **slot;

	if (!c)
		goto oom;
	c->label_key = key;
	c->id = *id;
	c->id.driver = strdup(id->driver);
	c->id.device = strdup(id->device);
	c->id.comm = strdup(id->comm);
	c->id.workload = strdup(id->workload);
	c->id.container_id = strdup(id->container_id);
	c->id.pod_uid = strdup(id->pod_uid);
	c->folded = folded;
	c->visible = true;
	c->dev = dev;
	if (!c->id.driver || !c->id.device || !c->id.comm || !c->id.workload ||
	    !c->id.container_id || !c->id.pod_uid)
		goto oom;
	slot = vec_push(s->clients, s->nr_clients, s->cap_clients);
	if (!slot)
		goto oom;
	if (strmap_put(&s->by_labels, key, c)) {
		s->nr_clients--;
		goto oom;
	}
	*slot = c;
	return c;
oom:
	if (c)
		client_free(c);
	else
		free(key);
	u->oom = true;
	return NULL;
}

/*
 * The series a new client joins: its comm's and workload's folded one by default; with
 * per-client labels its own, or that folded one past max_clients. A client known only from its
 * close record (@live false) holds no slot of the limit: it is gone.
 */
static struct drmtop_series_client *series_for(struct update *u,
					       const struct drmtop_series_ident *l, bool live)
{
	struct drmtop_series *s = u->s;
	struct drmtop_series_device *dev = get_device(u, l->driver, l->device);
	bool per_client = s->labels & DRMTOP_SERIES_LABELS_PER_CLIENT_ONLY;
	struct drmtop_series_client *c = NULL;
	struct drmtop_series_ident id;
	char *comm, *workload = NULL, *key = NULL;

	if (!dev)
		return NULL;
	comm = utf8_sanitize(l->comm);
	workload = utf8_sanitize(l->workload ? l->workload : "");
	if (!comm || !workload)
		goto oom;
	id = series_ident(dev, l, false, comm, workload);
	if (per_client) {
		key = label_key(s, &id, false);
		if (!key)
			goto oom;
		c = strmap_get(&s->by_labels, key);
	}
	if (!c && (!per_client || s->individual_live >= s->max_clients)) {
		free(key);
		id = series_ident(dev, l, true, comm, workload);
		key = label_key(s, &id, true);
		if (!key)
			goto oom;
		s->folded_total += per_client;
		c = strmap_get(&s->by_labels, key);
		if (!c)
			c = new_series(u, &id, dev, true, key);
		else
			free(key);
	} else if (!c) {
		c = new_series(u, &id, dev, false, key);
		if (c && live)
			s->individual_live++;
	} else {
		free(key);
	}
	free(comm);
	free(workload);
	return c;
oom:
	free(comm);
	free(workload);
	u->oom = true;
	return NULL;
}

static struct drmtop_series_tracker *new_tracker(struct update *u,
						const struct drmtop_series_ident *l,
						bool live)
{
	struct drmtop_series *s = u->s;
	struct drmtop_series_tracker *t, **slot;
	struct drmtop_series_client *c = series_for(u, l, live);

	if (!c)
		return NULL;
	t = calloc(1, sizeof(*t));
	slot = t ? vec_push(s->trackers, s->nr_trackers, s->cap_trackers) : NULL;
	if (!slot) {
		free(t);
		u->oom = true;
		return NULL;
	}
	*slot = t;
	t->series = c;
	c->nr_members++;
	return t;
}

static void unmap_fd_key(struct drmtop_series *s, struct drmtop_series_tracker *t)
{
	char *k;

	if (!t->fd_key)
		return;
	if (asprintf(&k, "f%s", t->fd_key) >= 0) {
		if (strmap_get(&s->by_member, k) == t)
			strmap_del(&s->by_member, k);
		free(k);
	}
	free(t->fd_key);
	t->fd_key = NULL;
}

/* The member's fdinfo key (a tracer client fdinfo now shows, or a key it took over). */
static void map_fd_key(struct update *u, struct drmtop_series_tracker *t, const char *fd_key)
{
	char *k;

	if (t->fd_key && strcmp(t->fd_key, fd_key))
		unmap_fd_key(u->s, t);
	if (!t->fd_key) {
		t->fd_key = strdup(fd_key);
		if (!t->fd_key) {
			u->oom = true;
			return;
		}
	}
	if (asprintf(&k, "f%s", fd_key) < 0) {
		u->oom = true;
		return;
	}
	put_or_oom(u, &u->s->by_member, k, t);
	free(k);
}

static void map_uid(struct update *u, struct drmtop_series_tracker *t, uint64_t uid)
{
	char k[32];

	t->uid = uid;
	snprintf(k, sizeof(k), "u%" PRIu64, uid);
	put_or_oom(u, &u->s->by_member, k, t);
}

static struct drmtop_series_tracker *by_fd_key(struct drmtop_series *s, const char *fd_key)
{
	struct drmtop_series_tracker *t;
	char *k;

	if (!fd_key || asprintf(&k, "f%s", fd_key) < 0)
		return NULL;
	t = strmap_get(&s->by_member, k);
	free(k);
	return t;
}

static struct drmtop_series_tracker *by_uid(struct drmtop_series *s, uint64_t uid)
{
	char k[32];

	if (!uid)
		return NULL;
	snprintf(k, sizeof(k), "u%" PRIu64, uid);
	return strmap_get(&s->by_member, k);
}

/*
 * Growth of a raw counter since the member's last report; a counter that went back is
 * followed from its new value (it cannot take back what was counted). For the tracer's own
 * counters: maps that started over count again from 0.
 */
static uint64_t growth(uint64_t *last, uint64_t now, bool first)
{
	uint64_t d = first ? now : now > *last ? now - *last : 0;

	*last = now;
	return d;
}

/*
 * Growth of an engine figure past the highest one seen: the tracer's live figure includes an
 * estimate of the running job that its close record may not (the job ends later, in a further
 * record), and what was counted of it must not be counted again.
 */
static uint64_t growth_past(uint64_t *high, uint64_t now, bool first)
{
	uint64_t d = first ? now : now > *high ? now - *high : 0;

	if (first || now > *high)
		*high = now;
	return d;
}

static void add_sat(uint64_t *sum, uint64_t v)
{
	*sum = v > UINT64_MAX - *sum ? UINT64_MAX : *sum + v;
}

/* Whether a member already has a figure of @engine that drmtop stands behind. */
static bool has_best(const struct drmtop_series_tracker *t, const char *engine)
{
	size_t i;

	for (i = 0; i < t->nr_raws; i++)
		if (t->raws[i].best && !strcmp(t->raws[i].engine, engine))
			return true;
	return false;
}

/*
 * Whether a new raw figure of @src becomes the member's best for its engine: the first of the
 * engine, unless it is the tracer's on an engine fdinfo does not list for a client fdinfo
 * times (an unmapped ring): the driver's figures already hold that work.
 */
static bool new_best(const struct drmtop_series_tracker *t, const char *engine,
		     enum drmtop_series_source src)
{
	size_t i;

	if (has_best(t, engine))
		return false;
	for (i = 0; src == DRMTOP_SERIES_BPF && i < t->nr_raws; i++)
		if (t->raws[i].source == DRMTOP_SERIES_FDINFO)
			return false;
	return true;
}

/*
 * One engine figure of one member: its growth goes to its series and its device, under its
 * source and, for the member's best figure of the engine, under DRMTOP_SERIES_BEST. The first
 * source to report an engine of a member is its best for good (touch_client feeds fdinfo
 * first): switching later would count the same work twice or take it back. One exception: the
 * tracer's close record of a client it already followed beside fdinfo adds to the best figure
 * what the tracer counted since the last sample, the jobs that ran after fdinfo's last read
 * (fdinfo cannot be read once the client closed: a short-lived client's tail would be lost).
 * With @closed the figures are one close record's, added to the earlier ones of the client.
 */
static void feed(struct update *u, struct drmtop_series_tracker *t, const char *engine,
		 enum drmtop_series_source src, uint64_t busy_ns, bool has_jobs, uint64_t jobs,
		 bool closed)
{
	struct drmtop_series_client *c = t->series;
	struct drmtop_series_device *d = c->dev;
	struct drmtop_series_engine *ce, *de;
	size_t ci, di, bci = SIZE_MAX, bdi = SIZE_MAX;
	struct raw *r = NULL;
	uint64_t db, dj;
	bool first = false, best, to_best;
	size_t i;

	for (i = 0; i < t->nr_raws && !r; i++)
		if (t->raws[i].source == src && !strcmp(t->raws[i].engine, engine))
			r = &t->raws[i];
	if (!r) {
		best = new_best(t, engine, src);
		r = vec_push(t->raws, t->nr_raws, t->cap_raws);
		if (r)
			r->engine = strdup(engine);
		if (!r || !r->engine) {
			if (r)
				t->nr_raws--;
			u->oom = true;
			return;
		}
		r->source = src;
		r->best = best;
		first = true;
	}
	to_best = r->best || (closed && src == DRMTOP_SERIES_BPF && !first && has_best(t, engine));
	/* Indices, not pointers: each find may grow the array an earlier one pointed into. */
	ci = find_engine(u, &c->engines, &c->nr_engines, &c->cap_engines, engine, src);
	di = find_engine(u, &d->engines, &d->nr_engines, &d->cap_engines, engine, src);
	if (to_best) {
		bci = find_engine(u, &c->engines, &c->nr_engines, &c->cap_engines, engine,
				  DRMTOP_SERIES_BEST);
		bdi = find_engine(u, &d->engines, &d->nr_engines, &d->cap_engines, engine,
				  DRMTOP_SERIES_BEST);
	}
	if (ci == SIZE_MAX || di == SIZE_MAX || (to_best && (bci == SIZE_MAX || bdi == SIZE_MAX))) {
		/* Not counted now: keep the raw figures so the growth is counted next time. */
		if (first)
			free(t->raws[--t->nr_raws].engine);
		return;
	}
	ce = &c->engines[ci];
	de = &d->engines[di];
	if (closed) {
		add_sat(&r->closed_busy_ns, busy_ns);
		add_sat(&r->closed_jobs, jobs);
		busy_ns = r->closed_busy_ns;
		jobs = r->closed_jobs;
	}
	db = growth_past(&r->busy_ns, busy_ns, first);
	dj = has_jobs ? growth_past(&r->jobs, jobs, first) : 0;
	add_sat(&ce->busy_ns, db);
	add_sat(&de->busy_ns, db);
	if (to_best) {
		add_sat(&c->engines[bci].busy_ns, db);
		add_sat(&d->engines[bdi].busy_ns, db);
	}
	if (has_jobs) {
		ce->has_jobs = de->has_jobs = true;
		add_sat(&ce->jobs, dj);
		add_sat(&de->jobs, dj);
	}
	if ((db || dj) && (!c->visible || c->gone_gen)) {
		/* A late final figure for a closed series: shown (again) until scraped. */
		c->visible = true;
		c->gone_gen = 0;
	}
}

static void close_tracker(struct update *u, struct drmtop_series_tracker *t)
{
	if (t->closed)
		return;
	t->closed = true;
	t->closed_gen = u->gen;
	u->s->closed_total++;
}

/* A client's workload labels from its cgroup (@g NULL or without path: not known, ""). */
static void cgroup_labels(struct drmtop_series_ident *l, const struct drmtop_model_cgroup *g,
			  char cid[DRMTOP_SERIES_CONTAINER_ID_MAX])
{
	l->workload = g && g->workload ? g->workload : "";
	l->container_id = drmtop_series_container_id(g, cid, DRMTOP_SERIES_CONTAINER_ID_MAX);
	l->pod_uid = g && g->pod ? g->pod : "";
}

static void client_labels(struct update *u, const struct drmtop_model_client *c,
			  struct drmtop_series_ident *l, char cid[DRMTOP_SERIES_CONTAINER_ID_MAX])
{
	const struct drmtop_model_bpf *b = c->bpf;
	struct drmtop_series_device *d;

	memset(l, 0, sizeof(*l));
	l->driver = c->driver ? c->driver : b && b->driver ? b->driver : "";
	l->comm = c->comm ? c->comm : "";
	cgroup_labels(l, &c->cgroup, cid);
	l->has_client_id = c->has_client_id;
	l->client_id = c->client_id;
	l->has_pid = !(b && b->kernel);
	l->pid = c->pid;
	if (c->dev_key) {
		l->device = c->dev_key;
		return;
	}
	d = resolve_device(u, l->driver, c->node != NULL, c->rdev, b ? b->minor : -1);
	l->device = d ? d->device : "unknown";
}

/* Whether a client's fdinfo figures are below what a member last had: not the same client. */
static bool figures_below(const struct drmtop_series_tracker *t,
			  const struct drmtop_model_client *c)
{
	size_t i, j;

	for (i = 0; i < c->nr_engines; i++) {
		const struct drmtop_model_engine *e = &c->engines[i];

		if (!e->in_fdinfo || !(e->fd.flags & DRMTOP_FD_BUSY))
			continue;
		for (j = 0; j < t->nr_raws; j++)
			if (t->raws[j].source == DRMTOP_SERIES_FDINFO &&
			    !strcmp(t->raws[j].engine, e->name) &&
			    e->fd.busy_effective_ns < t->raws[j].busy_ns)
				return true;
	}
	return false;
}

/*
 * One open client's memory gauges, per source and best: the driver's regions when its fdinfo
 * prints any, else the tracer's GEM bytes ("gem"). The device's best figures are the sums of
 * its clients'.
 */
static void client_mem(struct update *u, struct drmtop_series_client *sc,
		       const struct drmtop_model_client *c)
{
	struct drmtop_series_device *d = sc->dev;
	bool fd_mem = false;
	size_t i, k;

	for (i = 0; c->in_fdinfo && i < c->nr_regions; i++)
		fd_mem |= c->regions[i].present != 0;
	for (i = 0; fd_mem && i < c->nr_regions; i++) {
		const struct drmtop_model_region *r = &c->regions[i];
		static const enum drmtop_series_source srcs[] = { DRMTOP_SERIES_FDINFO,
								  DRMTOP_SERIES_BEST };

		for (k = 0; k < 2; k++)
			add_mem(find_mem(u, &sc->mems, &sc->nr_mems, &sc->cap_mems, r->name,
					 srcs[k]),
				r->present, r->total, r->shared, r->resident, r->purgeable,
				r->active, 0);
		add_mem(find_mem(u, &d->mems, &d->nr_mems, &d->cap_mems, r->name,
				 DRMTOP_SERIES_BEST),
			r->present, r->total, r->shared, r->resident, r->purgeable, r->active, 0);
	}
	if (!c->bpf)
		return;
	add_mem(find_mem(u, &sc->mems, &sc->nr_mems, &sc->cap_mems, "gem", DRMTOP_SERIES_BPF),
		DRMTOP_MEM_TOTAL | DRMTOP_MEM_SHARED | DRMTOP_SERIES_MEM_IMPORTED,
		c->bpf->mem_total, c->bpf->mem_shared, 0, 0, 0, c->bpf->mem_imported);
	if (fd_mem)
		return;
	add_mem(find_mem(u, &sc->mems, &sc->nr_mems, &sc->cap_mems, "gem", DRMTOP_SERIES_BEST),
		DRMTOP_MEM_TOTAL | DRMTOP_MEM_SHARED, c->bpf->mem_total, c->bpf->mem_shared, 0, 0,
		0, 0);
	add_mem(find_mem(u, &d->mems, &d->nr_mems, &d->cap_mems, "gem", DRMTOP_SERIES_BEST),
		DRMTOP_MEM_TOTAL | DRMTOP_MEM_SHARED, c->bpf->mem_total, c->bpf->mem_shared, 0, 0,
		0, 0);
}

/* A client of this model: find or make its member, feed its figures. */
static void touch_client(struct update *u, const struct drmtop_model_client *c)
{
	const char *fd_key = c->in_fdinfo ? c->key : NULL;
	uint64_t uid = c->bpf ? c->bpf->uid : 0;
	struct drmtop_series_tracker *t = by_fd_key(u->s, fd_key);
	char cid[DRMTOP_SERIES_CONTAINER_ID_MAX];
	bool first_now;
	struct drmtop_series_ident l;
	size_t i;

	/*
	 * A closed member comes back when a client missed one sample (a process that denied
	 * access for a moment); a key taken by another open file (fdinfo keys without a client
	 * id are pid/fd) shows lower figures or another tracer uid: a new member.
	 */
	if (t && ((uid && t->uid && t->uid != uid) || (t->closed && figures_below(t, c))))
		t = NULL;
	if (!t)
		t = by_uid(u->s, uid);
	if (!t) {
		client_labels(u, c, &l, cid);
		t = new_tracker(u, &l, true);
		if (!t)
			return;
	}
	if (fd_key && (!t->fd_key || strcmp(t->fd_key, fd_key) || by_fd_key(u->s, fd_key) != t))
		map_fd_key(u, t, fd_key);
	if (uid && !t->uid)
		map_uid(u, t, uid);
	first_now = t->seen_gen != u->gen;
	t->seen_gen = u->gen;
	if (first_now && c->diverged)
		t->series->dev->diverged++;
	if (t->closed)
		u->s->closed_total--;
	t->closed = false;
	for (i = 0; i < c->nr_engines; i++) {
		const struct drmtop_model_engine *e = &c->engines[i];

		if (e->in_fdinfo && (e->fd.flags & DRMTOP_FD_BUSY))
			feed(u, t, e->name, DRMTOP_SERIES_FDINFO, e->fd.busy_effective_ns, false,
			     0, false);
		if (e->in_bpf)
			feed(u, t, e->name, DRMTOP_SERIES_BPF, e->bpf.busy_ns, true, e->bpf.jobs,
			     false);
	}
	if (first_now)
		client_mem(u, t->series, c);
}

/* The engine a closed client's ring counts under (a model built without the table: the ring). */
static const char *closed_engine(const struct drmtop_model_closed_engine *e)
{
	return e->engine ? e->engine : e->name;
}

/*
 * The rings of closed client @cl that its engine @i stands for, summed and fed once: the first
 * ring of each engine feeds it, later ones were counted with it (a client's rings are a handful).
 */
static void feed_closed_engine(struct update *u, struct drmtop_series_tracker *t,
			       const struct drmtop_model_closed *cl, size_t i)
{
	const char *engine = closed_engine(&cl->engines[i]);
	uint64_t busy = 0, jobs = 0;
	size_t j;

	for (j = 0; j < cl->nr_engines; j++) {
		if (strcmp(closed_engine(&cl->engines[j]), engine))
			continue;
		if (j < i)
			return;
		busy += cl->engines[j].busy_ns;
		jobs += cl->engines[j].jobs;
	}
	feed(u, t, engine, DRMTOP_SERIES_BPF, busy, true, jobs, true);
}

/* A client that closed: the tracer's final figures, or fdinfo's word that it went. */
static void touch_closed(struct update *u, const struct drmtop_model_closed *cl)
{
	char cid[DRMTOP_SERIES_CONTAINER_ID_MAX];
	struct drmtop_series_tracker *t;
	struct drmtop_series_device *d;
	struct drmtop_series_ident l;
	size_t i;

	if (!cl->from_bpf) {
		t = by_fd_key(u->s, cl->key);
		if (t && t->seen_gen != u->gen)
			close_tracker(u, t);
		return;
	}
	t = by_uid(u->s, cl->bpf.uid);
	if (!t) {
		/* Opened and closed between two samples: its figures are only here. */
		memset(&l, 0, sizeof(l));
		l.driver = cl->driver ? cl->driver : "";
		l.comm = cl->bpf.kernel ? "[kernel]" : cl->comm ? cl->comm : "";
		l.has_client_id = cl->has_client_id;
		l.client_id = cl->client_id;
		l.has_pid = !cl->bpf.kernel;
		l.pid = cl->pid;
		/* the opener's cgroup, named from the tracer's id while it existed */
		cgroup_labels(&l, &cl->cgroup, cid);
		d = cl->dev_key ? NULL : resolve_device(u, l.driver, false, 0, cl->bpf.minor);
		l.device = cl->dev_key ? cl->dev_key : d ? d->device : "unknown";
		t = new_tracker(u, &l, false);
		if (!t)
			return;
		map_uid(u, t, cl->bpf.uid);
	}
	for (i = 0; i < cl->nr_engines; i++)
		feed_closed_engine(u, t, cl, i);
	close_tracker(u, t);
}

static void learn_devices(struct update *u, const struct drmtop_model *m)
{
	size_t i;

	for (i = 0; i < m->nr_fdinfo_clients; i++) {
		const struct drmtop_model_client *c = &m->clients[i];
		const char *driver = c->driver ? c->driver : "";
		struct drmtop_series_device *d;

		if (!c->dev_key)
			continue;
		d = get_device(u, driver, c->dev_key);
		learn_device(u, d, driver, true, c->rdev, c->bpf ? c->bpf->minor : -1);
	}
}

static void device_gauges(struct update *u, const struct drmtop_model *m)
{
	size_t i, k;

	for (i = 0; i < m->nr_devices; i++) {
		const struct drmtop_model_device *md = &m->devices[i];
		struct drmtop_series_device *d = get_device(u, md->driver ? md->driver : "",
							    md->key);

		if (!d)
			continue;
		d->present = true;
		d->clients = md->nr_clients;
		for (k = 0; k < md->nr_regions; k++) {
			const struct drmtop_model_region *r = &md->regions[k];

			add_mem(find_mem(u, &d->mems, &d->nr_mems, &d->cap_mems, r->name,
					 DRMTOP_SERIES_FDINFO),
				r->present, r->total, r->shared, r->resident, r->purgeable,
				r->active, 0);
		}
	}
	for (i = 0; i < m->nr_bpf_devices; i++) {
		const struct drmtop_model_bpf_device *bd = &m->bpf_devices[i];
		const char *driver = bd->driver ? bd->driver : "";
		struct drmtop_series_device *d = resolve_device(u, driver, false, 0, bd->minor);

		if (!d)
			continue;
		d->present = true;
		d->has_gem = true;
		d->gem_objects = bd->gem_objects;
		d->gem_bytes = bd->gem_bytes;
	}
}

/* A named monotonic counter of the tracer (its own count, or a program's misses). */
static void count_named(struct update *u, struct drmtop_series_counter **arr, size_t *n,
			size_t *cap, const char *name, enum drmtop_counter_kind kind, uint64_t raw)
{
	struct drmtop_series_counter *c = NULL;
	bool first = false;
	size_t j;

	if (!name)
		return;
	for (j = 0; j < *n && !c; j++)
		if (!strcmp((*arr)[j].name, name))
			c = &(*arr)[j];
	if (!c) {
		c = vec_push(*arr, *n, *cap);
		if (c)
			c->name = strdup(name);
		if (!c || !c->name) {
			if (c)
				(*n)--;
			u->oom = true;
			return;
		}
		first = true;
	}
	c->kind = kind;
	add_sat(&c->value, growth(&c->raw, raw, first));
}

static void bpf_counters(struct update *u, const struct drmtop_model *m)
{
	struct drmtop_series *s = u->s;
	size_t i;

	for (i = 0; i < m->nr_counters; i++)
		count_named(u, &s->counters, &s->nr_counters, &s->cap_counters, m->counters[i].name,
			    m->counters[i].kind, m->counters[i].value);
	for (i = 0; i < m->nr_progs; i++)
		count_named(u, &s->progs, &s->nr_progs, &s->cap_progs, m->progs[i].name,
			    DRMTOP_COUNTER_LOSS, m->progs[i].recursion_misses);
	if (m->bpf_active)
		add_sat(&s->missed, growth(&s->missed_raw, m->missed.since_start, false));
}

static void reset_gauges(struct drmtop_series *s)
{
	size_t i, k;

	for (i = 0; i < s->nr_clients; i++) {
		s->clients[i]->live = 0;
		for (k = 0; k < s->clients[i]->nr_mems; k++)
			s->clients[i]->mems[k].present = 0;
	}
	for (i = 0; i < s->nr_devices; i++) {
		struct drmtop_series_device *d = s->devices[i];

		d->present = false;
		d->clients = 0;
		d->diverged = 0;
		d->has_gem = false;
		for (k = 0; k < d->nr_mems; k++)
			d->mems[k].present = 0;
	}
}

static void tracker_free(struct drmtop_series *s, struct drmtop_series_tracker *t)
{
	char k[32];
	size_t i;

	unmap_fd_key(s, t);
	if (t->uid) {
		snprintf(k, sizeof(k), "u%" PRIu64, t->uid);
		if (strmap_get(&s->by_member, k) == t)
			strmap_del(&s->by_member, k);
	}
	for (i = 0; i < t->nr_raws; i++)
		free(t->raws[i].engine);
	free(t->raws);
	free(t);
}

static int cmp_gone(const void *a, const void *b)
{
	const struct drmtop_series_client *x = *(struct drmtop_series_client *const *)a;
	const struct drmtop_series_client *y = *(struct drmtop_series_client *const *)b;

	return x->gone_gen < y->gone_gen ? -1 : x->gone_gen > y->gone_gen;
}

/*
 * Which hidden series to forget first: per-client ones (a client id and pid are seldom seen
 * again), then folded ones (a command name comes back), oldest first.
 */
static int cmp_hidden(const void *a, const void *b)
{
	const struct drmtop_series_client *x = *(struct drmtop_series_client *const *)a;
	const struct drmtop_series_client *y = *(struct drmtop_series_client *const *)b;

	if (x->folded != y->folded)
		return x->folded ? 1 : -1;
	return x->hidden_gen < y->hidden_gen ? -1 : x->hidden_gen > y->hidden_gen;
}

/*
 * A series with an open client; a folded one also while it has closed members (kept
 * TRACKER_KEEP_GENS samples): a command whose clients come and go would otherwise come and go
 * from the exposition too.
 */
static bool active(const struct drmtop_series_client *c)
{
	return c->folded ? c->nr_members > 0 : c->live > 0;
}

/* Liveness, then what is shown: open series, and closed ones until a scrape saw them. */
static void settle(struct update *u)
{
	struct drmtop_series *s = u->s;
	struct drmtop_series_client **pick;
	size_t i, j, n = 0;

	s->live_clients = s->folded_live = s->individual_live = 0;
	for (i = 0; i < s->nr_trackers; i++) {
		struct drmtop_series_tracker *t = s->trackers[i];

		if (t->closed)
			continue;
		t->series->live++;
		s->live_clients++;
		s->folded_live += t->series->folded;
	}
	for (i = 0; i < s->nr_clients; i++) {
		struct drmtop_series_client *c = s->clients[i];

		if (active(c)) {
			c->visible = true;
			c->gone_gen = 0;
			c->scraped = false;
			s->individual_live += !c->folded && c->live;
		} else if (c->visible && !c->gone_gen) {
			c->gone_gen = u->gen;
			c->scraped = false;
		} else if (c->visible && c->scraped) {
			c->visible = false;
			c->hidden_gen = u->gen;
		}
	}
	/* Without scrapes closed series would pile up: keep the newest max_clients. */
	pick = malloc((s->nr_clients ? s->nr_clients : 1) * sizeof(*pick));
	if (!pick) {
		u->oom = true;
		return;
	}
	for (i = 0; i < s->nr_clients; i++)
		if (s->clients[i]->visible && !active(s->clients[i]))
			pick[n++] = s->clients[i];
	if (n > s->max_clients) {
		qsort(pick, n, sizeof(*pick), cmp_gone);
		for (i = 0; i < n - s->max_clients; i++) {
			pick[i]->visible = false;
			pick[i]->hidden_gen = u->gen;
		}
	}
	/* Hidden series with no member left are kept for label sets that come back, to a bound. */
	n = 0;
	for (i = 0; i < s->nr_clients; i++)
		if (!s->clients[i]->visible && !s->clients[i]->nr_members)
			pick[n++] = s->clients[i];
	if (n > 4 * s->max_clients + 64) {
		qsort(pick, n, sizeof(*pick), cmp_hidden);
		for (i = 0; i < n - (4 * s->max_clients + 64); i++) {
			strmap_del(&s->by_labels, pick[i]->label_key);
			for (j = 0; j < s->nr_clients; j++)
				if (s->clients[j] == pick[i])
					break;
			memmove(&s->clients[j], &s->clients[j + 1],
				(s->nr_clients - j - 1) * sizeof(*s->clients));
			s->nr_clients--;
			client_free(pick[i]);
			s->forgotten_total++;
		}
	}
	free(pick);
}

/* Closed members are dropped once the tracer's late close record can no longer come. */
static void drop_trackers(struct update *u)
{
	struct drmtop_series *s = u->s;
	size_t i = 0;

	while (i < s->nr_trackers) {
		struct drmtop_series_tracker *t = s->trackers[i];

		if (!t->closed || u->gen - t->closed_gen < TRACKER_KEEP_GENS) {
			i++;
			continue;
		}
		t->series->nr_members--;
		tracker_free(s, t);
		s->trackers[i] = s->trackers[--s->nr_trackers];
	}
}

int drmtop_series_update(struct drmtop_series *s, const struct drmtop_model *m,
			 uint64_t sample_ns)
{
	struct update u = { .s = s, .gen = ++s->gen };
	size_t i;

	reset_gauges(s);
	learn_devices(&u, m);
	for (i = 0; i < m->nr_clients; i++)
		touch_client(&u, &m->clients[i]);
	for (i = 0; i < m->nr_closed; i++)
		touch_closed(&u, &m->closed[i]);
	/* Gone without a word (a -p filter, a vanished process): closed all the same. */
	for (i = 0; i < s->nr_trackers; i++)
		if (s->trackers[i]->seen_gen != u.gen)
			close_tracker(&u, s->trackers[i]);
	device_gauges(&u, m);
	bpf_counters(&u, m);
	settle(&u);
	drop_trackers(&u);

	s->samples++;
	s->last_realtime_ns = m->realtime_ns;
	s->last_sample_ns = sample_ns;
	s->status = m->status;
	s->bpf_active = m->bpf_active;
	s->bpf_hooks_attached = m->bpf_hooks_attached;
	s->bpf_hooks = m->bpf_hooks;
	s->has_scan = m->has_scan;
	s->scan = m->scan;
	return u.oom ? -ENOMEM : 0;
}

void drmtop_series_sample_failed(struct drmtop_series *s)
{
	s->refresh_errors++;
}

void drmtop_series_scraped(struct drmtop_series *s)
{
	size_t i;

	for (i = 0; i < s->nr_clients; i++)
		if (s->clients[i]->visible && s->clients[i]->gone_gen)
			s->clients[i]->scraped = true;
}

void drmtop_series_fini(struct drmtop_series *s)
{
	size_t i, k;

	for (i = 0; i < s->nr_trackers; i++)
		tracker_free(s, s->trackers[i]);
	for (i = 0; i < s->nr_clients; i++)
		client_free(s->clients[i]);
	for (i = 0; i < s->nr_devices; i++) {
		struct drmtop_series_device *d = s->devices[i];

		for (k = 0; k < d->nr_engines; k++)
			free(d->engines[k].name);
		for (k = 0; k < d->nr_mems; k++)
			free(d->mems[k].region);
		free(d->engines);
		free(d->mems);
		free(d->driver);
		free(d->device);
		free(d);
	}
	for (i = 0; i < s->nr_counters; i++)
		free(s->counters[i].name);
	for (i = 0; i < s->nr_progs; i++)
		free(s->progs[i].name);
	free(s->progs);
	free(s->trackers);
	free(s->clients);
	free(s->devices);
	free(s->counters);
	strmap_fini(&s->by_member);
	strmap_fini(&s->by_labels);
	strmap_fini(&s->by_device);
	memset(s, 0, sizeof(*s));
}
