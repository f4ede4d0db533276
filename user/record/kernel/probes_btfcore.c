// SPDX-License-Identifier: GPL-2.0-only
/* The kernel's BTF as libbpf's CO-RE relocations need it: the types a
 * relocation can reach, at their own ids, the rest a placeholder each.
 * libbpf 1.1 finds each relocated type's candidates by walking every type
 * of the BTF it is given (btf_custom_path, else the kernel's: 125,869 here,
 * ~5.5 MiB read at random, ~0.9 ms a walk, ~30 walks a start-up: a quarter
 * of its CPU).  This BTF ends after the last candidate (the last kernel type
 * whose essential name is a program type's: probes_btfnames.c) and the
 * types reached from the candidates past it; every other type before it is
 * an unnamed pointer to void, which no named type matches, 12 bytes.
 *
 * Exact: the candidates are the same types at the same ids, in the same
 * order (bpf_core_type_id_kernel still gives the kernel's ids); from a
 * candidate libbpf 1.1 follows struct and union members, typedefs,
 * modifiers and array elements (field offsets, sizes, existence), all
 * kept, and reads a pointer's kind, never what it points to, except in a
 * type-based relocation of a type that is, past typedefs, a pointer, an
 * array or a function prototype, whose candidates keep all they refer to
 * (with a TYPE_MATCHES relocation, which would read more, nothing is kept:
 * probes_btfnames.c).  A pointer to a type not kept points to void.  Used
 * only where the kernel has no module BTF (/sys/kernel/btf holds vmlinux
 * alone): with a custom BTF libbpf looks for no candidates in modules. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "btfcache.h"
#include "probes_int.h"

#define IN_SET 1    /* reached from a candidate */
#define FOLLOW_PTR 2 /* ... through which pointers are followed too */

static size_t rec_size(const struct btf_type *t)
{
	size_t vlen = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		return sizeof(*t) + sizeof(__u32);
	case BTF_KIND_ARRAY:
		return sizeof(*t) + sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return sizeof(*t) + vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return sizeof(*t) + vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return sizeof(*t) + vlen * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:
		return sizeof(*t) + vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return sizeof(*t) + sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return sizeof(*t) + vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:
		return sizeof(*t) + sizeof(struct btf_decl_tag);
	default: /* PTR, FWD, TYPEDEF, VOLATILE, CONST, RESTRICT, FUNC, FLOAT, TYPE_TAG */
		return sizeof(*t);
	}
}

/* The type ids t refers to (up to n; a struct's members may be many). */
static size_t refs_of(struct btf_type *t, __u32 **out, size_t n)
{
	size_t k = 0, vlen = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
		return 0;
	case BTF_KIND_ARRAY:
		out[k++] = &btf_array(t)->type;
		out[k++] = &btf_array(t)->index_type;
		return k;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (size_t i = 0; i < vlen && k < n; i++)
			out[k++] = &btf_members(t)[i].type;
		return k;
	case BTF_KIND_FUNC_PROTO:
		out[k++] = &t->type;
		for (size_t i = 0; i < vlen && k < n; i++)
			out[k++] = &btf_params(t)[i].type;
		return k;
	case BTF_KIND_DATASEC:
		for (size_t i = 0; i < vlen && k < n; i++)
			out[k++] = &btf_var_secinfos(t)[i].type;
		return k;
	default: /* PTR, TYPEDEF, modifiers, FUNC, VAR, DECL_TAG */
		out[k++] = &t->type;
		return k;
	}
}

/* The string offsets in t (its name, its members', values', parameters'). */
static size_t names_of(struct btf_type *t, __u32 **out, size_t n)
{
	size_t k = 0, vlen = btf_vlen(t);

	out[k++] = &t->name_off;
	for (size_t i = 0; i < vlen && k < n; i++) {
		if (btf_is_composite(t))
			out[k++] = &btf_members(t)[i].name_off;
		else if (btf_is_enum(t))
			out[k++] = &btf_enum(t)[i].name_off;
		else if (btf_is_enum64(t))
			out[k++] = &btf_enum64(t)[i].name_off;
		else if (btf_is_func_proto(t))
			out[k++] = &btf_params(t)[i].name_off;
	}
	return k;
}

/* The strings of the types copied, appended as they come (no type but
 * those names any: the kernel's 3 MiB string section is not copied). */
struct strs {
	char *s;
	size_t len, cap;
};

static __u32 add_str(struct strs *st, const char *str)
{
	size_t n = strlen(str) + 1, at = st->len;

	if (st->len + n > st->cap) {
		size_t cap = st->cap ? st->cap : 65536;
		char *s;

		while (cap < st->len + n)
			cap *= 2;
		s = realloc(st->s, cap);
		if (!s)
			return 0; /* the build fails: see the caller's check */
		st->s = s;
		st->cap = cap;
	}
	memcpy(st->s + at, str, n);
	st->len += n;
	return (__u32)at;
}

static bool root_kind(const struct btf_type *t)
{
	return btf_is_composite(t) || btf_is_any_enum(t) || btf_is_typedef(t) || btf_is_fwd(t) ||
	       btf_is_int(t) || btf_is_float(t);
}

struct walk {
	uint8_t *flag;
	uint32_t *queue, nq;
};

static void reach(struct walk *w, uint32_t id, uint8_t follow)
{
	uint8_t want = IN_SET | follow;

	if (!id || (w->flag[id] & want) == want)
		return;
	w->flag[id] |= want;
	w->queue[w->nq++] = id; /* at most twice each: the queue holds 2 n */
}

static double thread_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* KATRA_TIMING=1: its size and its making's CPU, beside the load's steps
 * (probes_split.c) */
static void say_size(long types, unsigned long last, double ms)
{
	if (getenv("KATRA_TIMING") && *getenv("KATRA_TIMING") == '1')
		fprintf(stderr, "katra-record: timing:   probes: CO-RE BTF: %ld types (last "
			"candidate %lu), made in %.2f ms of CPU\n", types, last, ms);
}

struct btf *pk_btf_core_build(const struct btf *vm)
{
	uint32_t n = btf__type_cnt(vm), maxc = 0, next, *newid = NULL;
	struct walk w = { calloc(n, 1), malloc(2 * sizeof(uint32_t) * n), 0 };
	size_t types_len = 0, pos;
	struct strs st = { 0 };
	char *full;
	const struct btf_header *vh;
	struct btf *out = NULL;
	__u32 raw_size, **refs = malloc(65537 * sizeof(*refs)); /* a type's ids: vlen < 65536 */
	const char *raw;
	char *buf = NULL;

	double t0 = thread_ms();

	raw = btf__raw_data(vm, &raw_size);
	if (!refs || !w.flag || !w.queue || !raw || !pk_btf_keep_ready())
		goto out;
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(vm, id);

		bool follow;

		if (!t->name_off || !root_kind(t) ||
		    !pk_btf_name_kept(btf__name_by_offset(vm, t->name_off), &follow))
			continue;
		reach(&w, id, follow ? FOLLOW_PTR : 0);
		maxc = id;
	}
	for (uint32_t q = 0; q < w.nq; q++) {
		uint32_t id = w.queue[q];
		struct btf_type *t = (struct btf_type *)btf__type_by_id(vm, id);
		uint8_t follow = w.flag[id] & FOLLOW_PTR;
		size_t k;

		if (btf_is_ptr(t) && !follow)
			continue; /* its kind is read, not what it points to */
		k = refs_of(t, refs, 65537);
		for (size_t i = 0; i < k; i++)
			reach(&w, *refs[i], follow);
	}
	newid = calloc(n, sizeof(*newid));
	if (!newid || !maxc)
		goto out;
	next = maxc + 1;
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(vm, id);

		if (id <= maxc || (w.flag[id] & IN_SET))
			newid[id] = id <= maxc ? id : next++;
		if (id <= maxc || (w.flag[id] & IN_SET))
			types_len += (w.flag[id] & IN_SET) ? rec_size(t) : sizeof(struct btf_type);
	}
	vh = (const struct btf_header *)raw;
	buf = malloc(sizeof(*vh) + types_len);
	if (!buf)
		goto out;
	add_str(&st, ""); /* offset 0 */
	if (st.len != 1)
		goto out;
	pos = sizeof(*vh);
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t id = pass ? maxc + 1 : 1; id < (pass ? n : maxc + 1); id++) {
			const struct btf_type *t = btf__type_by_id(vm, id);
			struct btf_type *c = (struct btf_type *)(buf + pos);
			size_t k;

			if (!(w.flag[id] & IN_SET)) {
				if (pass)
					continue;
				*c = (struct btf_type){ .info = BTF_KIND_PTR << 24 };
				pos += sizeof(*c);
				continue;
			}
			memcpy(c, t, rec_size(t));
			pos += rec_size(t);
			k = refs_of(c, refs, 65537);
			for (size_t i = 0; i < k; i++)
				*refs[i] = (w.flag[*refs[i]] & IN_SET) ? newid[*refs[i]] : 0;
			k = names_of(c, refs, 65537);
			for (size_t i = 0; i < k; i++) {
				size_t had = st.len;

				if (*refs[i] && !(*refs[i] = add_str(&st, btf__str_by_offset(vm, *refs[i]))) &&
				    st.len == had)
					goto out; /* no memory */
			}
		}
	}
	*(struct btf_header *)buf = (struct btf_header){
		.magic = BTF_MAGIC, .version = BTF_VERSION, .hdr_len = sizeof(*vh),
		.type_off = 0, .type_len = (__u32)types_len,
		.str_off = (__u32)types_len, .str_len = (__u32)st.len,
	};
	full = realloc(buf, sizeof(*vh) + types_len + st.len);
	if (!full)
		goto out;
	buf = full;
	memcpy(buf + sizeof(*vh) + types_len, st.s, st.len);
	out = btf__new(buf, (__u32)(sizeof(*vh) + types_len + st.len)); /* a copy */
	say_size(out ? (long)btf__type_cnt(out) - 1 : -errno, maxc, thread_ms() - t0);
out:
	free(refs);
	free(st.s);
	free(buf);
	free(newid);
	free(w.flag);
	free(w.queue);
	return out;
}

/* The cut kept by an earlier capture of this kernel with this recorder
 * (btfcache.h): NULL where there is none, or it is another's, or corrupt,
 * or libbpf's parse refuses it (KATRA_TEST_NO_BTFCACHE=1: never).  *key is
 * set for pk_btf_core_keep. */
struct btf *pk_btf_core_cached(char *key, size_t cap)
{
	const void *raw;
	size_t map_len, raw_len;
	struct btf *btf = NULL;
	void *map;
	double t0 = thread_ms();
	int err;

	if (katra_btfcache_key(key, cap)) {
		*key = 0;
		return NULL;
	}
	if (getenv("KATRA_TEST_NO_BTFCACHE"))
		return NULL;
	err = katra_btfcache_load(key, &map, &map_len, &raw, &raw_len);
	if (err) {
		if (getenv("KATRA_TIMING") && *getenv("KATRA_TIMING") == '1')
			fprintf(stderr, "katra-record: timing:   probes: CO-RE BTF not cached (%s)\n",
				strerror(-err));
		return NULL;
	}
	btf = btf__new(raw, (__u32)raw_len); /* a copy, checked by libbpf's parse */
	munmap(map, map_len);
	if (btf && getenv("KATRA_TIMING") && *getenv("KATRA_TIMING") == '1')
		fprintf(stderr, "katra-record: timing:   probes: CO-RE BTF: %ld types, from the cache "
			"in %.2f ms of CPU\n", (long)btf__type_cnt(btf) - 1, thread_ms() - t0);
	return btf;
}

void pk_btf_core_keep(const char *key, const struct btf *core)
{
	const void *raw;
	__u32 len;

	if (*key && (raw = btf__raw_data(core, &len)))
		katra_btfcache_store(key, raw, len); /* not kept: the next capture cuts it again */
}
