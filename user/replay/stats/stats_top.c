// SPDX-License-Identifier: GPL-2.0-only
/* stats --top N: the N longest spans of any kind (a min-heap of N entries),
 * each with its thread, process name, syscall name and resource; an OffCpu
 * span names the state it left the CPU in and the syscall it blocked in. */
#include <stdlib.h>
#include <string.h>

#include "katra/replay.h"
#include "replay/util/out.h"
#include "replay/names/sysnames.h"
#include "views.h"

/* heap order: the shortest (then the latest) at the root, evicted first */
static bool less(const struct kr_top_entry *a, const struct kr_top_entry *b)
{
	if (a->dur_ns != b->dur_ns)
		return a->dur_ns < b->dur_ns;
	return a->begin_ts > b->begin_ts;
}

static void swap(struct kr_top_entry *a, struct kr_top_entry *b)
{
	struct kr_top_entry t = *a;

	*a = *b;
	*b = t;
}

bool kr_top_wants(const struct kr_views *v, uint64_t dur_ns)
{
	return v->top_cap && (v->top_len < v->top_cap || dur_ns > v->top[0].dur_ns);
}

void kr_top_push(struct kr_views *v, const struct kr_top_entry *e)
{
	size_t i;

	if (!v->top_cap)
		return;
	if (v->top_len < v->top_cap) {
		i = v->top_len++;
		v->top[i] = *e;
		while (i && less(&v->top[i], &v->top[(i - 1) / 2])) {
			swap(&v->top[i], &v->top[(i - 1) / 2]);
			i = (i - 1) / 2;
		}
		return;
	}
	if (!less(&v->top[0], e))
		return;
	v->top[0] = *e;
	for (i = 0;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < v->top_len && less(&v->top[l], &v->top[m]))
			m = l;
		if (r < v->top_len && less(&v->top[r], &v->top[m]))
			m = r;
		if (m == i)
			break;
		swap(&v->top[i], &v->top[m]);
		i = m;
	}
}

void kr_top_fix(struct kr_views *v, uint64_t tid, uint64_t span, uint64_t syskey)
{
	for (unsigned i = 0; i < v->top_len; i++) {
		struct kr_top_entry *e = &v->top[i];

		if (e->in_syscall && e->tid == tid && e->sc_span == span) {
			e->syskey = syskey;
			e->in_syscall = false;
		}
	}
}

static int longest_first(const void *x, const void *y)
{
	const struct kr_top_entry *a = x, *b = y;

	if (a->dur_ns != b->dur_ns)
		return a->dur_ns > b->dur_ns ? -1 : 1;
	return a->begin_ts < b->begin_ts ? -1 : a->begin_ts > b->begin_ts;
}

static struct kr_top_entry *sorted(const struct kr_views *v)
{
	struct kr_top_entry *t = malloc((v->top_len ? v->top_len : 1) * sizeof(*t));

	if (!t)
		return NULL;
	if (v->top_len)
		memcpy(t, v->top, v->top_len * sizeof(*t));
	qsort(t, v->top_len, sizeof(*t), longest_first);
	return t;
}

/* what the span was: "wait4", "S sleeping in wait4", "R preempted" */
static void what(FILE *f, const struct kr_top_entry *e)
{
	char buf[32];

	if (e->kind == KATRA_KIND_OFF_CPU) {
		if (e->state == 'R') {
			kr_s(f, "R preempted");
			return;
		}
		fprintf(f, "%c %s", e->state, kr_task_state_word(e->state));
		if (e->syskey != KR_SYSKEY_NONE)
			fprintf(f, " in %s", kr_syskey_name(e->syskey, buf));
		return;
	}
	if (e->syskey != KR_SYSKEY_NONE)
		kr_s(f, kr_syskey_name(e->syskey, buf));
}

/* seconds.nanoseconds, as kr_ts writes them */
static const char *ts_str(char *buf, size_t cap, uint64_t ns)
{
	snprintf(buf, cap, "%llu.%09llu", (unsigned long long)(ns / 1000000000u),
		 (unsigned long long)(ns % 1000000000u));
	return buf;
}

void kr_top_text(FILE *f, const struct kr_views *v)
{
	struct kr_top_entry *t = sorted(v);
	char d[32], ts[32], name[KR_NAME_BUF];

	fprintf(f, "\nlongest spans (%u of any kind, longest first; start = seconds since "
		"capture start)\n", v->top_len);
	fprintf(f, "%12s %12s  %-24s %10s  %-12s %s\n", "duration", "start", "process", "tid",
		"kind", "what");
	for (unsigned i = 0; t && i < v->top_len; i++) {
		const struct kr_top_entry *e = &t[i];
		char label[96];

		fprintf(f, "%12s %12s  %-24s %10llu  %-12s ", kr_fmt_dur(d, sizeof(d), e->dur_ns),
			ts_str(ts, sizeof(ts), e->begin_ts),
			kr_pid_label(v->names, e->pid, label, sizeof(label)), (unsigned long long)e->tid,
			kr_enum(katra_kind_name(e->kind), e->kind, name));
		what(f, e);
		if (e->res_domain != KATRA_RES_NONE) {
			kr_s(f, e->kind == KATRA_KIND_OFF_CPU || e->syskey != KR_SYSKEY_NONE ? " on " : "on ");
			kr_put_resource(f, v, e->res_domain, e->res_id);
		}
		putc('\n', f);
	}
	if (!v->top_len) {
		kr_s(f, "  (no span");
		kr_put_scope(f, v);
		kr_s(f, ")\n");
	}
	free(t);
}

/* "top":[{"dur_ns":N,"begin_ts_mono_ns":N,"thread_id":N,"process_id":N,
 *   "process_name":..|null,"kind":"OffCpu","syscall":..|null,
 *   "state":"S"|null,"resource":{..}|null},..] longest first */
void kr_top_json(FILE *f, const struct kr_views *v)
{
	struct kr_top_entry *t = sorted(v);
	char buf[32], name[KR_NAME_BUF];

	kr_s(f, ",\"top\":[");
	for (unsigned i = 0; t && i < v->top_len; i++) {
		const struct kr_top_entry *e = &t[i];
		const char *k = kr_enum(katra_kind_name(e->kind), e->kind, name);

		fprintf(f, "%s{\"dur_ns\":%llu,\"begin_ts_mono_ns\":%llu,\"thread_id\":%llu,"
			"\"process_id\":%llu,\"process_name\":", i ? "," : "",
			(unsigned long long)e->dur_ns, (unsigned long long)e->begin_ts,
			(unsigned long long)e->tid, (unsigned long long)e->pid);
		kr_json_pname(f, v, e->pid);
		kr_s(f, ",\"kind\":");
		katra_json_string(f, k, katra_cstr(k).len);
		kr_s(f, ",\"syscall\":");
		if (e->syskey != KR_SYSKEY_NONE) {
			const char *s = kr_syskey_name(e->syskey, buf);

			katra_json_string(f, s, katra_cstr(s).len);
		} else {
			kr_s(f, "null");
		}
		if (e->state)
			fprintf(f, ",\"state\":\"%c\"", e->state);
		else
			kr_s(f, ",\"state\":null");
		kr_s(f, ",\"resource\":");
		kr_json_resource(f, v, e->res_domain, e->res_id);
		putc('}', f);
	}
	putc(']', f);
	free(t);
}
