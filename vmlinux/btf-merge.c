// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf-merge: merges a kernel's vmlinux BTF with the split BTF of some of its modules into one
 * standalone, deduplicated BTF blob, so `bpftool btf dump file <out> format c` gives a single
 * vmlinux.h that also holds module types (drm, gpu_sched).
 *
 * Each module's .BTF is split BTF on top of vmlinux: its type ids start after the last vmlinux
 * id and refer to vmlinux types by their ids. Modules repeat the types they share (e.g. drm.ko
 * and gpu-sched.ko both carry struct drm_gem_object), so the modules' types are appended one
 * module after the other with their ids remapped, then btf__dedup() folds the repeats.
 *
 * Usage: btf-merge <vmlinux-elf-or-raw-btf> <out.btf> <module.ko>...
 * Built and run by vmlinux/gen-vmlinux-h.sh; checked with libbpf 1.1.2.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

/* Rewrites one type id field from the module's numbering into the merged numbering. */
static void remap_id(__u32 *id, __u32 base_cnt, __u32 offset)
{
	if (*id >= base_cnt)
		*id = *id - base_cnt + offset;
}

/* Visits every field of @t that holds a type id (all kinds up to BTF_KIND_ENUM64). */
static int remap_type(struct btf_type *t, __u32 base_cnt, __u32 offset)
{
	struct btf_member *m;
	struct btf_param *p;
	struct btf_var_secinfo *v;
	struct btf_array *a;
	__u16 i, vlen = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FWD:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FLOAT:
		return 0;
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_DECL_TAG:
		remap_id(&t->type, base_cnt, offset);
		return 0;
	case BTF_KIND_ARRAY:
		a = btf_array(t);
		remap_id(&a->type, base_cnt, offset);
		remap_id(&a->index_type, base_cnt, offset);
		return 0;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (i = 0, m = btf_members(t); i < vlen; i++, m++)
			remap_id(&m->type, base_cnt, offset);
		return 0;
	case BTF_KIND_FUNC_PROTO:
		remap_id(&t->type, base_cnt, offset);
		for (i = 0, p = btf_params(t); i < vlen; i++, p++)
			remap_id(&p->type, base_cnt, offset);
		return 0;
	case BTF_KIND_DATASEC:
		for (i = 0, v = btf_var_secinfos(t); i < vlen; i++, v++)
			remap_id(&v->type, base_cnt, offset);
		return 0;
	default:
		fprintf(stderr, "btf-merge: unknown BTF kind %u\n", btf_kind(t));
		return -EINVAL;
	}
}

static int append_module(struct btf *out, struct btf *base, const char *path)
{
	__u32 base_cnt = btf__type_cnt(base);
	__u32 offset = btf__type_cnt(out);
	struct btf *mod;
	__u32 id, cnt;
	int err = 0;

	mod = btf__parse_split(path, base);
	if (!mod) {
		err = -errno;
		fprintf(stderr, "btf-merge: %s: no split BTF: %s\n", path, strerror(errno));
		return err;
	}
	cnt = btf__type_cnt(mod);
	for (id = base_cnt; id < cnt; id++) {
		int new_id = btf__add_type(out, mod, btf__type_by_id(mod, id));

		if (new_id < 0) {
			err = new_id;
			fprintf(stderr, "btf-merge: %s: type %u: %s\n", path, id, strerror(-err));
			break;
		}
		/* btf__add_type() copies ids verbatim; libbpf hands out the copy as const only. */
		err = remap_type((struct btf_type *)btf__type_by_id(out, new_id), base_cnt, offset);
		if (err)
			break;
	}
	fprintf(stderr, "btf-merge: %s: %u types\n", path, cnt - base_cnt);
	btf__free(mod);
	return err;
}

int main(int argc, char **argv)
{
	struct btf *base, *out;
	const void *raw;
	__u32 raw_sz;
	FILE *f;
	int i, err;

	if (argc < 3) {
		fprintf(stderr, "usage: %s <vmlinux> <out.btf> [module.ko]...\n", argv[0]);
		return 2;
	}
	base = btf__parse(argv[1], NULL);
	if (!base) {
		fprintf(stderr, "btf-merge: %s: no BTF: %s\n", argv[1], strerror(errno));
		return 1;
	}
	out = btf__new_empty();
	if (!out || btf__add_btf(out, base) < 0) {
		fprintf(stderr, "btf-merge: copying vmlinux BTF failed\n");
		return 1;
	}
	for (i = 3; i < argc; i++) {
		if (append_module(out, base, argv[i]))
			return 1;
	}
	err = btf__dedup(out, NULL);
	if (err) {
		fprintf(stderr, "btf-merge: dedup failed: %s\n", strerror(-err));
		return 1;
	}
	raw = btf__raw_data(out, &raw_sz);
	f = fopen(argv[2], "wb");
	if (!raw || !f || fwrite(raw, 1, raw_sz, f) != raw_sz || fclose(f)) {
		fprintf(stderr, "btf-merge: writing %s failed\n", argv[2]);
		return 1;
	}
	fprintf(stderr, "btf-merge: %u types in %s\n", btf__type_cnt(out) - 1, argv[2]);
	btf__free(out);
	btf__free(base);
	return 0;
}
