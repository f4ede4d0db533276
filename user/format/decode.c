// SPDX-License-Identifier: GPL-2.0-only
/* bincode 1.x decoder for the Katra types.  Every length is checked against
 * the bytes that remain before anything is reserved, so a corrupt length is
 * an error, never an allocation. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "katra/format.h"
#include "katra/utf8.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the codec loads integers with memcpy: little-endian hosts only"
#endif

/* ------------------------------------------------------------------ */
/* arena: sized before a decode so that nothing moves while decoding */

void katra_arena_reset(struct katra_arena *a)
{
	a->used = 0;
}

void katra_arena_free(struct katra_arena *a)
{
	free(a->base);
	a->base = NULL;
	a->cap = 0;
	a->used = 0;
}

/* Every decoded byte of output is backed by input: a u64 element by 8 bytes,
 * a string by its length + 8, a string view (16 bytes) by 8 bytes of length,
 * KindCount (16 bytes) by 12.  Alignment adds at most 7 per allocation, and
 * each allocation consumes at least 8 input bytes, so 3 * len + 64 holds. */
static int arena_prepare(struct katra_arena *a, size_t input_len)
{
	size_t need = 3 * input_len + 64;

	a->used = 0;
	if (a->cap >= need)
		return 0;
	void *p = realloc(a->base, need);
	if (!p)
		return -ENOMEM;
	a->base = p;
	a->cap = need;
	return 0;
}

/* ------------------------------------------------------------------ */
/* decoder */

struct dec {
	const uint8_t *p;
	size_t len;
	size_t off;
	struct katra_arena *arena;
	struct katra_decode_error *err;
	int rc;
};

static void dec_fail(struct dec *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void dec_fail(struct dec *d, const char *fmt, ...)
{
	if (d->rc)
		return;
	d->rc = -EINVAL;
	if (d->err) {
		va_list ap;

		d->err->offset = d->off;
		va_start(ap, fmt);
		vsnprintf(d->err->message, sizeof(d->err->message), fmt, ap);
		va_end(ap);
	}
}

static bool need(struct dec *d, size_t n, const char *what)
{
	if (d->rc)
		return false;
	if (n > d->len - d->off) {
		dec_fail(d, "%s needs %zu bytes at byte %zu but %zu remain", what, n, d->off,
			 d->len - d->off);
		return false;
	}
	return true;
}

static void *arena_alloc(struct dec *d, size_t n)
{
	struct katra_arena *a = d->arena;
	size_t start = (a->used + 7) & ~(size_t)7;

	if (start > a->cap || n > a->cap - start) {
		/* cannot happen when arena_prepare's bound holds */
		dec_fail(d, "decoder arena exhausted at byte %zu", d->off);
		return NULL;
	}
	a->used = start + n;
	return a->base + start;
}

#define GET_FIXED(name, type)                                   \
	static type name(struct dec *d, const char *what)       \
	{                                                       \
		type v = 0;                                     \
		if (need(d, sizeof(type), what)) {              \
			memcpy(&v, d->p + d->off, sizeof(type)); \
			d->off += sizeof(type);                 \
		}                                               \
		return v;                                       \
	}
GET_FIXED(get_u8, uint8_t)
GET_FIXED(get_u32, uint32_t)
GET_FIXED(get_i32, int32_t)
GET_FIXED(get_u64, uint64_t)
GET_FIXED(get_i64, int64_t)

static bool get_bool(struct dec *d, const char *what)
{
	size_t at = d->off;
	uint8_t v = get_u8(d, what);

	if (!d->rc && v > 1) {
		d->off = at;
		dec_fail(d, "%s: invalid bool %u at byte %zu", what, v, at);
	}
	return v == 1;
}

static bool get_option_tag(struct dec *d, const char *what)
{
	size_t at = d->off;
	uint8_t v = get_u8(d, what);

	if (!d->rc && v > 1) {
		d->off = at;
		dec_fail(d, "%s: invalid Option tag %u at byte %zu", what, v, at);
	}
	return v == 1;
}

static uint32_t get_enum(struct dec *d, uint32_t count, const char *what)
{
	size_t at = d->off;
	uint32_t v = get_u32(d, what);

	if (!d->rc && v >= count) {
		d->off = at;
		dec_fail(d, "%s: unknown variant %u at byte %zu (expected < %u)", what, v, at,
			 count);
	}
	return v;
}

/* A u64 length followed by len * elem_size bytes that must all be present. */
static uint64_t get_len(struct dec *d, size_t elem_size, const char *what)
{
	size_t at = d->off;
	uint64_t n = get_u64(d, what);

	if (d->rc)
		return 0;
	if (n > (d->len - d->off) / elem_size) {
		d->off = at;
		dec_fail(d, "%s: length %llu at byte %zu exceeds the %zu bytes that remain", what,
			 (unsigned long long)n, at, d->len - (at + 8));
		return 0;
	}
	return n;
}

static struct katra_str get_str(struct dec *d, const char *what)
{
	struct katra_str s = { "", 0 };
	uint64_t n = get_len(d, 1, what);

	if (d->rc)
		return s;
	if (!katra_utf8_valid((const char *)d->p + d->off, n)) {
		dec_fail(d, "%s: invalid UTF-8 in string at byte %zu", what, d->off);
		return s;
	}
	char *buf = arena_alloc(d, n + 1);
	if (!buf)
		return s;
	memcpy(buf, d->p + d->off, n);
	buf[n] = '\0';
	d->off += n;
	s.ptr = buf;
	s.len = n;
	return s;
}

static struct katra_opt_str get_opt_str(struct dec *d, const char *what)
{
	struct katra_opt_str o = { false, { "", 0 } };

	o.present = get_option_tag(d, what);
	if (o.present)
		o.value = get_str(d, what);
	return o;
}

static struct katra_opt_u64 get_opt_u64(struct dec *d, const char *what)
{
	struct katra_opt_u64 o = { false, 0 };

	o.present = get_option_tag(d, what);
	if (o.present)
		o.value = get_u64(d, what);
	return o;
}

static struct katra_opt_u32 get_opt_u32(struct dec *d, const char *what)
{
	struct katra_opt_u32 o = { false, 0 };

	o.present = get_option_tag(d, what);
	if (o.present)
		o.value = get_u32(d, what);
	return o;
}

static struct katra_opt_i32 get_opt_i32(struct dec *d, const char *what)
{
	struct katra_opt_i32 o = { false, 0 };

	o.present = get_option_tag(d, what);
	if (o.present)
		o.value = get_i32(d, what);
	return o;
}

static struct katra_u64_vec get_u64_vec(struct dec *d, const char *what)
{
	struct katra_u64_vec v = { NULL, 0 };
	uint64_t n = get_len(d, 8, what);

	if (d->rc || n == 0)
		return v;
	uint64_t *items = arena_alloc(d, n * 8);
	if (!items)
		return v;
	memcpy(items, d->p + d->off, n * 8);
	d->off += n * 8;
	v.items = items;
	v.len = n;
	return v;
}

static struct katra_str_vec get_str_vec(struct dec *d, const char *what)
{
	struct katra_str_vec v = { NULL, 0 };
	uint64_t n = get_len(d, 8, what); /* each String is at least its u64 length */

	if (d->rc || n == 0)
		return v;
	struct katra_str *items = arena_alloc(d, n * sizeof(*items));
	if (!items)
		return v;
	for (uint64_t i = 0; i < n && !d->rc; i++)
		items[i] = get_str(d, what);
	v.items = items;
	v.len = n;
	return v;
}

static void get_header(struct dec *d, struct katra_header *h)
{
	struct katra_capture_options *o = &h->capture_options;

	memset(h, 0, sizeof(*h));
	h->format_version = get_u32(d, "TraceHeader.format_version");
	h->schema_hash = get_u64(d, "TraceHeader.schema_hash");
	h->tool_version = get_str(d, "TraceHeader.tool_version");
	o->target_pids = get_u64_vec(d, "CaptureOptions.target_pids");
	o->follow_children = get_bool(d, "CaptureOptions.follow_children");
	o->record_paths = get_bool(d, "CaptureOptions.record_paths");
	o->buffer_size_bytes = get_u64(d, "CaptureOptions.buffer_size_bytes");
	o->duration_limit_ns = get_opt_u64(d, "CaptureOptions.duration_limit_ns");
	o->counter_interval_ns = get_u64(d, "CaptureOptions.counter_interval_ns");
	o->reorder_window_ns = get_u64(d, "CaptureOptions.reorder_window_ns");
	h->start_wall_ns = get_u64(d, "TraceHeader.start_wall_ns");
	h->start_mono_ns = get_u64(d, "TraceHeader.start_mono_ns");
	h->process_id = get_u64(d, "TraceHeader.process_id");
	h->workload = get_str(d, "TraceHeader.workload");
	h->host.hostname = get_str(d, "HostInfo.hostname");
	h->host.os = get_str(d, "HostInfo.os");
	h->host.kernel_release = get_str(d, "HostInfo.kernel_release");
	h->host.machine = get_str(d, "HostInfo.machine");
	h->host.cpu_count = get_u32(d, "HostInfo.cpu_count");
	h->host.page_size = get_u32(d, "HostInfo.page_size");
	h->notes = get_str_vec(d, "TraceHeader.notes");
}

static void get_payload(struct dec *d, struct katra_payload *p)
{
	memset(p, 0, sizeof(*p));
	p->type = get_enum(d, KATRA_PAYLOAD_COUNT, "Payload");
	if (d->rc)
		return;
	switch (p->type) {
	case KATRA_PAYLOAD_NONE:
		break;
	case KATRA_PAYLOAD_SYSCALL:
		p->u.syscall.nr = get_u32(d, "SyscallPayload.nr");
		break;
	case KATRA_PAYLOAD_SYSCALL_RETURN:
		p->u.syscall_return.nr = get_u32(d, "SyscallReturnPayload.nr");
		p->u.syscall_return.ret = get_i64(d, "SyscallReturnPayload.ret");
		break;
	case KATRA_PAYLOAD_FILE_IO:
		p->u.file_io.fd = get_i32(d, "FileIoPayload.fd");
		p->u.file_io.count = get_u64(d, "FileIoPayload.count");
		p->u.file_io.offset = get_opt_u64(d, "FileIoPayload.offset");
		p->u.file_io.iov_count = get_u32(d, "FileIoPayload.iov_count");
		break;
	case KATRA_PAYLOAD_FILE_OPEN:
		p->u.file_open.dirfd = get_i32(d, "FileOpenPayload.dirfd");
		p->u.file_open.flags = get_u32(d, "FileOpenPayload.flags");
		p->u.file_open.mode = get_u32(d, "FileOpenPayload.mode");
		p->u.file_open.path = get_opt_str(d, "FileOpenPayload.path");
		break;
	case KATRA_PAYLOAD_FILE_CLOSE:
		p->u.file_close.fd = get_i32(d, "FileClosePayload.fd");
		break;
	case KATRA_PAYLOAD_MEMORY_MAP:
		p->u.memory_map.addr = get_u64(d, "MemoryMapPayload.addr");
		p->u.memory_map.len = get_u64(d, "MemoryMapPayload.len");
		p->u.memory_map.prot = get_u32(d, "MemoryMapPayload.prot");
		p->u.memory_map.flags = get_u32(d, "MemoryMapPayload.flags");
		p->u.memory_map.fd = get_i32(d, "MemoryMapPayload.fd");
		p->u.memory_map.offset = get_u64(d, "MemoryMapPayload.offset");
		break;
	case KATRA_PAYLOAD_MEMORY_RANGE:
		p->u.memory_range.addr = get_u64(d, "MemoryRangePayload.addr");
		p->u.memory_range.len = get_u64(d, "MemoryRangePayload.len");
		p->u.memory_range.arg = get_u64(d, "MemoryRangePayload.arg");
		break;
	case KATRA_PAYLOAD_FUTEX:
		p->u.futex.uaddr = get_u64(d, "FutexPayload.uaddr");
		p->u.futex.op = get_u32(d, "FutexPayload.op");
		p->u.futex.val = get_u32(d, "FutexPayload.val");
		break;
	case KATRA_PAYLOAD_WAIT:
		p->u.wait.handle = get_i64(d, "WaitPayload.handle");
		p->u.wait.count = get_u32(d, "WaitPayload.count");
		p->u.wait.timeout_ns = get_opt_u64(d, "WaitPayload.timeout_ns");
		break;
	case KATRA_PAYLOAD_IO_URING_ENTER:
		p->u.io_uring_enter.fd = get_i32(d, "IoUringEnterPayload.fd");
		p->u.io_uring_enter.to_submit = get_u32(d, "IoUringEnterPayload.to_submit");
		p->u.io_uring_enter.min_complete = get_u32(d, "IoUringEnterPayload.min_complete");
		p->u.io_uring_enter.flags = get_u32(d, "IoUringEnterPayload.flags");
		break;
	case KATRA_PAYLOAD_SOCKET_MSG:
		p->u.socket_msg.fd = get_i32(d, "SocketMsgPayload.fd");
		p->u.socket_msg.flags = get_u32(d, "SocketMsgPayload.flags");
		break;
	case KATRA_PAYLOAD_EXECVE:
		p->u.execve.path = get_opt_str(d, "ExecvePayload.path");
		break;
	case KATRA_PAYLOAD_CLONE:
		p->u.clone.flags = get_u64(d, "ClonePayload.flags");
		break;
	case KATRA_PAYLOAD_TASK_FORK:
		p->u.task_fork.parent_pid = get_u64(d, "TaskForkPayload.parent_pid");
		p->u.task_fork.parent_tid = get_u64(d, "TaskForkPayload.parent_tid");
		p->u.task_fork.child_pid = get_u64(d, "TaskForkPayload.child_pid");
		p->u.task_fork.child_tid = get_u64(d, "TaskForkPayload.child_tid");
		p->u.task_fork.is_thread = get_bool(d, "TaskForkPayload.is_thread");
		break;
	case KATRA_PAYLOAD_TASK_EXEC:
		p->u.task_exec.old_tid = get_u64(d, "TaskExecPayload.old_tid");
		p->u.task_exec.path = get_opt_str(d, "TaskExecPayload.path");
		break;
	case KATRA_PAYLOAD_TASK_EXIT:
		p->u.task_exit.exit_code = get_i32(d, "TaskExitPayload.exit_code");
		p->u.task_exit.group_dead = get_bool(d, "TaskExitPayload.group_dead");
		break;
	case KATRA_PAYLOAD_SWITCH:
		p->u.sched_switch.cpu = get_u32(d, "SwitchPayload.cpu");
		p->u.sched_switch.prev_state = get_u64(d, "SwitchPayload.prev_state");
		break;
	case KATRA_PAYLOAD_WAKEUP:
		p->u.wakeup.target_tid = get_u64(d, "WakeupPayload.target_tid");
		p->u.wakeup.target_pid = get_u64(d, "WakeupPayload.target_pid");
		p->u.wakeup.target_cpu = get_u32(d, "WakeupPayload.target_cpu");
		break;
	case KATRA_PAYLOAD_PAGE_FAULT:
		p->u.page_fault.address = get_u64(d, "PageFaultPayload.address");
		p->u.page_fault.ip = get_u64(d, "PageFaultPayload.ip");
		p->u.page_fault.error_code = get_u64(d, "PageFaultPayload.error_code");
		break;
	case KATRA_PAYLOAD_IO_URING_SUBMIT:
		p->u.io_uring_submit.ctx = get_u64(d, "IoUringSubmitPayload.ctx");
		p->u.io_uring_submit.user_data = get_u64(d, "IoUringSubmitPayload.user_data");
		p->u.io_uring_submit.opcode = get_u32(d, "IoUringSubmitPayload.opcode");
		p->u.io_uring_submit.flags = get_u32(d, "IoUringSubmitPayload.flags");
		p->u.io_uring_submit.fd = get_i32(d, "IoUringSubmitPayload.fd");
		break;
	case KATRA_PAYLOAD_IO_URING_COMPLETE:
		p->u.io_uring_complete.ctx = get_u64(d, "IoUringCompletePayload.ctx");
		p->u.io_uring_complete.user_data = get_u64(d, "IoUringCompletePayload.user_data");
		p->u.io_uring_complete.res = get_i32(d, "IoUringCompletePayload.res");
		p->u.io_uring_complete.cflags = get_u32(d, "IoUringCompletePayload.cflags");
		break;
	case KATRA_PAYLOAD_IO_URING_CREATE:
		p->u.io_uring_create.ctx = get_u64(d, "IoUringCreatePayload.ctx");
		p->u.io_uring_create.fd = get_i32(d, "IoUringCreatePayload.fd");
		p->u.io_uring_create.sq_entries = get_u32(d, "IoUringCreatePayload.sq_entries");
		p->u.io_uring_create.cq_entries = get_u32(d, "IoUringCreatePayload.cq_entries");
		p->u.io_uring_create.flags = get_u32(d, "IoUringCreatePayload.flags");
		break;
	case KATRA_PAYLOAD_NT_CALL:
		p->u.nt_call.handle = get_u64(d, "NtCallPayload.handle");
		p->u.nt_call.length = get_u64(d, "NtCallPayload.length");
		p->u.nt_call.offset = get_opt_u64(d, "NtCallPayload.offset");
		p->u.nt_call.status = get_opt_u32(d, "NtCallPayload.status");
		break;
	case KATRA_PAYLOAD_WINE_SERVER_CALL:
		p->u.wine_server_call.request = get_u32(d, "WineServerCallPayload.request");
		p->u.wine_server_call.status = get_opt_u32(d, "WineServerCallPayload.status");
		break;
	case KATRA_PAYLOAD_VULKAN:
		p->u.vulkan.handle = get_u64(d, "VulkanPayload.handle");
		p->u.vulkan.count = get_u32(d, "VulkanPayload.count");
		p->u.vulkan.result = get_opt_i32(d, "VulkanPayload.result");
		break;
	case KATRA_PAYLOAD_DROP:
		p->u.drop.source = get_enum(d, KATRA_DROP_SOURCE_COUNT, "DropPayload.source");
		p->u.drop.instance = get_u32(d, "DropPayload.instance");
		p->u.drop.count = get_u64(d, "DropPayload.count");
		break;
	case KATRA_PAYLOAD_PROCESS_INFO:
		p->u.process_info.comm = get_str(d, "ProcessInfoPayload.comm");
		p->u.process_info.exe_path = get_opt_str(d, "ProcessInfoPayload.exe_path");
		p->u.process_info.windows_image = get_opt_str(d, "ProcessInfoPayload.windows_image");
		p->u.process_info.origin = get_enum(d, KATRA_ORIGIN_COUNT, "ProcessInfoPayload.origin");
		break;
	case KATRA_PAYLOAD_NT_SYSCALL:
		p->u.nt_syscall.number = get_u32(d, "NtSyscallPayload.number");
		p->u.nt_syscall.name = get_opt_str(d, "NtSyscallPayload.name");
		p->u.nt_syscall.status = get_opt_u32(d, "NtSyscallPayload.status");
		break;
	case KATRA_PAYLOAD_WINE_SERVER_REQUESTS:
		p->u.wine_server_requests.names = get_str_vec(d, "WineServerRequestsPayload.names");
		break;
	case KATRA_PAYLOAD_TASK_RENAME:
		p->u.task_rename.comm = get_str(d, "TaskRenamePayload.comm");
		break;
	case KATRA_PAYLOAD_D3D12:
		p->u.d3d12.object = get_u64(d, "D3d12Payload.object");
		p->u.d3d12.fence = get_u64(d, "D3d12Payload.fence");
		p->u.d3d12.value = get_u64(d, "D3d12Payload.value");
		p->u.d3d12.count = get_u32(d, "D3d12Payload.count");
		p->u.d3d12.event = get_u64(d, "D3d12Payload.event");
		p->u.d3d12.result = get_opt_i32(d, "D3d12Payload.result");
		break;
	case KATRA_PAYLOAD_WAKEUP_OUTSIDE:
		p->u.wakeup_outside.target_tid = get_u64(d, "WakeupOutsidePayload.target_tid");
		p->u.wakeup_outside.target_pid = get_u64(d, "WakeupOutsidePayload.target_pid");
		p->u.wakeup_outside.target_cpu = get_u32(d, "WakeupOutsidePayload.target_cpu");
		p->u.wakeup_outside.waker_pid = get_u64(d, "WakeupOutsidePayload.waker_pid");
		p->u.wakeup_outside.waker_tid = get_u64(d, "WakeupOutsidePayload.waker_tid");
		p->u.wakeup_outside.waker_comm = get_str(d, "WakeupOutsidePayload.waker_comm");
		p->u.wakeup_outside.context =
			get_enum(d, KATRA_WAKER_CONTEXT_COUNT, "WakeupOutsidePayload.context");
		break;
	case KATRA_PAYLOAD_GPU_FENCE:
		p->u.gpu_fence.context = get_u64(d, "GpuFencePayload.context");
		p->u.gpu_fence.seqno = get_u64(d, "GpuFencePayload.seqno");
		break;
	case KATRA_PAYLOAD_GPU_VBLANK:
		p->u.gpu_vblank.crtc = get_u64(d, "GpuVblankPayload.crtc");
		p->u.gpu_vblank.sequence = get_u64(d, "GpuVblankPayload.sequence");
		break;
	case KATRA_PAYLOAD_GPU_CMD:
		p->u.gpu_cmd.cmd_type = get_u32(d, "GpuCmdPayload.cmd_type");
		p->u.gpu_cmd.flags = get_u32(d, "GpuCmdPayload.flags");
		p->u.gpu_cmd.fence_id = get_u64(d, "GpuCmdPayload.fence_id");
		p->u.gpu_cmd.ctx_id = get_u32(d, "GpuCmdPayload.ctx_id");
		break;
	case KATRA_PAYLOAD_GPU_TIMELINE:
		p->u.gpu_timeline.context = get_u64(d, "GpuTimelinePayload.context");
		p->u.gpu_timeline.driver = get_str(d, "GpuTimelinePayload.driver");
		p->u.gpu_timeline.timeline = get_str(d, "GpuTimelinePayload.timeline");
		break;
	}
}

static void get_event(struct dec *d, struct katra_event *ev)
{
	ev->seq = get_u64(d, "TraceEvent.seq");
	ev->ts_mono_ns = get_u64(d, "TraceEvent.ts_mono_ns");
	ev->ts_wall_ns = get_u64(d, "TraceEvent.ts_wall_ns");
	ev->thread_id = get_u64(d, "TraceEvent.thread_id");
	ev->process_id = get_u64(d, "TraceEvent.process_id");
	ev->scope = get_enum(d, KATRA_SCOPE_COUNT, "TraceEvent.scope");
	ev->kind = get_enum(d, KATRA_KIND_COUNT, "TraceEvent.kind");
	ev->phase = get_enum(d, KATRA_PHASE_COUNT, "TraceEvent.phase");
	ev->span_id = get_opt_u64(d, "TraceEvent.span_id");
	ev->request_id = get_opt_u64(d, "TraceEvent.request_id");
	ev->causes = get_u64_vec(d, "TraceEvent.causes");
	ev->resource.domain = get_enum(d, KATRA_RES_COUNT, "Resource.domain");
	ev->resource.id = get_u64(d, "Resource.id");
	get_payload(d, &ev->payload);
	ev->cost_estimate_ns = get_opt_u64(d, "TraceEvent.cost_estimate_ns");
	ev->confidence = get_enum(d, KATRA_CONFIDENCE_COUNT, "TraceEvent.confidence");
}

static void get_summary(struct dec *d, struct katra_summary *s)
{
	s->event_count = get_u64(d, "TraceSummary.event_count");
	s->epoch_count = get_u64(d, "TraceSummary.epoch_count");
	s->counter_count = get_u64(d, "TraceSummary.counter_count");
	s->duration_ns = get_u64(d, "TraceSummary.duration_ns");

	uint64_t n = get_len(d, 12, "TraceSummary.events_by_kind");
	struct katra_kind_count *kinds = n ? arena_alloc(d, n * sizeof(*kinds)) : NULL;
	for (uint64_t i = 0; kinds && i < n && !d->rc; i++) {
		kinds[i].kind = get_enum(d, KATRA_KIND_COUNT, "KindCount.kind");
		kinds[i].count = get_u64(d, "KindCount.count");
	}
	s->events_by_kind = kinds;
	s->events_by_kind_len = kinds ? n : 0;

	s->dropped_events = get_u64(d, "TraceSummary.dropped_events");
	n = get_len(d, 16, "TraceSummary.drops");
	struct katra_drop_count *drops = n ? arena_alloc(d, n * sizeof(*drops)) : NULL;
	for (uint64_t i = 0; drops && i < n && !d->rc; i++) {
		drops[i].source = get_enum(d, KATRA_DROP_SOURCE_COUNT, "DropCount.source");
		drops[i].instance = get_u32(d, "DropCount.instance");
		drops[i].count = get_u64(d, "DropCount.count");
	}
	s->drops = drops;
	s->drops_len = drops ? n : 0;

	s->inferred_events = get_u64(d, "TraceSummary.inferred_events");
	s->probes_attached = get_str_vec(d, "TraceSummary.probes_attached");
	s->probes_failed = get_str_vec(d, "TraceSummary.probes_failed");
	s->processes_seen = get_u64(d, "TraceSummary.processes_seen");
	s->threads_seen = get_u64(d, "TraceSummary.threads_seen");
}

static void get_stack(struct dec *d, struct katra_stack *st)
{
	st->id = get_u64(d, "Stack.id");
	uint64_t n = get_len(d, 12, "Stack.frames");
	struct katra_stack_frame *f = n ? arena_alloc(d, n * sizeof(*f)) : NULL;
	for (uint64_t i = 0; f && i < n && !d->rc; i++) {
		f[i].module = get_u32(d, "StackFrame.module");
		f[i].address = get_u64(d, "StackFrame.address");
	}
	st->frames = f;
	st->frames_len = f ? n : 0;
	st->kernel = get_str_vec(d, "Stack.kernel");
	st->truncated = get_bool(d, "Stack.truncated");
}

static void get_symbols(struct dec *d, struct katra_symbols *sy)
{
	sy->module = get_u32(d, "Symbols.module");
	uint64_t n = get_len(d, 24, "Symbols.names");
	struct katra_symbol_name *s = n ? arena_alloc(d, n * sizeof(*s)) : NULL;
	for (uint64_t i = 0; s && i < n && !d->rc; i++) {
		s[i].address = get_u64(d, "SymbolName.address");
		s[i].name = get_str(d, "SymbolName.name");
		s[i].offset = get_u64(d, "SymbolName.offset");
	}
	sy->names = s;
	sy->names_len = s ? n : 0;
}

static void get_record(struct dec *d, struct katra_record *r)
{
	memset(r, 0, sizeof(*r));
	r->type = get_enum(d, KATRA_RECORD_COUNT, "TraceRecord");
	if (d->rc)
		return;
	switch (r->type) {
	case KATRA_RECORD_EVENT:
		get_event(d, &r->u.event);
		break;
	case KATRA_RECORD_EPOCH_MARKER:
		r->u.epoch.seq = get_u64(d, "EpochMarker.seq");
		r->u.epoch.ts_mono_ns = get_u64(d, "EpochMarker.ts_mono_ns");
		r->u.epoch.ts_wall_ns = get_u64(d, "EpochMarker.ts_wall_ns");
		r->u.epoch.epoch = get_u64(d, "EpochMarker.epoch");
		r->u.epoch.kind = get_enum(d, KATRA_EPOCH_KIND_COUNT, "EpochMarker.kind");
		r->u.epoch.name = get_str(d, "EpochMarker.name");
		break;
	case KATRA_RECORD_COUNTER:
		r->u.counter.seq = get_u64(d, "Counter.seq");
		r->u.counter.ts_mono_ns = get_u64(d, "Counter.ts_mono_ns");
		r->u.counter.ts_wall_ns = get_u64(d, "Counter.ts_wall_ns");
		r->u.counter.kind = get_enum(d, KATRA_COUNTER_KIND_COUNT, "Counter.kind");
		r->u.counter.instance = get_u32(d, "Counter.instance");
		r->u.counter.value = get_u64(d, "Counter.value");
		break;
	case KATRA_RECORD_SESSION_SUMMARY:
		get_summary(d, &r->u.summary);
		break;
	case KATRA_RECORD_MODULE:
		r->u.module.id = get_u32(d, "Module.id");
		r->u.module.name = get_str(d, "Module.name");
		r->u.module.build_id = get_str(d, "Module.build_id");
		r->u.module.has_pe = get_option_tag(d, "Module.pe");
		if (r->u.module.has_pe) {
			struct katra_pe_identity *pe = &r->u.module.pe;
			pe->time_date_stamp = get_u32(d, "PeIdentity.time_date_stamp");
			pe->size_of_image = get_u32(d, "PeIdentity.size_of_image");
			pe->pdb_guid = get_str(d, "PeIdentity.pdb_guid");
			pe->pdb_age = get_u32(d, "PeIdentity.pdb_age");
			pe->pdb_name = get_str(d, "PeIdentity.pdb_name");
		}
		break;
	case KATRA_RECORD_STACK:
		get_stack(d, &r->u.stack);
		break;
	case KATRA_RECORD_STACK_OF:
		r->u.stack_of.stack_id = get_u64(d, "StackOf.stack_id");
		r->u.stack_of.thread_id = get_u64(d, "StackOf.thread_id");
		r->u.stack_of.process_id = get_u64(d, "StackOf.process_id");
		r->u.stack_of.begin_ns = get_u64(d, "StackOf.begin_ns");
		r->u.stack_of.duration_ns = get_u64(d, "StackOf.duration_ns");
		r->u.stack_of.site = get_enum(d, KATRA_STACK_SITE_COUNT, "StackOf.site");
		break;
	case KATRA_RECORD_SYMBOLS:
		get_symbols(d, &r->u.symbols);
		break;
	}
}

int katra_decode_header(const uint8_t *in, size_t len, struct katra_header *h,
			struct katra_arena *arena, struct katra_decode_error *err)
{
	struct dec d = { in, len, 0, arena, err, 0 };
	int rc = arena_prepare(arena, len);

	if (rc)
		return rc;
	get_header(&d, h);
	return d.rc;
}

int katra_decode_record(const uint8_t *in, size_t len, struct katra_record *r,
			struct katra_arena *arena, struct katra_decode_error *err)
{
	struct dec d = { in, len, 0, arena, err, 0 };
	int rc = arena_prepare(arena, len);

	if (rc)
		return rc;
	get_record(&d, r);
	return d.rc;
}
