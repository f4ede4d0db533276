// SPDX-License-Identifier: GPL-2.0-only
/* stats --off-cpu: per thread, the time spent off the CPU (OffCpu spans) by
 * reason: preempted (runnable when switched out), or blocked in a task state
 * (S, D, ...) inside which syscall, on which resource; inside a page fault;
 * or outside both. */
#include <stdlib.h>

#include "katra/replay.h"
#include "replay/util/out.h"
#include "replay/names/sysnames.h"
#include "views.h"

#define TEXT_THREADS 20

void kr_off_add(struct kr_views *v, uint64_t tid, uint64_t pid, unsigned reason, char state,
		uint64_t syskey, uint64_t res_domain, uint64_t res_id, uint64_t count,
		uint64_t total, uint64_t max)
{
	struct kr_off_key k = { tid, (uint64_t)reason << 8 | (uint8_t)state, syskey };
	struct kr_offagg *a;
	bool created;

	a = kr_xmap_get(&v->offcpu, &k, &created);
	if (!a) {
		v->offcpu_overflow += count;
		return;
	}
	if (created) {
		a->first_domain = a->res_domain = res_domain;
		a->first_id = a->res_id = res_id;
	} else if (res_domain != a->first_domain || res_id != a->first_id) {
		a->several = true;
	}
	a->pid = pid;
	a->count += count;
	a->total_ns += total;
	if (max > a->max_ns) {
		a->max_ns = max;
		a->res_domain = res_domain;
		a->res_id = res_id;
	}
}

static const struct kr_off_key *key_of(const struct kr_offagg *a)
{
	return (const struct kr_off_key *)(const void *)((const char *)a - sizeof(struct kr_off_key));
}

struct thread_total {
	uint64_t tid, total;
};

static int by_tid(const void *x, const void *y)
{
	const struct thread_total *a = x, *b = y;

	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* Per-thread totals, sorted by tid for bsearch. */
static struct thread_total *totals(const struct kr_views *v, size_t *n)
{
	struct thread_total *t = malloc((v->offcpu.len ? v->offcpu.len : 1) * sizeof(*t));
	const struct kr_offagg *a;
	size_t it = 0, m = 0;

	*n = 0;
	if (!t)
		return NULL;
	while ((a = kr_xmap_next(&v->offcpu, &it)))
		t[m++] = (struct thread_total){ key_of(a)->tid, a->total_ns };
	qsort(t, m, sizeof(*t), by_tid);
	for (size_t i = 0; i < m; i++) { /* merge each thread's rows */
		if (*n && t[*n - 1].tid == t[i].tid)
			t[*n - 1].total += t[i].total;
		else
			t[(*n)++] = t[i];
	}
	return t;
}

/* A row to print: the entry and its thread's total, for sorting. */
struct row {
	const struct kr_offagg *a;
	const struct kr_off_key *k;
	uint64_t thread_total;
};

/* Threads with the most off-CPU time first, each thread's rows by time. */
static int by_thread_then_time(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->k->tid != b->k->tid) {
		if (a->thread_total != b->thread_total)
			return a->thread_total > b->thread_total ? -1 : 1;
		return a->k->tid < b->k->tid ? -1 : 1;
	}
	if (a->a->total_ns != b->a->total_ns)
		return a->a->total_ns > b->a->total_ns ? -1 : 1;
	if (a->k->why != b->k->why)
		return a->k->why < b->k->why ? -1 : 1;
	return a->k->syskey < b->k->syskey ? -1 : a->k->syskey > b->k->syskey;
}

static struct row *sorted(const struct kr_views *v, size_t *n)
{
	size_t nt, it = 0;
	struct thread_total *t = totals(v, &nt);
	struct row *r = malloc((v->offcpu.len ? v->offcpu.len : 1) * sizeof(*r));
	const struct kr_offagg *a;

	*n = 0;
	if (!t || !r) {
		free(t);
		free(r);
		return NULL;
	}
	while ((a = kr_xmap_next(&v->offcpu, &it))) {
		struct thread_total key = { key_of(a)->tid, 0 };
		const struct thread_total *tt = bsearch(&key, t, nt, sizeof(key), by_tid);

		r[*n] = (struct row){ a, key_of(a), tt ? tt->total : 0 };
		(*n)++;
	}
	qsort(r, *n, sizeof(*r), by_thread_then_time);
	free(t);
	return r;
}

static const char *reason_name(unsigned r)
{
	static const char *const n[] = { "preempted", "syscall", "page_fault", "other" };

	return r < 4 ? n[r] : "?";
}

/* "R preempted", "S sleeping in wait4", "D uninterruptible in read on "/x"",
 * "D uninterruptible in read, longest on "/x"" (several resources),
 * "D uninterruptible in a page fault", "S sleeping outside a syscall" */
static void why(FILE *f, const struct kr_views *v, const struct kr_off_key *k,
		const struct kr_offagg *a)
{
	unsigned reason = (unsigned)(k->why >> 8);
	char st = (char)(k->why & 0xff), buf[32];

	if (reason == KR_OFF_PREEMPTED) {
		kr_s(f, "R preempted");
		return;
	}
	fprintf(f, "%c %s", st, kr_task_state_word(st));
	if (reason == KR_OFF_SYSCALL) {
		fprintf(f, " in %s", kr_syskey_name(k->syskey, buf));
		if (a->res_domain != KATRA_RES_NONE) {
			kr_s(f, a->several ? ", longest on " : " on ");
			kr_put_resource(f, v, a->res_domain, a->res_id);
		}
	} else if (reason == KR_OFF_FAULT) {
		kr_s(f, " in a page fault");
	} else {
		kr_s(f, " outside a syscall");
	}
}

void kr_offcpu_text(FILE *f, const struct kr_views *v)
{
	size_t n, threads = 0;
	struct row *p = sorted(v, &n);
	uint64_t last_tid = 0;
	char d[2][32];

	kr_s(f, "\noff-CPU time by thread and reason (OffCpu spans; the letter is the task state "
	     "the thread left the CPU in)\n");
	fprintf(f, "%10s  %-24s %12s %8s %12s  %s\n", "tid", "process", "off-CPU", "count", "max",
		"why");
	for (size_t i = 0; p && i < n; i++) {
		const struct kr_offagg *a = p[i].a;
		const struct kr_off_key *k = p[i].k;
		char label[96];

		if (!i || k->tid != last_tid) {
			if (++threads > TEXT_THREADS)
				break;
			last_tid = k->tid;
		}
		fprintf(f, "%10llu  %-24s %12s %8llu %12s  ", (unsigned long long)k->tid,
			kr_pid_label(v->names, a->pid, label, sizeof(label)),
			kr_fmt_dur(d[0], sizeof(d[0]), a->total_ns), (unsigned long long)a->count,
			kr_fmt_dur(d[1], sizeof(d[1]), a->max_ns));
		why(f, v, k, a);
		putc('\n', f);
	}
	if (threads > TEXT_THREADS)
		kr_s(f, "  ... more threads (stats --off-cpu --json lists all)\n");
	if (!n) {
		kr_s(f, "  (no OffCpu span");
		kr_put_scope(f, v);
		kr_s(f, ")\n");
	}
	if (v->offcpu_overflow)
		fprintf(f, "  (%llu off-CPU spans beyond the %u-row table are not counted)\n",
			(unsigned long long)v->offcpu_overflow, KR_MAX_OFFCPU_ROWS);
	if (v->offcpu_inferred)
		fprintf(f, "  (%llu OffCpu spans whose switch-in was not seen, with an inferred "
			"End, are left out)\n", (unsigned long long)v->offcpu_inferred);
	free(p);
}

/* "off_cpu":[{"thread_id":N,"process_id":N,"process_name":..|null,
 *   "reason":"preempted"|"syscall"|"page_fault"|"other","state":"S",
 *   "syscall":".."|null,"resource":{..}|null (of the longest span),
 *   "several_resources":B,"count":N,"total_ns":N,"max_ns":N},..] in the
 *   text's order; "off_cpu_overflow":N,"off_cpu_inferred_left_out":N */
void kr_offcpu_json(FILE *f, const struct kr_views *v)
{
	size_t n;
	struct row *p = sorted(v, &n);
	char buf[32];

	kr_s(f, ",\"off_cpu\":[");
	for (size_t i = 0; p && i < n; i++) {
		const struct kr_offagg *a = p[i].a;
		const struct kr_off_key *k = p[i].k;
		unsigned reason = (unsigned)(k->why >> 8);

		fprintf(f, "%s{\"thread_id\":%llu,\"process_id\":%llu,\"process_name\":",
			i ? "," : "", (unsigned long long)k->tid, (unsigned long long)a->pid);
		kr_json_pname(f, v, a->pid);
		fprintf(f, ",\"reason\":\"%s\",\"state\":\"%c\",\"syscall\":", reason_name(reason),
			(char)(k->why & 0xff));
		if (reason == KR_OFF_SYSCALL) {
			const char *s = kr_syskey_name(k->syskey, buf);

			katra_json_string(f, s, katra_cstr(s).len);
		} else {
			kr_s(f, "null");
		}
		kr_s(f, ",\"resource\":");
		kr_json_resource(f, v, a->res_domain, a->res_id);
		fprintf(f, ",\"several_resources\":%s", a->several ? "true" : "false");
		fprintf(f, ",\"count\":%llu,\"total_ns\":%llu,\"max_ns\":%llu}",
			(unsigned long long)a->count, (unsigned long long)a->total_ns,
			(unsigned long long)a->max_ns);
	}
	fprintf(f, "],\"off_cpu_overflow\":%llu,\"off_cpu_inferred_left_out\":%llu",
		(unsigned long long)v->offcpu_overflow, (unsigned long long)v->offcpu_inferred);
	free(p);
}
