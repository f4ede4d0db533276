// SPDX-License-Identifier: GPL-2.0-only
/* compare's JSON report (one object; hashes as "0x..." strings so that no
 * JSON reader rounds them).  Shape:
 *   {"a":SIDE,"b":SIDE,"equivalent":B,"structural_equal":B,"causal_equal":B,
 *    "ignored_kinds":[..],"equivalence_percent":F,"matched_events":N,
 *    "alignment":"exact"|"bounded","threads":[THREAD..],"kinds":[KIND..]}
 *   SIDE: {"path","structural_hash","causal_hash","events","compared",
 *          "processes","threads","causal_edges","ignored_causes","unresolved_causes"}
 *   THREAD: {"thread":"p0/t0","name":".."|null (its own, else its process's),"process_no","thread_no","a":{"pid","tid","events"}|null,
 *            "b":..,"matched","equivalence_percent","exact","differs","causal_differs",
 *            "first_divergence":{"index","a":EVENT|null,"b":EVENT|null}|null}
 *   EVENT: {"seq","ts_mono_ns","scope","kind","phase","nr"?,"syscall"?,
 *           "resource"? ("File:N", as every command spells it),"path"?}
 *   KIND: {"kind","ignored","a":{"count","spans","p50_ns","p99_ns"},"b":..,
 *          "count_change","p50_change_percent":F|null,"p99_change_percent":F|null} */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "katra/replay.h"
#include "replay/names/resnames.h"
#include "replay/names/sysnames.h"
#include "replay/util/out.h"

static void str(FILE *f, const char *s)
{
	katra_json_string(f, s, katra_cstr(s).len);
}

static void side(FILE *f, const struct kr_cmp_trace *t, const char *path)
{
	fputs("{\"path\":", f);
	str(f, path ? path : "");
	fprintf(f, ",\"structural_hash\":\"0x%016" PRIx64 "\",\"causal_hash\":\"0x%016" PRIx64
		   "\",\"events\":%" PRIu64 ",\"compared\":%" PRIu64 ",\"processes\":%u"
		   ",\"threads\":%u,\"causal_edges\":%" PRIu64 ",\"ignored_causes\":%" PRIu64
		   ",\"unresolved_causes\":%" PRIu64 "}",
		t->structural_hash, t->causal_hash, t->events, t->compared, t->nprocs,
		t->nthreads, t->edges, t->ignored_causes, t->unresolved_causes);
}

static void event(FILE *f, const struct kr_cmp_trace *t, int64_t ix)
{
	const struct kr_cmp_event *e = ix >= 0 ? &t->threads[ix].at : NULL;
	char b1[KR_NAME_BUF], b2[KR_NAME_BUF], b3[KR_NAME_BUF];

	if (!e || !e->present) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"seq\":%" PRIu64 ",\"ts_mono_ns\":%" PRIu64
		   ",\"scope\":\"%s\",\"kind\":\"%s\",\"phase\":\"%s\"",
		e->seq, e->ts_mono_ns, kr_enum(katra_scope_name(e->scope), e->scope, b1),
		kr_enum(katra_kind_name(e->kind), e->kind, b2),
		kr_enum(katra_phase_name(e->phase), e->phase, b3));
	if (e->has_nr) {
		char sb[KR_SYSNAME_BUF];

		fprintf(f, ",\"nr\":%u,\"syscall\":\"%s\"", e->nr, kr_syscall_name(e->nr, sb));
	}
	if (e->res_domain != KATRA_RES_NONE || e->res_id) {
		char rb[64];

		fprintf(f, ",\"resource\":\"%s\"", kr_res_label(e->res_domain, e->res_id, rb,
								  sizeof(rb)));
	}
	if (e->path[0]) {
		fputs(",\"path\":", f);
		katra_json_string(f, e->path, strlen(e->path));
	}
	fputc('}', f);
}

static void thread_side(FILE *f, const struct kr_cmp_trace *t, int64_t ix)
{
	const struct kr_cmp_thread *th = ix >= 0 ? &t->threads[ix] : NULL;

	if (!th)
		fputs("null", f);
	else
		fprintf(f, "{\"pid\":%" PRIu64 ",\"tid\":%" PRIu64 ",\"events\":%" PRIu64 "}",
			th->pid, th->tid, th->len);
}

static void threads(FILE *f, const struct kr_compare *c)
{
	fputs(",\"threads\":[", f);
	for (size_t i = 0; i < c->npairs; i++) {
		const struct kr_cmp_pair *p = &c->pairs[i];
		uint64_t all = p->len_a + p->len_b;
		const struct kr_cmp_trace *t = p->a >= 0 ? &c->a : &c->b;
		int64_t ix = p->a >= 0 ? p->a : p->b;
		const struct kr_procname *n = ix < 0 ? NULL :
			kr_procnames_thread_or_process(&t->names, t->threads[ix].tid,
						       t->threads[ix].pid);

		fprintf(f, "%s{\"thread\":\"p%u/t%u\",\"name\":", i ? "," : "", p->proc_no,
			p->thread_no);
		if (n)
			katra_json_string(f, n->name, n->len);
		else
			fputs("null", f);
		fprintf(f, ",\"process_no\":%u,\"thread_no\":%u,\"a\":", p->proc_no,
			p->thread_no);
		thread_side(f, &c->a, p->a);
		fputs(",\"b\":", f);
		thread_side(f, &c->b, p->b);
		fprintf(f, ",\"matched\":%" PRIu64 ",\"equivalence_percent\":%.4f,\"exact\":%s"
			   ",\"differs\":%s,\"causal_differs\":%s,\"first_divergence\":",
			p->matched, all ? 200.0 * (double)p->matched / (double)all : 100.0,
			p->exact ? "true" : "false", p->differs ? "true" : "false",
			p->causal_differs ? "true" : "false");
		if (!p->differs) {
			fputs("null}", f);
			continue;
		}
		fprintf(f, "{\"index\":%" PRIu64 ",\"a\":", p->prefix);
		event(f, &c->a, p->a);
		fputs(",\"b\":", f);
		event(f, &c->b, p->b);
		fputs("}}", f);
	}
	fputc(']', f);
}

static void pct(FILE *f, uint64_t a, uint64_t b)
{
	if (!a)
		fputs("null", f);
	else
		fprintf(f, "%.4f", 100.0 * ((double)b - (double)a) / (double)a);
}

static void kind_side(FILE *f, const struct kr_cmp_kind *k, uint64_t *p50, uint64_t *p99)
{
	*p50 = k->dur ? kr_histo_percentile(k->dur, 500) : 0;
	*p99 = k->dur ? kr_histo_percentile(k->dur, 990) : 0;
	fprintf(f, "{\"count\":%" PRIu64 ",\"spans\":%" PRIu64 ",\"p50_ns\":%" PRIu64
		   ",\"p99_ns\":%" PRIu64 "}",
		k->count, k->dur ? k->dur->count : 0, *p50, *p99);
}

static void kinds(FILE *f, const struct kr_compare *c)
{
	bool first = true;

	fputs(",\"kinds\":[", f);
	for (uint32_t k = 0; k < KATRA_KIND_COUNT; k++) {
		const struct kr_cmp_kind *ka = &c->a.kinds[k], *kb = &c->b.kinds[k];
		uint64_t a50, a99, b50, b99;

		if (!ka->count && !kb->count)
			continue;
		fprintf(f, "%s{\"kind\":\"%s\",\"ignored\":%s,\"a\":", first ? "" : ",",
			katra_kind_name(k), kr_kindset_has(c->a.ignore, k) ? "true" : "false");
		first = false;
		kind_side(f, ka, &a50, &a99);
		fputs(",\"b\":", f);
		kind_side(f, kb, &b50, &b99);
		fprintf(f, ",\"count_change\":%lld,\"p50_change_percent\":",
			(long long)kb->count - (long long)ka->count);
		pct(f, ka->dur && kb->dur ? a50 : 0, b50);
		fputs(",\"p99_change_percent\":", f);
		pct(f, ka->dur && kb->dur ? a99 : 0, b99);
		fputc('}', f);
	}
	fputc(']', f);
}

void kr_compare_print_json(FILE *f, const struct kr_compare *c)
{
	bool first = true;

	fputs("{\"a\":", f);
	side(f, &c->a, c->path_a);
	fputs(",\"b\":", f);
	side(f, &c->b, c->path_b);
	fprintf(f, ",\"equivalent\":%s,\"structural_equal\":%s,\"causal_equal\":%s",
		c->equivalent ? "true" : "false",
		c->a.structural_hash == c->b.structural_hash ? "true" : "false",
		c->a.causal_hash == c->b.causal_hash ? "true" : "false");
	fputs(",\"ignored_kinds\":[", f);
	for (uint32_t k = 0; k < KATRA_KIND_COUNT; k++) {
		if (!kr_kindset_has(c->a.ignore, k))
			continue;
		fprintf(f, "%s\"%s\"", first ? "" : ",", katra_kind_name(k));
		first = false;
	}
	fprintf(f, "],\"equivalence_percent\":%.4f,\"matched_events\":%" PRIu64
		   ",\"alignment\":\"%s\"",
		kr_compare_equivalence(c), c->matched, c->exact ? "exact" : "bounded");
	threads(f, c);
	kinds(f, c);
	fputs("}\n", f);
}
