// SPDX-License-Identifier: GPL-2.0-only
/* stats --syscalls: the strace -c table (calls, errors, time) over syscall
 * spans, overall and per process.  Time is wall time from entry to return,
 * blocking included, like strace -c -w. */
#include <stdlib.h>

#include "katra/replay.h"
#include "replay/util/out.h"
#include "views.h"

void kr_sys_add(struct kr_views *v, uint64_t pid, uint64_t syskey, uint64_t dur, bool error)
{
	uint64_t k2[2] = { pid, syskey };
	struct kr_sysagg *a[2];
	bool created;

	a[0] = kr_xmap_get(&v->sys, &syskey, &created);
	a[1] = kr_xmap_get(&v->sys_by_pid, k2, &created);
	for (int i = 0; i < 2; i++) {
		if (!a[i]) {
			v->sys_overflow++;
			continue;
		}
		a[i]->calls++;
		a[i]->errors += error;
		a[i]->total_ns += dur;
		if (dur > a[i]->max_ns)
			a[i]->max_ns = dur;
	}
}

struct row {
	uint64_t pid, syskey;
	const struct kr_sysagg *a;
};

static int by_time(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->a->total_ns != b->a->total_ns)
		return a->a->total_ns > b->a->total_ns ? -1 : 1;
	if (a->a->calls != b->a->calls)
		return a->a->calls > b->a->calls ? -1 : 1;
	return a->syskey < b->syskey ? -1 : a->syskey > b->syskey;
}

static int by_pid_time(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return by_time(x, y);
}

/* Rows of one map (pid = the first key word when by_pid), sorted by time
 * (by_pid: by pid, then time). */
static struct row *rows(const struct kr_xmap *m, bool by_pid, size_t *n)
{
	struct row *r = malloc((m->len ? m->len : 1) * sizeof(*r));
	const struct kr_sysagg *a;
	size_t it = 0;

	*n = 0;
	if (!r)
		return NULL;
	while ((a = kr_xmap_next(m, &it))) {
		const uint64_t *k = kr_xmap_key(m, a);

		r[*n].pid = by_pid ? k[0] : 0;
		r[*n].syskey = by_pid ? k[1] : k[0];
		r[*n].a = a;
		(*n)++;
	}
	qsort(r, *n, sizeof(*r), by_pid ? by_pid_time : by_time);
	return r;
}

/* A process's rows: r[first .. first + n). */
struct group {
	uint64_t pid, total, calls;
	size_t first, n;
};

static int by_group_time(const void *x, const void *y)
{
	const struct group *a = x, *b = y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* Groups of rows sorted by pid; *ng of them, in pid order. */
static struct group *groups(const struct row *r, size_t n, size_t *ng)
{
	struct group *g = malloc((n ? n : 1) * sizeof(*g));

	*ng = 0;
	if (!g)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!*ng || g[*ng - 1].pid != r[i].pid)
			g[(*ng)++] = (struct group){ r[i].pid, 0, 0, i, 0 };
		g[*ng - 1].total += r[i].a->total_ns;
		g[*ng - 1].calls += r[i].a->calls;
		g[*ng - 1].n++;
	}
	return g;
}

static const char rule[] =
	"------ ----------- ----------- ----------- --------- --------- ----------------\n";

static void table(FILE *f, const struct row *r, size_t n)
{
	uint64_t total = 0, calls = 0, errors = 0, max = 0;
	char buf[32];

	for (size_t i = 0; i < n; i++) {
		total += r[i].a->total_ns;
		calls += r[i].a->calls;
		errors += r[i].a->errors;
		if (r[i].a->max_ns > max)
			max = r[i].a->max_ns;
	}
	fprintf(f, "%% time     seconds  usecs/call   max usecs     calls    errors syscall\n%s",
		rule);
	for (size_t i = 0; i < n; i++) {
		const struct kr_sysagg *a = r[i].a;

		fprintf(f, "%6.2f %11.6f %11llu %11llu %9llu ",
			total ? 100.0 * (double)a->total_ns / (double)total : 0.0,
			(double)a->total_ns / 1e9,
			(unsigned long long)(a->total_ns / a->calls / 1000),
			(unsigned long long)(a->max_ns / 1000), (unsigned long long)a->calls);
		if (a->errors)
			fprintf(f, "%9llu", (unsigned long long)a->errors);
		else
			fprintf(f, "%9s", "");
		fprintf(f, " %s\n", kr_syskey_name(r[i].syskey, buf));
	}
	fprintf(f, "%s%6.2f %11.6f %11llu %11llu %9llu ", rule, n ? 100.0 : 0.0,
		(double)total / 1e9, (unsigned long long)(calls ? total / calls / 1000 : 0),
		(unsigned long long)(max / 1000), (unsigned long long)calls);
	if (errors)
		fprintf(f, "%9llu", (unsigned long long)errors);
	else
		fprintf(f, "%9s", "");
	kr_s(f, " total\n");
}

static void notes(FILE *f, const struct kr_views *v)
{
	if (v->untimed_syscalls)
		fprintf(f, "  (%llu syscall returns without a Begin are not timed: in flight at capture start,\n"
			"   or a new child's return from fork)\n",
			(unsigned long long)v->untimed_syscalls);
	if (v->sys_overflow)
		fprintf(f, "  (%llu syscalls beyond the %u-row table are not counted)\n",
			(unsigned long long)v->sys_overflow, KR_MAX_SYSCALL_ROWS);
}

void kr_syscalls_text(FILE *f, const struct kr_views *v, bool per_process)
{
	struct group *g;
	struct row *r;
	size_t n, ng;

	if (!per_process) {
		r = rows(&v->sys, false, &n);
		kr_s(f, "\nsyscalls (wall time from entry to return, blocking included: "
		     "like strace -c -w)\n");
		if (r)
			table(f, r, n);
		notes(f, v);
		free(r);
		return;
	}
	r = rows(&v->sys_by_pid, true, &n);
	g = groups(r, r ? n : 0, &ng);
	if (g)
		qsort(g, ng, sizeof(*g), by_group_time);
	for (size_t i = 0; g && i < ng; i++) {
		kr_s(f, "\nprocess ");
		kr_put_pid(f, v->names, g[i].pid);
		fprintf(f, ": %llu syscalls, %.6f s (wall time from entry to return)\n",
			(unsigned long long)g[i].calls, (double)g[i].total / 1e9);
		table(f, r + g[i].first, g[i].n);
	}
	notes(f, v);
	free(g);
	free(r);
}

static void json_rows(FILE *f, const struct row *r, size_t n)
{
	uint64_t total = 0;
	char buf[32];

	for (size_t i = 0; i < n; i++)
		total += r[i].a->total_ns;
	fprintf(f, "\"total_ns\":%llu,\"rows\":[", (unsigned long long)total);
	for (size_t i = 0; i < n; i++) {
		const struct kr_sysagg *a = r[i].a;
		const char *name = kr_syskey_name(r[i].syskey, buf);

		kr_s(f, i ? ",{\"syscall\":" : "{\"syscall\":");
		katra_json_string(f, name, katra_cstr(name).len);
		if (r[i].syskey & KR_SYSKEY_KIND)
			kr_s(f, ",\"nr\":null");
		else
			fprintf(f, ",\"nr\":%llu", (unsigned long long)r[i].syskey);
		fprintf(f, ",\"calls\":%llu,\"errors\":%llu,\"total_ns\":%llu,\"avg_ns\":%llu,"
			"\"max_ns\":%llu,\"percent_time\":%.2f}",
			(unsigned long long)a->calls, (unsigned long long)a->errors,
			(unsigned long long)a->total_ns,
			(unsigned long long)(a->total_ns / a->calls), (unsigned long long)a->max_ns,
			total ? 100.0 * (double)a->total_ns / (double)total : 0.0);
	}
	putc(']', f);
}

/* "syscalls":{"total_ns":N,"rows":[{"syscall":"read","nr":0,"calls":N,
 *   "errors":N,"total_ns":N,"avg_ns":N,"max_ns":N,"percent_time":F},..],
 *   "untimed":N,"overflow":N}
 * and with per_process, "syscalls_by_process":[{"process_id":N,
 *   "process_name":".."|null,"total_ns":N,"rows":[..]},..] (by process id) */
void kr_syscalls_json(FILE *f, const struct kr_views *v, bool per_process)
{
	struct group *g;
	struct row *r;
	size_t n, ng;

	r = rows(&v->sys, false, &n);
	kr_s(f, ",\"syscalls\":{");
	json_rows(f, r, r ? n : 0);
	fprintf(f, ",\"untimed\":%llu,\"overflow\":%llu}", (unsigned long long)v->untimed_syscalls,
		(unsigned long long)v->sys_overflow);
	free(r);
	if (!per_process)
		return;
	r = rows(&v->sys_by_pid, true, &n);
	g = groups(r, r ? n : 0, &ng);
	kr_s(f, ",\"syscalls_by_process\":[");
	for (size_t i = 0; g && i < ng; i++) {
		fprintf(f, "%s{\"process_id\":%llu,\"process_name\":", i ? "," : "",
			(unsigned long long)g[i].pid);
		kr_json_pname(f, v, g[i].pid);
		putc(',', f);
		json_rows(f, r + g[i].first, g[i].n);
		putc('}', f);
	}
	putc(']', f);
	free(g);
	free(r);
}
