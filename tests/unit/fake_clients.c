// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "fake_clients.h"

void fake_fdinfo_init(struct fake_fdinfo *f, uint64_t client_id, const char *engine, double pct,
		      uint64_t total, pid_t pid, int fd)
{
	memset(f, 0, sizeof(*f));
	f->c.rdev = makedev(226, 128);
	f->c.info.present = client_id ? DRM_FDINFO_HAS_CLIENT_ID : 0;
	f->c.info.client_id = client_id;
	f->eng[0].name = (char *)engine;
	f->eng[0].present = DRM_ENGINE_HAS_BUSY;
	f->eng[0].capacity = 1;
	f->usage[0].flags = DRM_USAGE_BUSY_VALID;
	f->usage[0].busy_pct = pct;
	f->usage[0].capacity = 1;
	f->c.info.engines = f->eng;
	f->c.info.nr_engines = 1;
	f->c.usage = f->usage;
	f->reg.name = "memory";
	f->reg.present = DRM_REGION_HAS_TOTAL;
	f->reg.total = total;
	f->c.info.regions = &f->reg;
	f->c.info.nr_regions = 1;
	f->holder.pid = pid;
	f->holder.fd = fd;
	f->c.holders = &f->holder;
	f->c.nr_holders = 1;
	f->c.pid = pid;
	f->c.fd = fd;
}

void fake_bpf_init(struct fake_bpf *b, uint64_t uid, uint64_t file, uint64_t client_id,
		   uint64_t mem_total)
{
	memset(b, 0, sizeof(*b));
	b->bc.c.uid = uid;
	b->bc.c.file = file;
	b->bc.c.client_id = client_id;
	b->bc.c.dev_major = 226;
	b->bc.c.dev_minor = 128;
	b->bc.c.mem_total = mem_total;
	b->bc.engines = b->eng;
}

void fake_ring(struct fake_bpf *b, uint64_t ring, const char *name, uint64_t busy_ns,
	       uint64_t jobs)
{
	struct drmtop_bpf_engine *e = &b->eng[b->bc.n_engines++];

	e->ring = ring;
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->busy_ns = busy_ns;
	e->jobs = jobs;
}

void fake_snap(struct drmtop_bpf_snapshot *s, struct drmtop_bpf_client *clients, size_t n,
	       uint64_t taken_ns)
{
	memset(s, 0, sizeof(*s));
	s->taken_ns = taken_ns;
	s->clients = clients;
	s->n_clients = n;
}
