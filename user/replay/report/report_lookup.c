// SPDX-License-Identifier: GPL-2.0-only
/* What the report model remembers beside the times: process names (the
 * same source as dump's), file paths, and the facts and lookups the
 * renderers ask for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

void kr_report_remember(struct kr_report *rp, const struct katra_event *e)
{
	struct kr_idmap_slot *s;
	bool created;

	kr_procnames_see(&rp->names, e);
	if (e->payload.type == KATRA_PAYLOAD_FILE_OPEN && e->payload.u.file_open.path.present &&
	    e->resource.domain == KATRA_RES_FILE) {
		struct katra_str p = e->payload.u.file_open.path.value;

		s = kr_idmap_get(&rp->path_map, e->resource.id, 0, &created);
		if (!s || !created)
			return;
		void *np = realloc(rp->paths, (rp->npaths + 1) * sizeof(*rp->paths));
		if (!np) {
			kr_idmap_remove(&rp->path_map, s);
			return;
		}
		rp->paths = np;
		s->v1 = rp->npaths++;
		size_t n = p.len < KR_PATH_LEN_MAX - 1 ? (size_t)p.len : KR_PATH_LEN_MAX - 1;
		memset(rp->paths[s->v1], 0, KR_PATH_LEN_MAX);
		if (n)
			memcpy(rp->paths[s->v1], p.ptr, n);
	}
}

void kr_report_get_facts(const struct kr_report *rp, struct kr_report_facts *f)
{
	uint64_t seen = 0;

	memset(f, 0, sizeof(*f));
	for (uint32_t t = 0; t < rp->nthreads; t++)
		seen += rp->threads[t].seen;
	f->start_ns = rp->start_ns;
	f->end_ns = rp->last_ns;
	f->records = rp->records;
	f->events = rp->events;
	f->threads = seen;
	f->processes = rp->procs.len;
	f->epochs = rp->markers;
	f->epochs_itemized = rp->epochs;
	f->epochs_empty = rp->epochs_empty;
	f->epochs_not_itemized = rp->epochs_skipped;
	f->threads_dropped = rp->threads_dropped;
	f->index_cap = rp->index.cap;
	f->index_nodes = rp->index.total;
	f->index_evicted = rp->index.total > rp->index.cap ? rp->index.total - rp->index.cap : 0;
	f->uring_unmatched = rp->uring_unmatched;
	f->rows_dropped = rp->whole.rows_dropped;
	f->has_summary = rp->has_summary;
	f->cpus = rp->header_cpus ? rp->header_cpus : rp->max_running;
	f->on_cpu_ns = rp->whole_on_cpu_ns;
	f->path_tid = rp->o.path_tid;
	f->path_pid = rp->o.path_pid;
}

uint64_t kr_report_pid_of(const struct kr_report *rp, uint64_t tid)
{
	struct kr_idmap_slot *s = kr_idmap_find((struct kr_idmap *)&rp->thread_map, tid, 0);

	return s ? rp->threads[s->v1].pid : 0;
}

const char *kr_report_file_path(const struct kr_report *rp, uint64_t file_id)
{
	struct kr_idmap_slot *s = kr_idmap_find((struct kr_idmap *)&rp->path_map, file_id, 0);

	return s ? rp->paths[s->v1] : NULL;
}

/* The NT call a span is, by name: an NtSyscall span's payload name, or the
 * kind of a named NT span (NtReadFile, NtWait, ...); NULL for any other. */
static const char *nt_name(const struct katra_event *e, char buf[40])
{
	if (e->kind >= KATRA_KIND_NT_READ_FILE && e->kind <= KATRA_KIND_NT_CREATE_USER_PROCESS)
		return katra_kind_name(e->kind);
	if (e->kind != KATRA_KIND_NT_SYSCALL || e->payload.type != KATRA_PAYLOAD_NT_SYSCALL ||
	    !e->payload.u.nt_syscall.name.present)
		return NULL;
	const struct katra_str *n = &e->payload.u.nt_syscall.name.value;
	size_t len = n->len < 39 ? (size_t)n->len : 39;

	if (!len)
		return NULL;
	memcpy(buf, n->ptr, len);
	buf[len] = 0;
	return buf;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

void kr_ucall_begin(struct kr_report *rp, struct kr_thread *th, struct kr_span *s,
		    const struct katra_event *e)
{
	struct kr_idmap_slot *slot;
	bool created;

	s->ucall = 0;
	char ntbuf[40];
	const char *nt = nt_name(e, ntbuf);
	if (!nt &&
	    (e->kind != KATRA_KIND_WIN_TO_UNIX || e->payload.type != KATRA_PAYLOAD_WINE_SERVER_CALL))
		return;
	if (!rp->ucalls) {
		rp->ucalls = calloc(KR_MAX_UCALLS, sizeof(*rp->ucalls));
		if (!rp->ucalls)
			return; /* no memory: the paths name no unix call */
		kr_idmap_init(&rp->ucall_map, KR_MAX_UCALLS);
	}
	if (nt) {
		/* an NT call by its name (the same in every process) */
		slot = kr_idmap_get(&rp->ucall_map, name_hash(nt), UINT64_MAX, &created);
		if (!slot)
			return;
		if (created) {
			struct kr_ucall *u = &rp->ucalls[rp->nucalls];

			*u = (struct kr_ucall){ 0 };
			snprintf(u->nt, sizeof(u->nt), "%s", nt);
			slot->v1 = ++rp->nucalls;
		}
		s->ucall = th->ucall = (uint16_t)slot->v1;
		return;
	}
	uint32_t index = e->payload.u.wine_server_call.request;
	slot = kr_idmap_get(&rp->ucall_map, e->resource.id, th->pid << 32 | index, &created);
	if (!slot)
		return; /* KR_MAX_UCALLS distinct calls: later ones go unnamed */
	if (created) {
		rp->ucalls[rp->nucalls] = (struct kr_ucall){ th->pid, e->resource.id, index, "" };
		slot->v1 = ++rp->nucalls;
	}
	s->ucall = th->ucall = (uint16_t)slot->v1;
}

void kr_ucall_end(struct kr_thread *th)
{
	int i = th->nspans - 1;

	while (i >= 0 && !th->spans[i].ucall)
		i--;
	th->ucall = i >= 0 ? th->spans[i].ucall : 0;
}

void kr_ucalls_free(struct kr_report *rp)
{
	if (rp->ucalls)
		kr_idmap_free(&rp->ucall_map);
	free(rp->ucalls);
	rp->ucalls = NULL;
	rp->nucalls = 0;
}

const char *kr_report_ucall(const struct kr_report *rp, uint16_t ucall, char *buf, size_t cap)
{
	if (!ucall || ucall > rp->nucalls)
		return NULL;
	const struct kr_ucall *u = &rp->ucalls[ucall - 1];
	if (u->nt[0]) {
		snprintf(buf, cap, "%s", u->nt);
		return buf;
	}
	return kr_unix_call_label(&rp->names, u->pid, u->handle, u->index, buf, cap);
}

bool kr_ucall_is_nt(const struct kr_report *rp, uint16_t ucall)
{
	return ucall && ucall <= rp->nucalls && rp->ucalls[ucall - 1].nt[0];
}

const struct kr_timeline *kr_report_timeline(const struct kr_report *rp)
{
	return rp->tl;
}

uint32_t kr_report_marks(const struct kr_report *rp, const struct kr_mark **marks)
{
	*marks = rp->marks;
	return rp->nmarks;
}

uint64_t kr_report_outside_waker(struct kr_report *rp, const struct katra_event *e)
{
	if (e->payload.type != KATRA_PAYLOAD_WAKEUP_OUTSIDE)
		return KR_WAKER_OUTSIDE;
	if (e->payload.u.wakeup_outside.context != KATRA_WAKER_TASK)
		return KR_WAKER_IRQ;

	uint64_t pid = e->payload.u.wakeup_outside.waker_pid & 0xffffffffu;
	struct katra_str c = e->payload.u.wakeup_outside.waker_comm;
	struct kr_idmap_slot *s;
	bool created;
	char name[16] = { 0 };
	size_t n = c.len < 15 ? c.len : 15;

	/* the latest name; cut at a character's first byte (a comm is 15 bytes
	 * at most, but one made valid UTF-8 may have grown) */
	while (n < c.len && n && ((uint8_t)c.ptr[n] & 0xc0) == 0x80)
		n--;
	memcpy(name, c.ptr, n);
	s = kr_idmap_get(&rp->outside, pid, 0, &created);
	if (s) {
		memcpy(&s->v1, name, 8);
		memcpy(&s->v2, name + 8, 8);
	}
	return KR_WAKER_PROC | pid;
}

const char *kr_report_outside_comm(const struct kr_report *rp, uint64_t pid, char buf[16])
{
	struct kr_idmap_slot *s = kr_idmap_find((struct kr_idmap *)&rp->outside, pid, 0);

	memset(buf, 0, 16);
	if (s) {
		memcpy(buf, &s->v1, 8);
		memcpy(buf + 8, &s->v2, 8);
	}
	buf[15] = '\0';
	return buf;
}

const struct kr_procnames *kr_report_names(const struct kr_report *rp)
{
	return &rp->names;
}

void kr_report_set_path_pid(struct kr_report *rp, uint64_t pid)
{
	rp->o.path_pid = pid;
}
