// SPDX-License-Identifier: GPL-2.0-only
/* compare's plain-text report: both hashes, the equivalence, the threads
 * that differ with their first divergence, and the per-kind table. */
#include <stdio.h>
#include <string.h>

#include "katra/plural.h"
#include "compare.h"
#include "katra/replay.h"
#include "replay/names/resnames.h"
#include "replay/names/sysnames.h"
#include "replay/util/out.h"
#include "replay/stats/views.h"

#define THREADS_LISTED 20


static const char *change(char *buf, size_t cap, uint64_t a, uint64_t b)
{
	if (!a)
		snprintf(buf, cap, "%s", b ? "new" : "-");
	else
		snprintf(buf, cap, "%+.1f %%", 100.0 * ((double)b - (double)a) / (double)a);
	return buf;
}

static void hash_row(FILE *f, const char *name, uint64_t a, uint64_t b)
{
	fprintf(f, "%-20s 0x%016llx    0x%016llx%s\n", name, (unsigned long long)a,
		(unsigned long long)b, a == b ? "" : "    differs");
}

static void count_row(FILE *f, const char *name, uint64_t a, uint64_t b)
{
	fprintf(f, "%-20s %-21llu %llu\n", name, (unsigned long long)a, (unsigned long long)b);
}

static void event_line(FILE *f, char side, const struct kr_cmp_trace *t, int64_t ix)
{
	const struct kr_cmp_thread *th = ix >= 0 ? &t->threads[ix] : NULL;
	char b1[KR_NAME_BUF], b2[KR_NAME_BUF], b3[KR_NAME_BUF];
	const struct kr_cmp_event *e;

	fprintf(f, "      %c: ", side);
	if (!th) {
		fputs("no such thread\n", f);
		return;
	}
	e = &th->at;
	if (!e->present) {
		fprintf(f, "tid %llu ends here (%llu %s)\n", (unsigned long long)th->tid,
			(unsigned long long)th->len, katra_plural(th->len, "event", "events"));
		return;
	}
	fprintf(f, "tid %llu seq %llu at ", (unsigned long long)th->tid,
		(unsigned long long)e->seq);
	kr_ts(f, e->ts_mono_ns);
	fprintf(f, " s  %s %s %s", kr_enum(katra_scope_name(e->scope), e->scope, b1),
		kr_enum(katra_kind_name(e->kind), e->kind, b2),
		kr_enum(katra_phase_name(e->phase), e->phase, b3));
	if (e->has_nr) {
		char sb[KR_SYSNAME_BUF];

		fprintf(f, " %s (nr %u)", kr_syscall_name(e->nr, sb), e->nr);
	}
	if (e->res_domain != KATRA_RES_NONE || e->res_id) {
		fputc(' ', f);
		kr_res_put(f, e->res_domain, e->res_id);
	}
	if (e->path[0]) {
		fputc(' ', f);
		katra_json_string(f, e->path, strlen(e->path));
	}
	fputc('\n', f);
}

static void threads(FILE *f, const struct kr_compare *c)
{
	size_t differ = 0, listed = 0;

	for (size_t i = 0; i < c->npairs; i++)
		differ += c->pairs[i].differs || c->pairs[i].causal_differs;
	if (!differ) {
		if (c->npairs == 1)
			fputs("\nthe one thread is the same on both sides\n", f);
		else
			fprintf(f, "\nall %zu threads are the same on both sides\n", c->npairs);
		return;
	}
	fprintf(f, "\nthreads that differ (%zu of %zu)\n", differ, c->npairs);
	fprintf(f, "  %-20s %10s %10s %10s %9s  %s\n", "thread", "A events", "B events", "matched",
		"equiv.", "first divergence");
	for (size_t i = 0; i < c->npairs && listed < THREADS_LISTED; i++) {
		const struct kr_cmp_pair *p = &c->pairs[i];
		uint64_t all = p->len_a + p->len_b;
		char name[KR_PROCNAME_MAX + 48];

		if (!p->differs && !p->causal_differs)
			continue;
		listed++;
		kr_compare_pair_label(c, p, name, sizeof(name));
		fprintf(f, "  %-20s %10llu %10llu %10llu %7.2f %%  ", name,
			(unsigned long long)p->len_a, (unsigned long long)p->len_b,
			(unsigned long long)p->matched,
			all ? 200.0 * (double)p->matched / (double)all : 100.0);
		if (!p->differs) {
			fputs("same events, different causes\n", f);
			continue;
		}
		fprintf(f, "event #%llu of the thread%s\n", (unsigned long long)p->prefix,
			p->exact ? "" : " (bounded alignment)");
		event_line(f, 'A', &c->a, p->a);
		event_line(f, 'B', &c->b, p->b);
	}
	if (listed < differ)
		fprintf(f, "  ... %zu more (--json lists them all)\n", differ - listed);
}

static void kinds(FILE *f, const struct kr_compare *c)
{
	char b[3][24];

	fprintf(f, "\n%-24s %9s %9s %9s %11s %11s %9s %11s %11s %9s\n", "per kind", "A count",
		"B count", "change", "A p50", "B p50", "change", "A p99", "B p99", "change");
	for (uint32_t k = 0; k < KATRA_KIND_COUNT; k++) {
		const struct kr_cmp_kind *ka = &c->a.kinds[k], *kb = &c->b.kinds[k];
		char name[40];

		if (!ka->count && !kb->count)
			continue;
		snprintf(name, sizeof(name), "%s%s", katra_kind_name(k),
			 kr_kindset_has(c->a.ignore, k) ? " *" : "");
		fprintf(f, "  %-22s %9llu %9llu %+9lld", name, (unsigned long long)ka->count,
			(unsigned long long)kb->count, (long long)kb->count - (long long)ka->count);
		if (ka->dur || kb->dur) {
			for (int q = 0; q < 2; q++) {
				unsigned pm = q ? 990 : 500;
				uint64_t va = ka->dur ? kr_histo_percentile(ka->dur, pm) : 0;
				uint64_t vb = kb->dur ? kr_histo_percentile(kb->dur, pm) : 0;

				/* "-": no completed span of this kind on that side */
				fprintf(f, " %11s %11s %9s", ka->dur ? kr_fmt_dur(b[0], 24, va) : "-",
					kb->dur ? kr_fmt_dur(b[1], 24, vb) : "-",
					ka->dur && kb->dur ? change(b[2], 24, va, vb) : "-");
			}
		}
		fputc('\n', f);
	}
	fputs("  (* left out of the hashes and the alignment; p50/p99: span durations)\n", f);
}

void kr_compare_print_text(FILE *f, const struct kr_compare *c)
{
	const struct kr_cmp_trace *a = &c->a, *b = &c->b;
	bool s_eq = a->structural_hash == b->structural_hash;
	bool c_eq = a->causal_hash == b->causal_hash;
	char ignored[KATRA_KIND_COUNT * 24];

	kr_kindset_format(a->ignore, ", ", ignored, sizeof(ignored));
	fprintf(f, "A          %s\nB          %s\n", c->path_a ? c->path_a : "-",
		c->path_b ? c->path_b : "-");
	fprintf(f, "result     %s", c->equivalent ? "equivalent" : "different:");
	if (!s_eq)
		fputs(" the events differ", f);
	if (!c_eq)
		fprintf(f, "%s the causes differ", s_eq ? "" : ",");
	fprintf(f, "\nignored    %s\n\n", ignored);
	fprintf(f, "%-20s %-21s %s\n", "", "A", "B");
	hash_row(f, "structural hash", a->structural_hash, b->structural_hash);
	hash_row(f, "causal hash", a->causal_hash, b->causal_hash);
	count_row(f, "events", a->events, b->events);
	count_row(f, "events compared", a->compared, b->compared);
	count_row(f, "processes", a->nprocs, b->nprocs);
	count_row(f, "threads", a->nthreads, b->nthreads);
	count_row(f, "causal edges", a->edges, b->edges);
	count_row(f, "causes not compared", a->ignored_causes + a->unresolved_causes,
		  b->ignored_causes + b->unresolved_causes);
	fprintf(f, "\nequivalence %.2f %% (%llu events matched, of %llu in A and %llu in B; "
		"%s alignment)\n", kr_compare_equivalence(c), (unsigned long long)c->matched,
		(unsigned long long)a->compared, (unsigned long long)b->compared,
		c->exact ? "exact" : "bounded");
	threads(f, c);
	kinds(f, c);
}
