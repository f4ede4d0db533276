// SPDX-License-Identifier: GPL-2.0-only
/* format/schema.txt is canonical; the C lists written by hand are checked
 * against it here, driven by the schema text alone:
 * - every enum's variants, in order, against the C name tables (names.c)
 *   and the enum's COUNT constant (format.h);
 * - every record, the header and one Event per Payload variant: bytes built
 *   from the schema (every field set, each scalar a distinct value) are
 *   decoded by the C decoder and encoded again by the C encoders, which must
 *   give the same bytes; a field the encoder forgot, swapped or typed wrong
 *   is named by where the bytes first differ;
 * - the same bytes cut at each field's first byte: the decoder's error must
 *   name that field, so the decoder reads the fields in the schema's order
 *   under the schema's names;
 * - each payload struct's fields against the dump's field table
 *   (payload_fields.c): names in order, types, and the value the decoder put
 *   at each field's offset. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "katra/format.h"
#include "replay/names/payload_fields.h"

#define SCHEMA_PATH "format/schema.txt"
#define MAX_ITEMS 96
#define MAX_FIELDS 128 /* an enum's variants too: EventKind has more than 64 */

struct s_field {
	char name[48];
	char type[64]; /* a field's type, or an enum variant's payload type ("" for none) */
};

struct s_item {
	bool is_enum;
	char name[48];
	int n;
	struct s_field f[MAX_FIELDS];
};

static struct s_item items[MAX_ITEMS];
static int n_items;

static char *trim(char *s)
{
	char *e;

	while (*s == ' ')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/* "struct Name { a: T, b: U }" or "enum Name { 0 A, 1 B(T) }" */
static void parse_line(char *line, int lineno)
{
	struct s_item *it = &items[n_items];
	char *open = strchr(line, '{'), *close = strrchr(line, '}');
	char *name, *tok, *save = NULL;

	cr_assert(open && close && n_items < MAX_ITEMS, SCHEMA_PATH ":%d: not a type line", lineno);
	memset(it, 0, sizeof(*it));
	it->is_enum = !strncmp(line, "enum ", 5);
	*open = *close = '\0';
	name = trim(line + (it->is_enum ? 5 : 7));
	snprintf(it->name, sizeof(it->name), "%s", name);
	for (tok = strtok_r(open + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct s_field *f = &it->f[it->n];
		char *t = trim(tok), *p;

		cr_assert(it->n < MAX_FIELDS);
		if (it->is_enum) {
			long idx = strtol(t, &p, 10);

			cr_assert(idx == it->n, SCHEMA_PATH ":%d: %s: variant index %ld at position %d",
				  lineno, it->name, idx, it->n);
			p = trim(p);
			char *paren = strchr(p, '(');
			if (paren) {
				*paren = '\0';
				*strrchr(paren + 1, ')') = '\0';
				snprintf(f->type, sizeof(f->type), "%s", paren + 1);
			}
			snprintf(f->name, sizeof(f->name), "%s", p);
		} else {
			p = strchr(t, ':');
			cr_assert(p, SCHEMA_PATH ":%d: field without a type", lineno);
			*p = '\0';
			snprintf(f->name, sizeof(f->name), "%s", trim(t));
			snprintf(f->type, sizeof(f->type), "%s", trim(p + 1));
		}
		it->n++;
	}
	n_items++;
}

static void load_schema(void)
{
	FILE *f = fopen(SCHEMA_PATH, "r");
	char line[4096];
	int lineno = 0;

	cr_assert(f, "cannot open '%s' (run from the repository root)", SCHEMA_PATH);
	n_items = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strncmp(line, "struct ", 7) || !strncmp(line, "enum ", 5))
			parse_line(line, lineno);
	}
	fclose(f);
	cr_assert_gt(n_items, 10, SCHEMA_PATH ": too few types parsed");
}

static const struct s_item *item(const char *name)
{
	for (int i = 0; i < n_items; i++)
		if (!strcmp(items[i].name, name))
			return &items[i];
	return NULL;
}

static const struct s_item *need_item(const char *name)
{
	const struct s_item *it = item(name);

	cr_assert(it, SCHEMA_PATH " has no type %s", name);
	return it;
}

TestSuite(schema, .init = load_schema);

/* ---- enums against the C name tables and COUNT constants ---- */

struct c_enum {
	const char *schema_name;
	const char *(*name_fn)(uint32_t);
	uint32_t count; /* the format.h COUNT constant */
	const char *count_name;
};

#define E(s, fn, count) { s, fn, count, #count }
static const struct c_enum c_enums[] = {
	E("TraceRecord", katra_record_type_name, KATRA_RECORD_COUNT),
	E("Scope", katra_scope_name, KATRA_SCOPE_COUNT),
	E("Phase", katra_phase_name, KATRA_PHASE_COUNT),
	E("Confidence", katra_confidence_name, KATRA_CONFIDENCE_COUNT),
	E("EventKind", katra_kind_name, KATRA_KIND_COUNT),
	E("ResourceDomain", katra_resource_domain_name, KATRA_RES_COUNT),
	E("Payload", katra_payload_name, KATRA_PAYLOAD_COUNT),
	E("DropSource", katra_drop_source_name, KATRA_DROP_SOURCE_COUNT),
	E("ProcessOrigin", katra_process_origin_name, KATRA_ORIGIN_COUNT),
	E("WakerContext", katra_waker_context_name, KATRA_WAKER_CONTEXT_COUNT),
	E("EpochKind", katra_epoch_kind_name, KATRA_EPOCH_KIND_COUNT),
	E("CounterKind", katra_counter_kind_name, KATRA_COUNTER_KIND_COUNT),
	E("StackSite", katra_stack_site_name, KATRA_STACK_SITE_COUNT),
};

Test(schema, every_enum_matches_the_c_names_and_counts)
{
	for (int i = 0; i < n_items; i++) {
		const struct s_item *it = &items[i];
		const struct c_enum *c = NULL;

		if (!it->is_enum)
			continue;
		for (size_t j = 0; j < sizeof(c_enums) / sizeof(c_enums[0]); j++)
			if (!strcmp(c_enums[j].schema_name, it->name))
				c = &c_enums[j];
		cr_assert(c, "enum %s of " SCHEMA_PATH " has no C name table in this test "
			  "(user/format/names.c) and no COUNT in include/katra/format.h", it->name);
		for (int v = 0; v < it->n; v++) {
			const char *got = c->name_fn((uint32_t)v);

			cr_expect(got && !strcmp(got, it->f[v].name),
				  "%s variant %d: schema.txt says %s, the C name table "
				  "(user/format/names.c) says %s", it->name, v, it->f[v].name,
				  got ? got : "nothing");
		}
		cr_expect(c->name_fn((uint32_t)it->n) == NULL,
			  "%s: the C name table has more variants than schema.txt's %d", it->name,
			  it->n);
		cr_expect_eq(c->count, (uint32_t)it->n,
			     "%s: schema.txt has %d variants, include/katra/format.h %s is %u",
			     it->name, it->n, c->count_name, c->count);
	}
}

/* ---- bytes built from the schema ---- */

struct mark {
	char path[96];     /* "Struct.field" */
	char type[64];     /* the field's schema type */
	size_t off;        /* first byte of the field */
	size_t end;        /* one past its last byte */
	uint64_t val;      /* scalar value (bool, ints: their bits) */
	bool in_vec;       /* inside a Vec element: the decoder checks the Vec's
			    * whole length first, under the Vec's name */
};

struct gen {
	uint8_t buf[16384];
	size_t len;
	unsigned k;          /* the next distinct scalar */
	int record_variant;  /* TraceRecord variant to build */
	int payload_variant; /* Payload variant to build */
	int vec_depth;
	struct mark marks[512];
	int n_marks;
};

static void put(struct gen *g, const void *p, size_t n)
{
	cr_assert(g->len + n <= sizeof(g->buf));
	memcpy(g->buf + g->len, p, n);
	g->len += n;
}

static uint64_t put_int(struct gen *g, size_t n, uint64_t v)
{
	put(g, &v, n); /* little-endian host */
	return v;
}

static void gen_type(struct gen *g, const char *type, const char *path);

static int variant_for(struct gen *g, const struct s_item *it)
{
	if (!strcmp(it->name, "TraceRecord"))
		return g->record_variant;
	if (!strcmp(it->name, "Payload"))
		return g->payload_variant;
	return (int)(g->k++ % (unsigned)it->n);
}

/* Writes a value of type; returns the scalar written (0 for composites). */
static uint64_t gen_value(struct gen *g, const char *type, const char *path)
{
	unsigned k = g->k++;
	char sub[64], elem[128];

	if (!strcmp(type, "u32"))
		return put_int(g, 4, 0x10000u * k + k);
	if (!strcmp(type, "i32"))
		return put_int(g, 4, (uint32_t)-(int32_t)(0x10000u * k + k));
	if (!strcmp(type, "u64"))
		return put_int(g, 8, ((uint64_t)k << 40) | ((uint64_t)k << 8) | 7);
	if (!strcmp(type, "i64"))
		return put_int(g, 8, (uint64_t) - (int64_t)(((uint64_t)k << 40) | k));
	if (!strcmp(type, "bool"))
		return put_int(g, 1, k & 1);
	if (!strcmp(type, "String")) {
		int n = snprintf(elem, sizeof(elem), "%s#%u", path, k);

		put_int(g, 8, (uint64_t)n);
		put(g, elem, (size_t)n);
		return 0;
	}
	if (sscanf(type, "Option<%63[^>]>", sub) == 1) {
		put_int(g, 1, 1);
		return gen_value(g, sub, path);
	}
	if (sscanf(type, "Vec<%63[^>]>", sub) == 1) {
		put_int(g, 8, 2);
		g->vec_depth++;
		for (int i = 0; i < 2; i++) {
			snprintf(elem, sizeof(elem), "%s[%d]", path, i);
			gen_type(g, sub, elem);
		}
		g->vec_depth--;
		return 0;
	}
	const struct s_item *it = need_item(type);
	if (it->is_enum) {
		int v = variant_for(g, it);

		put_int(g, 4, (uint64_t)v);
		if (it->f[v].type[0])
			gen_type(g, it->f[v].type, it->f[v].type);
		return (uint64_t)v;
	}
	for (int i = 0; i < it->n; i++) {
		struct mark *m = &g->marks[g->n_marks++];

		cr_assert(g->n_marks <= 512);
		snprintf(m->path, sizeof(m->path), "%s.%s", it->name, it->f[i].name);
		snprintf(m->type, sizeof(m->type), "%s", it->f[i].type);
		m->off = g->len;
		m->in_vec = g->vec_depth > 0;
		m->val = gen_value(g, it->f[i].type, m->path);
		m->end = g->len;
	}
	return 0;
}

static void gen_type(struct gen *g, const char *type, const char *path)
{
	gen_value(g, type, path);
}

/* The innermost field holding byte off (the marks of nested structs come
 * after the field that holds them). */
static const char *field_at(const struct gen *g, size_t off)
{
	const char *name = "the record's variant tag";

	for (int i = 0; i < g->n_marks; i++)
		if (g->marks[i].off <= off && off < g->marks[i].end)
			name = g->marks[i].path;
	return name;
}

static void same_bytes(const struct gen *g, const uint8_t *got, long n, const char *what,
		       const char *label)
{
	cr_assert_geq(n, 0, "%s: %s failed (%ld)", label, what, n);
	size_t i = 0;

	while (i < g->len && i < (size_t)n && got[i] == g->buf[i])
		i++;
	cr_expect(i == g->len && (size_t)n == g->len,
		  "%s: %s disagrees with schema.txt at byte %zu of %zu (%zu written), in %s",
		  label, what, i, g->len, (size_t)n, field_at(g, i));
}

/* The decoder, given the bytes cut at a field's first byte, must name that
 * field (or, for an enum-typed field, the enum). */
static void decoder_names_fields(const struct gen *g, bool header, const char *label)
{
	struct katra_arena a = { 0 };

	for (int i = 0; i < g->n_marks; i++) {
		const struct mark *m = &g->marks[i];
		struct katra_decode_error err = { 0 };
		struct katra_record r;
		struct katra_header h;
		int rc = header ? katra_decode_header(g->buf, m->off, &h, &a, &err)
				: katra_decode_record(g->buf, m->off, &r, &a, &err);
		bool named = false;

		if (m->in_vec)
			continue;
		for (int j = 0; j < g->n_marks; j++) {
			const struct mark *o = &g->marks[j];
			const char *dot = strchr(o->path, '.');
			size_t n = strlen(o->path);

			if (o->off != m->off)
				continue;
			if (!strncmp(err.message, o->path, n) &&
			    (err.message[n] == ' ' || err.message[n] == '['))
				named = true;
			/* an enum-typed field may be named by its enum */
			n = strlen(o->type);
			if (dot && item(o->type) && item(o->type)->is_enum &&
			    !strncmp(err.message, o->type, n) && err.message[n] == ' ')
				named = true;
		}
		cr_expect(rc < 0 && named,
			  "%s: the C decoder, cut at the first byte of %s (byte %zu), says '%s': "
			  "it does not read %s there", label, m->path, m->off, err.message, m->path);
	}
	katra_arena_free(&a);
}

static bool kr_type_fits(uint8_t t, const char *schema_type)
{
	static const struct {
		uint8_t t;
		const char *type;
	} fits[] = {
		{ KR_U32, "u32" },	     { KR_NR, "u32" },		{ KR_OPEN_FLAGS, "u32" },
		{ KR_MODE, "u32" },	     { KR_PROT, "u32" },	{ KR_MMAP_FLAGS, "u32" },
		{ KR_FUTEX_OP, "u32" },	     { KR_REQUEST, "u32" },	{ KR_I32, "i32" },
		{ KR_DIRFD, "i32" },	     { KR_U64, "u64" },		{ KR_ADDR, "u64" },
		{ KR_RANGE_ARG, "u64" },     { KR_CLONE_FLAGS, "u64" }, { KR_STATE, "u64" },
		{ KR_FAULT_CODE, "u64" },    { KR_PID, "u64" },		{ KR_I64, "i64" },
		{ KR_RET, "i64" },	     { KR_BOOL, "bool" },	{ KR_STR, "String" },
		{ KR_OPT_U32, "Option<u32>" }, { KR_OPT_I32, "Option<i32>" },
		{ KR_OPT_U64, "Option<u64>" }, { KR_OPT_STR, "Option<String>" },
		{ KR_STR_VEC, "Vec<String>" }, { KR_DROP_SOURCE, "DropSource" },
		{ KR_ORIGIN, "ProcessOrigin" },	     { KR_WAKER_CONTEXT, "WakerContext" },
	};

	for (size_t i = 0; i < sizeof(fits) / sizeof(fits[0]); i++)
		if (fits[i].t == t && !strcmp(fits[i].type, schema_type))
			return true;
	return false;
}

/* The scalar the decoder put at a payload field, as the generator's bits. */
static bool field_value(const struct katra_payload *p, const struct kr_field *f,
			const char *type, uint64_t *v)
{
	const uint8_t *at = (const uint8_t *)p + f->off;
	char sub[64];

	if (sscanf(type, "Option<%63[^>]>", sub) == 1) {
		if (!strcmp(sub, "String"))
			return false;
		/* struct katra_opt_*: present, then the value aligned */
		if (!*(const bool *)at)
			return *v = ~0ull, true;
		at += !strcmp(sub, "u64") ? 8 : 4;
		type = sub;
	}
	if (!strcmp(type, "u32") || !strcmp(type, "i32") || (item(type) && item(type)->is_enum))
		return *v = *(const uint32_t *)at, true;
	if (!strcmp(type, "u64") || !strcmp(type, "i64"))
		return *v = *(const uint64_t *)at, true;
	if (!strcmp(type, "bool"))
		return *v = *(const bool *)at, true;
	return false;
}

static void payload_fields_match(const struct gen *g, const struct katra_payload *p,
				 const char *label)
{
	const struct s_item *pl = need_item("Payload");
	const char *stype = pl->f[p->type].type;
	const struct kr_payload_desc *d = kr_payload_desc(p->type);

	cr_assert(d, "%s: no field table for payload %u", label, p->type);
	if (!stype[0]) {
		cr_expect_eq(d->count, 0u, "%s: payload without fields has %u in payload_fields.c",
			     label, d->count);
		return;
	}
	const struct s_item *st = need_item(stype);
	cr_expect_eq(d->count, (unsigned)st->n,
		     "%s: schema.txt's %s has %d fields, user/replay/names/payload_fields.c %u",
		     label, stype, st->n, d->count);
	for (int i = 0; i < st->n && i < (int)d->count; i++) {
		const struct kr_field *f = &d->fields[i];
		char path[96];
		uint64_t got;

		cr_expect_str_eq(f->name, st->f[i].name,
				 "%s: field %d of %s: schema.txt says %s, payload_fields.c %s", label,
				 i, stype, st->f[i].name, f->name);
		cr_expect(kr_type_fits(f->type, st->f[i].type),
			  "%s: %s.%s is %s in schema.txt; payload_fields.c's type %u does not fit",
			  label, stype, st->f[i].name, st->f[i].type, f->type);
		snprintf(path, sizeof(path), "%s.%s", stype, st->f[i].name);
		for (int j = 0; j < g->n_marks; j++) {
			const struct mark *m = &g->marks[j];

			if (strcmp(m->path, path) || !field_value(p, f, m->type, &got))
				continue;
			uint64_t want = m->val;
			if (!strcmp(m->type, "u32") || !strcmp(m->type, "i32") ||
			    !strcmp(m->type, "Option<u32>") || !strcmp(m->type, "Option<i32>"))
				want &= 0xffffffffu;
			cr_expect_eq(got, want,
				     "%s: %s: the decoder put 0x%llx at payload_fields.c's offset "
				     "of %s, schema.txt's bytes say 0x%llx", label, path,
				     (unsigned long long)got, f->name, (unsigned long long)want);
		}
	}
}

static void check_record(struct gen *g, const char *label)
{
	struct katra_arena a = { 0 };
	struct katra_decode_error err = { 0 };
	struct katra_record r;
	static uint8_t out[sizeof(g->buf)];
	int rc;

	rc = katra_decode_record(g->buf, g->len, &r, &a, &err);
	cr_expect_eq(rc, 0, "%s: the C decoder refuses schema.txt's bytes: %s (byte %zu, in %s)",
		     label, err.message, err.offset, field_at(g, err.offset));
	if (rc) {
		katra_arena_free(&a);
		return;
	}
	same_bytes(g, out, katra_encode_record(&r, out, sizeof(out)), "katra_encode_record",
		   label);
	cr_expect_eq(katra_encoded_record_size(&r), g->len, "%s: katra_encoded_record_size",
		     label);
	if (r.type == KATRA_RECORD_EVENT) {
		same_bytes(g, out, katra_encode_event_record(&r.u.event, out, sizeof(out)),
			   "katra_encode_event_record", label);
		payload_fields_match(g, &r.u.event.payload, label);
	}
	katra_arena_free(&a);
	decoder_names_fields(g, false, label);
}

Test(schema, every_payload_variant_round_trips_field_by_field)
{
	const struct s_item *pl = need_item("Payload");
	static struct gen g;

	for (int v = 0; v < pl->n; v++) {
		char label[96];

		memset(&g, 0, sizeof(g));
		g.k = 1;
		g.record_variant = KATRA_RECORD_EVENT;
		g.payload_variant = v;
		gen_type(&g, "TraceRecord", "TraceRecord");
		snprintf(label, sizeof(label), "Event with Payload %d %s", v, pl->f[v].name);
		check_record(&g, label);
	}
}

Test(schema, every_record_variant_round_trips)
{
	const struct s_item *tr = need_item("TraceRecord");
	static struct gen g;

	for (int v = 0; v < tr->n; v++) {
		char label[96];

		memset(&g, 0, sizeof(g));
		g.k = 1;
		g.record_variant = v;
		g.payload_variant = 1;
		gen_type(&g, "TraceRecord", "TraceRecord");
		snprintf(label, sizeof(label), "TraceRecord %d %s", v, tr->f[v].name);
		check_record(&g, label);
	}
}

Test(schema, header_round_trips)
{
	static struct gen g;
	static uint8_t out[sizeof(g.buf)];
	struct katra_arena a = { 0 };
	struct katra_decode_error err = { 0 };
	struct katra_header h;
	int rc;

	memset(&g, 0, sizeof(g));
	g.k = 1;
	gen_type(&g, "TraceHeader", "TraceHeader");
	rc = katra_decode_header(g.buf, g.len, &h, &a, &err);
	cr_assert_eq(rc, 0, "TraceHeader: the C decoder refuses schema.txt's bytes: %s (in %s)",
		     err.message, field_at(&g, err.offset));
	same_bytes(&g, out, katra_encode_header(&h, out, sizeof(out)), "katra_encode_header",
		   "TraceHeader");
	katra_arena_free(&a);
	decoder_names_fields(&g, true, "TraceHeader");
}
