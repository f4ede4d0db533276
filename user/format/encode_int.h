/* SPDX-License-Identifier: GPL-2.0-only */
/* The bincode encoder's inline parts, shared by encode.c and the writer's
 * per-event path (writer.c), which encodes an Event straight into its buffer
 * without a call per record.  Internal to the format library. */
#ifndef KATRA_FORMAT_ENCODE_INT_H
#define KATRA_FORMAT_ENCODE_INT_H

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
	bool plain; /* an event_plain() one: no string, at most 4 causes (so no call) */
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
	if (e->plain) /* checked by event_plain(): its copy (a call) not compiled in */
		__builtin_unreachable();
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

/* always inlined into the event encoder so the cursor stays in registers */
static inline __attribute__((always_inline)) void put_payload(struct enc *e,
							    const struct katra_payload *p)
{
	/* read once: a byte stored through e->buf could be it, and each use
	 * after a store would load it again */
	const uint32_t type = p->type;

	put_u32(e, type);
	switch (type) {
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
	case KATRA_PAYLOAD_WAKEUP_OUTSIDE:
		put_u64(e, p->u.wakeup_outside.target_tid);
		put_u64(e, p->u.wakeup_outside.target_pid);
		put_u32(e, p->u.wakeup_outside.target_cpu);
		put_u64(e, p->u.wakeup_outside.waker_pid);
		put_u64(e, p->u.wakeup_outside.waker_tid);
		put_str(e, p->u.wakeup_outside.waker_comm);
		put_u32(e, p->u.wakeup_outside.context);
		break;
	case KATRA_PAYLOAD_GPU_FENCE:
		put_u64(e, p->u.gpu_fence.context);
		put_u64(e, p->u.gpu_fence.seqno);
		break;
	case KATRA_PAYLOAD_GPU_VBLANK:
		put_u64(e, p->u.gpu_vblank.crtc);
		put_u64(e, p->u.gpu_vblank.sequence);
		break;
	case KATRA_PAYLOAD_GPU_CMD:
		put_u32(e, p->u.gpu_cmd.cmd_type);
		put_u32(e, p->u.gpu_cmd.flags);
		put_u64(e, p->u.gpu_cmd.fence_id);
		put_u32(e, p->u.gpu_cmd.ctx_id);
		break;
	case KATRA_PAYLOAD_GPU_TIMELINE:
		put_u64(e, p->u.gpu_timeline.context);
		put_str(e, p->u.gpu_timeline.driver);
		put_str(e, p->u.gpu_timeline.timeline);
		break;
	case KATRA_PAYLOAD_DROP:
		put_u32(e, p->u.drop.source);
		put_u32(e, p->u.drop.instance);
		put_u64(e, p->u.drop.count);
		break;
	}
}

/* ev's fields with the payload at pl (ev's own payload not read) */
static inline __attribute__((always_inline)) void put_event_with(
	struct enc *e, const struct katra_event *ev, const struct katra_payload *pl)
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
	if (e->plain || (e->fits && ev->causes.len <= 4)) /* a store each, not a call to memcpy */
		for (uint64_t i = 0; i < ev->causes.len; i++)
			put_u64(e, ev->causes.items[i]);
	else
		put_bytes(e, ev->causes.items, ev->causes.len * 8);
	put_u32(e, ev->resource.domain);
	put_u64(e, ev->resource.id);
	put_payload(e, pl);
	put_opt_u64(e, ev->cost_estimate_ns);
	put_u32(e, ev->confidence);
}

static inline __attribute__((always_inline)) void put_event(struct enc *e,
							  const struct katra_event *ev)
{
	put_event_with(e, ev, &ev->payload);
}

#define PAYLOADS_WITH_STRINGS                                                                  \
	(1ull << KATRA_PAYLOAD_FILE_OPEN | 1ull << KATRA_PAYLOAD_EXECVE |                       \
	 1ull << KATRA_PAYLOAD_TASK_EXEC | 1ull << KATRA_PAYLOAD_PROCESS_INFO |                 \
	 1ull << KATRA_PAYLOAD_TASK_RENAME | 1ull << KATRA_PAYLOAD_NT_SYSCALL |                 \
	 1ull << KATRA_PAYLOAD_WINE_SERVER_REQUESTS | 1ull << KATRA_PAYLOAD_WAKEUP_OUTSIDE |      \
	 1ull << KATRA_PAYLOAD_GPU_TIMELINE)

size_t katra_payload_string_bytes(const struct katra_payload *p);

/* Most payloads hold no string: one test for all of them. */
static inline bool payload_without_strings(const struct katra_payload *p)
{
	return p->type < 64 && !((1ull << p->type) & PAYLOADS_WITH_STRINGS);
}

static inline size_t event_record_bound(const struct katra_event *ev)
{
	size_t n = 256 + 8 * ev->causes.len;

	if (payload_without_strings(&ev->payload))
		return n;
	return n + katra_payload_string_bytes(&ev->payload);
}

/* cap bytes surely hold the Event record of ev (encode_event_unchecked) */
static inline bool event_fits(const struct katra_event *ev, size_t cap)
{
	return ev->causes.len < (1u << 20) && cap >= event_record_bound(ev);
}

/* Most events: no string in the payload, at most 4 causes.  Their record
 * is encoded without a call (encode_event_plain), in at most
 * PLAIN_EVENT_BOUND bytes. */
#define PLAIN_EVENT_BOUND 256
static inline bool event_plain(const struct katra_event *ev)
{
	return ev->causes.len <= 4 && payload_without_strings(&ev->payload);
}

/* An Event record (its RecordType tag, then the event) at out, where it
 * fits (event_fits): no check per field.  plain (a constant): ev is
 * event_plain(), so no string copy nor memcpy of causes is compiled in.
 * Its size. */
static inline __attribute__((always_inline)) size_t encode_event_as(
	const struct katra_event *ev, uint8_t *out, bool plain)
{
	struct enc e = { out, 0, 0, true, plain };

	put_u32(&e, KATRA_RECORD_EVENT);
	put_event(&e, ev);
	return e.len;
}

/* The same with the payload at pl, plain: at most 4 causes, pl without
 * strings. */
static inline __attribute__((always_inline)) size_t encode_event_plain_with(
	const struct katra_event *ev, const struct katra_payload *pl, uint8_t *out)
{
	struct enc e = { out, 0, 0, true, true };

	put_u32(&e, KATRA_RECORD_EVENT);
	put_event_with(&e, ev, pl);
	return e.len;
}

/* The Event record of an event_plain() ev at out, which has room for
 * PLAIN_EVENT_BOUND bytes; the bytes of encode_event_unchecked. */
static inline __attribute__((always_inline)) size_t encode_event_plain(
	const struct katra_event *ev, uint8_t *out)
{
	return encode_event_as(ev, out, true);
}

static inline __attribute__((always_inline)) size_t encode_event_unchecked(
	const struct katra_event *ev, uint8_t *out)
{
	return encode_event_as(ev, out, false);
}

#endif
