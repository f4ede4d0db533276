/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers for the replay tests that need a whole trace on disk: a small
 * record builder (seq assigned in order), writing it with the format
 * library's writer, and capturing a command's output in memory.
 * Header-only (static) so each test file stays standalone. */
#ifndef KATRA_REPLAY_TEST_UTIL_H
#define KATRA_REPLAY_TEST_UTIL_H

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "katra/format.h"
#include "katra/replay.h"
#include "../../tools/sample_records.h"

#define TB_MAX 128

struct tb {
	struct katra_record r[TB_MAX];
	size_t n;
	uint64_t seq;
	char dir[64];
	char path[128];
};

static inline void tb_init(struct tb *t)
{
	memset(t, 0, sizeof(*t));
	t->seq = 1;
	snprintf(t->dir, sizeof(t->dir), "/tmp/katra-rtest-XXXXXX");
	cr_assert_not_null(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/t.ktrc", t->dir);
}

static inline void tb_cleanup(struct tb *t)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	cr_assert_eq(system(cmd), 0);
}

static inline struct katra_record *tb_add(struct tb *t, uint32_t type)
{
	struct katra_record *r;

	cr_assert_lt(t->n, TB_MAX);
	r = &t->r[t->n++];
	memset(r, 0, sizeof(*r));
	r->type = type;
	return r;
}

/* An event: Linux scope, Measured, payload None, no span when span < 0. */
static inline struct katra_event *tb_ev(struct tb *t, uint64_t ts, uint64_t pid, uint64_t tid,
					uint32_t kind, uint32_t phase, int64_t span)
{
	struct katra_event *e = &tb_add(t, KATRA_RECORD_EVENT)->u.event;

	e->seq = t->seq++;
	e->ts_mono_ns = ts;
	e->ts_wall_ns = 1700000000000000000ull + ts;
	e->process_id = pid;
	e->thread_id = tid;
	e->scope = KATRA_SCOPE_LINUX;
	e->kind = kind;
	e->phase = phase;
	if (span >= 0)
		e->span_id = (struct katra_opt_u64){ true, (uint64_t)span };
	return e;
}

/* A Begin or End of a layer above the kernel: Vulkan scope for the Vulkan
 * kinds, WineProton for WineServerCall, WindowsFacing for the rest. */
static inline struct katra_event *tb_layer_call(struct tb *t, uint64_t ts, uint64_t pid,
						uint64_t tid, uint32_t kind, uint32_t phase,
						int64_t span)
{
	struct katra_event *e = tb_ev(t, ts, pid, tid, kind, phase, span);

	e->scope = kind >= KATRA_KIND_VULKAN_QUEUE_SUBMIT && kind <= KATRA_KIND_VULKAN_FENCE_WAIT ?
			   KATRA_SCOPE_VULKAN :
		   kind == KATRA_KIND_WINE_SERVER_CALL ? KATRA_SCOPE_WINE_PROTON :
							  KATRA_SCOPE_WINDOWS_FACING;
	return e;
}

/* A session's WineServerRequests table (written by its wineserver, pid):
 * the first 8 request names of Wine 8's protocol, request 7 "get_handle_fd". */
static inline void tb_request_names(struct tb *t, uint64_t ts, uint64_t pid)
{
	static const char *const names[8] = { "new_process", "get_new_process_info",
					      "new_thread", "get_startup_info", "init_process_done",
					      "init_first_thread", "init_thread", "get_handle_fd" };
	static struct katra_str strs[8];
	struct katra_event *e = tb_ev(t, ts, pid, pid, KATRA_KIND_WINE_SERVER_REQUESTS,
				      KATRA_PHASE_INSTANT, -1);

	for (int i = 0; i < 8; i++)
		strs[i] = katra_cstr(names[i]);
	e->scope = KATRA_SCOPE_WINE_PROTON;
	e->payload.type = KATRA_PAYLOAD_WINE_SERVER_REQUESTS;
	e->payload.u.wine_server_requests.names = (struct katra_str_vec){ strs, 8 };
}

static inline struct katra_event *tb_syscall_begin(struct tb *t, uint64_t ts, uint64_t pid,
						   uint64_t tid, uint32_t kind, int64_t span,
						   uint32_t nr)
{
	struct katra_event *e = tb_ev(t, ts, pid, tid, kind, KATRA_PHASE_BEGIN, span);

	e->payload.type = KATRA_PAYLOAD_SYSCALL;
	e->payload.u.syscall.nr = nr;
	return e;
}

static inline struct katra_event *tb_syscall_end(struct tb *t, uint64_t ts, uint64_t pid,
						 uint64_t tid, uint32_t kind, int64_t span,
						 uint32_t nr, int64_t ret)
{
	struct katra_event *e = tb_ev(t, ts, pid, tid, kind, KATRA_PHASE_END, span);

	e->payload.type = KATRA_PAYLOAD_SYSCALL_RETURN;
	e->payload.u.syscall_return.nr = nr;
	e->payload.u.syscall_return.ret = ret;
	return e;
}

static inline struct katra_event *tb_switch(struct tb *t, uint64_t ts, uint64_t pid,
					    uint64_t tid, uint32_t phase, int64_t span,
					    uint64_t prev_state)
{
	struct katra_event *e = tb_ev(t, ts, pid, tid, KATRA_KIND_OFF_CPU, phase, span);

	e->payload.type = KATRA_PAYLOAD_SWITCH;
	e->payload.u.sched_switch.cpu = 1;
	e->payload.u.sched_switch.prev_state = prev_state;
	return e;
}

/* A ProcessInfo event (Katra scope) naming pid. */
static inline struct katra_event *tb_pinfo(struct tb *t, uint64_t ts, uint64_t pid,
					   const char *comm, const char *image)
{
	struct katra_event *e = tb_ev(t, ts, pid, pid, KATRA_KIND_PROCESS_INFO,
				      KATRA_PHASE_INSTANT, -1);

	e->scope = KATRA_SCOPE_KATRA;
	e->resource = (struct katra_resource){ KATRA_RES_PROCESS, pid };
	e->payload.type = KATRA_PAYLOAD_PROCESS_INFO;
	e->payload.u.process_info.comm = katra_cstr(comm);
	if (image)
		e->payload.u.process_info.windows_image =
			(struct katra_opt_str){ true, katra_cstr(image) };
	e->payload.u.process_info.origin = image ? KATRA_ORIGIN_WINE_SESSION : KATRA_ORIGIN_COMMAND;
	return e;
}

static inline struct katra_epoch_marker *tb_epoch(struct tb *t, uint64_t ts, uint32_t kind,
						  const char *name)
{
	struct katra_epoch_marker *m = &tb_add(t, KATRA_RECORD_EPOCH_MARKER)->u.epoch;

	m->seq = t->seq++;
	m->ts_mono_ns = ts;
	m->ts_wall_ns = 1700000000000000000ull + ts;
	m->epoch = m->seq;
	m->kind = kind;
	m->name = katra_cstr(name);
	return m;
}

static inline struct katra_counter *tb_counter(struct tb *t, uint64_t ts, uint64_t value)
{
	struct katra_counter *c = &tb_add(t, KATRA_RECORD_COUNTER)->u.counter;

	c->seq = t->seq++;
	c->ts_mono_ns = ts;
	c->ts_wall_ns = 1700000000000000000ull + ts;
	c->kind = KATRA_COUNTER_EVENTS_RECORDED;
	c->value = value;
	return c;
}

/* Writes the records (no SessionSummary) under the sample header. */
static inline void tb_write(struct tb *t)
{
	struct katra_writer *w;

	cr_assert_eq(katra_writer_open(&w, t->path, katra_sample_header(),
				       KATRA_WRITER_OVERWRITE), 0);
	for (size_t i = 0; i < t->n; i++)
		cr_assert_eq(katra_writer_append(w, &t->r[i]), 0, "record %zu", i);
	cr_assert_eq(katra_writer_close(w), 0);
}

struct outcap {
	FILE *f;
	char *buf;
	size_t len;
};

static inline void oc_open(struct outcap *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	cr_assert_not_null(c->f);
}

static inline const char *oc_text(struct outcap *c)
{
	if (c->f) {
		cr_assert_eq(fclose(c->f), 0);
		c->f = NULL;
	}
	return c->buf;
}

static inline void oc_free(struct outcap *c)
{
	oc_text(c);
	free(c->buf);
}

/* The output after the header lines (those starting with '#', or the first
 * line of JSON lines). */
static inline const char *oc_body(struct outcap *c, bool jsonl)
{
	const char *p = oc_text(c);

	if (jsonl)
		return strchr(p, '\n') + 1;
	while (*p == '#')
		p = strchr(p, '\n') + 1;
	return p;
}

#endif
