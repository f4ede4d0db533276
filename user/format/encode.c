// SPDX-License-Identifier: GPL-2.0-only
/* bincode 1.x encoder for the Katra types (fixint, little-endian, u64
 * lengths, u32 enum indices), writing into the caller's buffer. */
#include <errno.h>
#include <string.h>

#include "katra/format.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the codec stores integers with memcpy: little-endian hosts only"
#endif

/* ------------------------------------------------------------------ */
/* encoder: `len` always advances, bytes are stored only while they fit, so
 * the same code computes sizes (cap 0) and detects a short buffer. */

struct enc {
	uint8_t *buf;
	size_t cap;
	size_t len;
	bool fits; /* the caller checked that everything fits: no check per field */
};

static inline __attribute__((always_inline)) void put_bytes(struct enc *e, const void *p, size_t n)
{
	if (n && (e->fits || e->len + n <= e->cap))
		memcpy(e->buf + e->len, p, n);
	e->len += n;
}

static inline __attribute__((always_inline)) void put_u8(struct enc *e, uint8_t v) { put_bytes(e, &v, 1); }
static inline __attribute__((always_inline)) void put_u32(struct enc *e, uint32_t v) { put_bytes(e, &v, 4); }
static inline __attribute__((always_inline)) void put_i32(struct enc *e, int32_t v) { put_bytes(e, &v, 4); }
static inline __attribute__((always_inline)) void put_u64(struct enc *e, uint64_t v) { put_bytes(e, &v, 8); }
static inline __attribute__((always_inline)) void put_i64(struct enc *e, int64_t v) { put_bytes(e, &v, 8); }
static inline __attribute__((always_inline)) void put_bool(struct enc *e, bool v) { put_u8(e, v ? 1 : 0); }

static inline __attribute__((always_inline)) void put_str(struct enc *e, struct katra_str s)
{
	put_u64(e, s.len);
	put_bytes(e, s.ptr, s.len);
}

static inline __attribute__((always_inline)) void put_opt_u64(struct enc *e, struct katra_opt_u64 o)
{
	put_u8(e, o.present);
	if (o.present)
		put_u64(e, o.value);
}

static inline __attribute__((always_inline)) void put_opt_u32(struct enc *e, struct katra_opt_u32 o)
{
	put_u8(e, o.present);
	if (o.present)
		put_u32(e, o.value);
}

static inline __attribute__((always_inline)) void put_opt_i32(struct enc *e, struct katra_opt_i32 o)
{
	put_u8(e, o.present);
	if (o.present)
		put_i32(e, o.value);
}

static inline __attribute__((always_inline)) void put_opt_str(struct enc *e, const struct katra_opt_str *o)
{
	put_u8(e, o->present);
	if (o->present)
		put_str(e, o->value);
}

/* always inlined: a call would take the encoder's address, and every field
 * of the event encoder would then go through memory */
static inline __attribute__((always_inline)) void put_str_vec(struct enc *e,
							     struct katra_str_vec v)
{
	put_u64(e, v.len);
	for (uint64_t i = 0; i < v.len; i++)
		put_str(e, v.items[i]);
}

static void put_header(struct enc *e, const struct katra_header *h)
{
	const struct katra_capture_options *o = &h->capture_options;

	put_u32(e, h->format_version);
	put_u64(e, h->schema_hash);
	put_str(e, h->tool_version);
	put_u64(e, o->target_pids.len);
	put_bytes(e, o->target_pids.items, o->target_pids.len * 8);
	put_bool(e, o->follow_children);
	put_bool(e, o->record_paths);
	put_u64(e, o->buffer_size_bytes);
	put_opt_u64(e, o->duration_limit_ns);
	put_u64(e, o->counter_interval_ns);
	put_u64(e, o->reorder_window_ns);
	put_u64(e, h->start_wall_ns);
	put_u64(e, h->start_mono_ns);
	put_u64(e, h->process_id);
	put_str(e, h->workload);
	put_str(e, h->host.hostname);
	put_str(e, h->host.os);
	put_str(e, h->host.kernel_release);
	put_str(e, h->host.machine);
	put_u32(e, h->host.cpu_count);
	put_u32(e, h->host.page_size);
	put_str_vec(e, h->notes);
}

/* always inlined into the event encoder so the cursor stays in registers */
static inline __attribute__((always_inline)) void put_payload(struct enc *e,
							    const struct katra_payload *p)
{
	put_u32(e, p->type);
	switch (p->type) {
	case KATRA_PAYLOAD_NONE:
		break;
	case KATRA_PAYLOAD_SYSCALL:
		put_u32(e, p->u.syscall.nr);
		break;
	case KATRA_PAYLOAD_SYSCALL_RETURN:
		put_u32(e, p->u.syscall_return.nr);
		put_i64(e, p->u.syscall_return.ret);
		break;
	case KATRA_PAYLOAD_FILE_IO:
		put_i32(e, p->u.file_io.fd);
		put_u64(e, p->u.file_io.count);
		put_opt_u64(e, p->u.file_io.offset);
		put_u32(e, p->u.file_io.iov_count);
		break;
	case KATRA_PAYLOAD_FILE_OPEN:
		put_i32(e, p->u.file_open.dirfd);
		put_u32(e, p->u.file_open.flags);
		put_u32(e, p->u.file_open.mode);
		put_opt_str(e, &p->u.file_open.path);
		break;
	case KATRA_PAYLOAD_FILE_CLOSE:
		put_i32(e, p->u.file_close.fd);
		break;
	case KATRA_PAYLOAD_MEMORY_MAP:
		put_u64(e, p->u.memory_map.addr);
		put_u64(e, p->u.memory_map.len);
		put_u32(e, p->u.memory_map.prot);
		put_u32(e, p->u.memory_map.flags);
		put_i32(e, p->u.memory_map.fd);
		put_u64(e, p->u.memory_map.offset);
		break;
	case KATRA_PAYLOAD_MEMORY_RANGE:
		put_u64(e, p->u.memory_range.addr);
		put_u64(e, p->u.memory_range.len);
		put_u64(e, p->u.memory_range.arg);
		break;
	case KATRA_PAYLOAD_FUTEX:
		put_u64(e, p->u.futex.uaddr);
		put_u32(e, p->u.futex.op);
		put_u32(e, p->u.futex.val);
		break;
	case KATRA_PAYLOAD_WAIT:
		put_i64(e, p->u.wait.handle);
		put_u32(e, p->u.wait.count);
		put_opt_u64(e, p->u.wait.timeout_ns);
		break;
	case KATRA_PAYLOAD_IO_URING_ENTER:
		put_i32(e, p->u.io_uring_enter.fd);
		put_u32(e, p->u.io_uring_enter.to_submit);
		put_u32(e, p->u.io_uring_enter.min_complete);
		put_u32(e, p->u.io_uring_enter.flags);
		break;
	case KATRA_PAYLOAD_SOCKET_MSG:
		put_i32(e, p->u.socket_msg.fd);
		put_u32(e, p->u.socket_msg.flags);
		break;
	case KATRA_PAYLOAD_EXECVE:
		put_opt_str(e, &p->u.execve.path);
		break;
	case KATRA_PAYLOAD_CLONE:
		put_u64(e, p->u.clone.flags);
		break;
	case KATRA_PAYLOAD_TASK_FORK:
		put_u64(e, p->u.task_fork.parent_pid);
		put_u64(e, p->u.task_fork.parent_tid);
		put_u64(e, p->u.task_fork.child_pid);
		put_u64(e, p->u.task_fork.child_tid);
		put_bool(e, p->u.task_fork.is_thread);
		break;
	case KATRA_PAYLOAD_TASK_EXEC:
		put_u64(e, p->u.task_exec.old_tid);
		put_opt_str(e, &p->u.task_exec.path);
		break;
	case KATRA_PAYLOAD_TASK_EXIT:
		put_i32(e, p->u.task_exit.exit_code);
		put_bool(e, p->u.task_exit.group_dead);
		break;
	case KATRA_PAYLOAD_SWITCH:
		put_u32(e, p->u.sched_switch.cpu);
		put_u64(e, p->u.sched_switch.prev_state);
		break;
	case KATRA_PAYLOAD_WAKEUP:
		put_u64(e, p->u.wakeup.target_tid);
		put_u64(e, p->u.wakeup.target_pid);
		put_u32(e, p->u.wakeup.target_cpu);
		break;
	case KATRA_PAYLOAD_PAGE_FAULT:
		put_u64(e, p->u.page_fault.address);
		put_u64(e, p->u.page_fault.ip);
		put_u64(e, p->u.page_fault.error_code);
		break;
	case KATRA_PAYLOAD_IO_URING_SUBMIT:
		put_u64(e, p->u.io_uring_submit.ctx);
		put_u64(e, p->u.io_uring_submit.user_data);
		put_u32(e, p->u.io_uring_submit.opcode);
		put_u32(e, p->u.io_uring_submit.flags);
		put_i32(e, p->u.io_uring_submit.fd);
		break;
	case KATRA_PAYLOAD_IO_URING_COMPLETE:
		put_u64(e, p->u.io_uring_complete.ctx);
		put_u64(e, p->u.io_uring_complete.user_data);
		put_i32(e, p->u.io_uring_complete.res);
		put_u32(e, p->u.io_uring_complete.cflags);
		break;
	case KATRA_PAYLOAD_IO_URING_CREATE:
		put_u64(e, p->u.io_uring_create.ctx);
		put_i32(e, p->u.io_uring_create.fd);
		put_u32(e, p->u.io_uring_create.sq_entries);
		put_u32(e, p->u.io_uring_create.cq_entries);
		put_u32(e, p->u.io_uring_create.flags);
		break;
	case KATRA_PAYLOAD_NT_CALL:
		put_u64(e, p->u.nt_call.handle);
		put_u64(e, p->u.nt_call.length);
		put_opt_u64(e, p->u.nt_call.offset);
		put_opt_u32(e, p->u.nt_call.status);
		break;
	case KATRA_PAYLOAD_WINE_SERVER_CALL:
		put_u32(e, p->u.wine_server_call.request);
		put_opt_u32(e, p->u.wine_server_call.status);
		break;
	case KATRA_PAYLOAD_VULKAN:
		put_u64(e, p->u.vulkan.handle);
		put_u32(e, p->u.vulkan.count);
		put_opt_i32(e, p->u.vulkan.result);
		break;
	case KATRA_PAYLOAD_PROCESS_INFO:
		put_str(e, p->u.process_info.comm);
		put_opt_str(e, &p->u.process_info.exe_path);
		put_opt_str(e, &p->u.process_info.windows_image);
		put_u32(e, p->u.process_info.origin);
		break;
	case KATRA_PAYLOAD_NT_SYSCALL:
		put_u32(e, p->u.nt_syscall.number);
		put_opt_str(e, &p->u.nt_syscall.name);
		put_opt_u32(e, p->u.nt_syscall.status);
		break;
	case KATRA_PAYLOAD_WINE_SERVER_REQUESTS:
		put_str_vec(e, p->u.wine_server_requests.names);
		break;
	case KATRA_PAYLOAD_TASK_RENAME:
		put_str(e, p->u.task_rename.comm);
		break;
	case KATRA_PAYLOAD_D3D12:
		put_u64(e, p->u.d3d12.object);
		put_u64(e, p->u.d3d12.fence);
		put_u64(e, p->u.d3d12.value);
		put_u32(e, p->u.d3d12.count);
		put_u64(e, p->u.d3d12.event);
		put_opt_i32(e, p->u.d3d12.result);
		break;
	case KATRA_PAYLOAD_DROP:
		put_u32(e, p->u.drop.source);
		put_u32(e, p->u.drop.instance);
		put_u64(e, p->u.drop.count);
		break;
	}
}

static inline __attribute__((always_inline)) void put_event(struct enc *e,
							  const struct katra_event *ev)
{
	put_u64(e, ev->seq);
	put_u64(e, ev->ts_mono_ns);
	put_u64(e, ev->ts_wall_ns);
	put_u64(e, ev->thread_id);
	put_u64(e, ev->process_id);
	put_u32(e, ev->scope);
	put_u32(e, ev->kind);
	put_u32(e, ev->phase);
	put_opt_u64(e, ev->span_id);
	put_opt_u64(e, ev->request_id);
	put_u64(e, ev->causes.len);
	if (e->fits && ev->causes.len <= 4) /* a store each, not a call to memcpy */
		for (uint64_t i = 0; i < ev->causes.len; i++)
			put_u64(e, ev->causes.items[i]);
	else
		put_bytes(e, ev->causes.items, ev->causes.len * 8);
	put_u32(e, ev->resource.domain);
	put_u64(e, ev->resource.id);
	put_payload(e, &ev->payload);
	put_opt_u64(e, ev->cost_estimate_ns);
	put_u32(e, ev->confidence);
}

static void put_summary(struct enc *e, const struct katra_summary *s)
{
	put_u64(e, s->event_count);
	put_u64(e, s->epoch_count);
	put_u64(e, s->counter_count);
	put_u64(e, s->duration_ns);
	put_u64(e, s->events_by_kind_len);
	for (uint64_t i = 0; i < s->events_by_kind_len; i++) {
		put_u32(e, s->events_by_kind[i].kind);
		put_u64(e, s->events_by_kind[i].count);
	}
	put_u64(e, s->dropped_events);
	put_u64(e, s->drops_len);
	for (uint64_t i = 0; i < s->drops_len; i++) {
		put_u32(e, s->drops[i].source);
		put_u32(e, s->drops[i].instance);
		put_u64(e, s->drops[i].count);
	}
	put_u64(e, s->inferred_events);
	put_str_vec(e, s->probes_attached);
	put_str_vec(e, s->probes_failed);
	put_u64(e, s->processes_seen);
	put_u64(e, s->threads_seen);
}

static void put_record(struct enc *e, const struct katra_record *r)
{
	put_u32(e, r->type);
	switch (r->type) {
	case KATRA_RECORD_EVENT:
		put_event(e, &r->u.event);
		break;
	case KATRA_RECORD_EPOCH_MARKER:
		put_u64(e, r->u.epoch.seq);
		put_u64(e, r->u.epoch.ts_mono_ns);
		put_u64(e, r->u.epoch.ts_wall_ns);
		put_u64(e, r->u.epoch.epoch);
		put_u32(e, r->u.epoch.kind);
		put_str(e, r->u.epoch.name);
		break;
	case KATRA_RECORD_COUNTER:
		put_u64(e, r->u.counter.seq);
		put_u64(e, r->u.counter.ts_mono_ns);
		put_u64(e, r->u.counter.ts_wall_ns);
		put_u32(e, r->u.counter.kind);
		put_u32(e, r->u.counter.instance);
		put_u64(e, r->u.counter.value);
		break;
	case KATRA_RECORD_SESSION_SUMMARY:
		put_summary(e, &r->u.summary);
		break;
	}
}

static long enc_result(const struct enc *e)
{
	return e->len <= e->cap ? (long)e->len : -ENOSPC;
}

long katra_encode_header(const struct katra_header *h, uint8_t *out, size_t cap)
{
	struct enc e = { out, cap, 0, false };

	put_header(&e, h);
	return enc_result(&e);
}

long katra_encode_record(const struct katra_record *r, uint8_t *out, size_t cap)
{
	struct enc e = { out, cap, 0, false };

	put_record(&e, r);
	return enc_result(&e);
}

/* An upper bound of an Event record's size: the fixed fields, the largest
 * payload, the causes and the payload's string, if any. */
#define PAYLOADS_WITH_STRINGS                                                                  \
	(1ull << KATRA_PAYLOAD_FILE_OPEN | 1ull << KATRA_PAYLOAD_EXECVE |                       \
	 1ull << KATRA_PAYLOAD_TASK_EXEC | 1ull << KATRA_PAYLOAD_PROCESS_INFO |                 \
	 1ull << KATRA_PAYLOAD_TASK_RENAME | 1ull << KATRA_PAYLOAD_NT_SYSCALL |                 \
	 1ull << KATRA_PAYLOAD_WINE_SERVER_REQUESTS)

/* What an event's strings add to its bound (out of line: few events have
 * any). */
static __attribute__((noinline)) size_t payload_string_bytes(const struct katra_payload *p)
{
	size_t n = 0;

	if (p->type == KATRA_PAYLOAD_FILE_OPEN && p->u.file_open.path.present)
		n += p->u.file_open.path.value.len;
	else if (p->type == KATRA_PAYLOAD_EXECVE && p->u.execve.path.present)
		n += p->u.execve.path.value.len;
	else if (p->type == KATRA_PAYLOAD_TASK_EXEC && p->u.task_exec.path.present)
		n += p->u.task_exec.path.value.len;
	else if (p->type == KATRA_PAYLOAD_PROCESS_INFO)
		n += p->u.process_info.comm.len + 8 +
		     (p->u.process_info.exe_path.present ? p->u.process_info.exe_path.value.len : 0) +
		     (p->u.process_info.windows_image.present ?
			      p->u.process_info.windows_image.value.len : 0);
	else if (p->type == KATRA_PAYLOAD_TASK_RENAME)
		n += p->u.task_rename.comm.len;
	else if (p->type == KATRA_PAYLOAD_NT_SYSCALL && p->u.nt_syscall.name.present)
		n += p->u.nt_syscall.name.value.len;
	else if (p->type == KATRA_PAYLOAD_WINE_SERVER_REQUESTS)
		for (uint64_t i = 0; i < p->u.wine_server_requests.names.len; i++)
			n += 8 + p->u.wine_server_requests.names.items[i].len;
	return n;
}

static inline size_t event_record_bound(const struct katra_event *ev)
{
	const struct katra_payload *p = &ev->payload;
	size_t n = 256 + 8 * ev->causes.len;

	/* most payloads hold no string: one test for all of them */
	if (p->type < 64 && !((1ull << p->type) & PAYLOADS_WITH_STRINGS))
		return n;
	return n + payload_string_bytes(p);
}

/* An Event record checked field by field against cap (a short buffer, a
 * huge event): out of line, so that the fast path saves no registers for
 * it. */
static __attribute__((noinline)) long encode_event_checked(const struct katra_event *ev,
							   uint8_t *out, size_t cap)
{
	struct enc e = { out, cap, 0, false };

	put_u32(&e, KATRA_RECORD_EVENT);
	put_event(&e, ev);
	return enc_result(&e);
}

long katra_encode_event_record(const struct katra_event *ev, uint8_t *out, size_t cap)
{
	/* the recorder's hot path: one capacity check instead of one per field */
	if (ev->causes.len >= (1u << 20) || cap < event_record_bound(ev))
		return encode_event_checked(ev, out, cap);

	struct enc e = { out, cap, 0, true };

	put_u32(&e, KATRA_RECORD_EVENT);
	put_event(&e, ev);
	return (long)e.len;
}

size_t katra_encoded_record_size(const struct katra_record *r)
{
	struct enc e = { NULL, 0, 0, false };

	put_record(&e, r);
	return e.len;
}
