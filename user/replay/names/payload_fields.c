// SPDX-License-Identifier: GPL-2.0-only
/* The payload field table: schema.txt's payload structs, field by field. */
#include <stddef.h>
#include <stdio.h>

#include "katra/replay.h"
#include "replay/util/out.h"
#include "payload_fields.h"

#define F(variant, field, t) { #field, t, offsetof(struct katra_payload, u.variant.field) }

static const struct kr_field f_syscall[] = { F(syscall, nr, KR_NR) };
static const struct kr_field f_syscall_return[] = {
	F(syscall_return, nr, KR_NR), F(syscall_return, ret, KR_RET),
};
static const struct kr_field f_file_io[] = {
	F(file_io, fd, KR_I32), F(file_io, count, KR_U64), F(file_io, offset, KR_OPT_U64),
	F(file_io, iov_count, KR_U32),
};
static const struct kr_field f_file_open[] = {
	F(file_open, dirfd, KR_DIRFD), F(file_open, flags, KR_OPEN_FLAGS), F(file_open, mode, KR_MODE),
	F(file_open, path, KR_OPT_STR),
};
static const struct kr_field f_file_close[] = { F(file_close, fd, KR_I32) };
static const struct kr_field f_memory_map[] = {
	F(memory_map, addr, KR_ADDR), F(memory_map, len, KR_U64), F(memory_map, prot, KR_PROT),
	F(memory_map, flags, KR_MMAP_FLAGS), F(memory_map, fd, KR_I32), F(memory_map, offset, KR_U64),
};
static const struct kr_field f_memory_range[] = {
	F(memory_range, addr, KR_ADDR), F(memory_range, len, KR_U64),
	F(memory_range, arg, KR_RANGE_ARG),
};
static const struct kr_field f_futex[] = {
	F(futex, uaddr, KR_ADDR), F(futex, op, KR_FUTEX_OP), F(futex, val, KR_U32),
};
static const struct kr_field f_wait[] = {
	F(wait, handle, KR_I64), F(wait, count, KR_U32), F(wait, timeout_ns, KR_OPT_U64),
};
static const struct kr_field f_io_uring_enter[] = {
	F(io_uring_enter, fd, KR_I32), F(io_uring_enter, to_submit, KR_U32),
	F(io_uring_enter, min_complete, KR_U32), F(io_uring_enter, flags, KR_U32),
};
static const struct kr_field f_socket_msg[] = {
	F(socket_msg, fd, KR_I32), F(socket_msg, flags, KR_U32),
};
static const struct kr_field f_execve[] = { F(execve, path, KR_OPT_STR) };
static const struct kr_field f_clone[] = { F(clone, flags, KR_CLONE_FLAGS) };
static const struct kr_field f_task_fork[] = {
	F(task_fork, parent_pid, KR_PID), F(task_fork, parent_tid, KR_U64),
	F(task_fork, child_pid, KR_PID), F(task_fork, child_tid, KR_U64),
	F(task_fork, is_thread, KR_BOOL),
};
static const struct kr_field f_task_exec[] = {
	F(task_exec, old_tid, KR_U64), F(task_exec, path, KR_OPT_STR),
};
static const struct kr_field f_task_exit[] = {
	F(task_exit, exit_code, KR_I32), F(task_exit, group_dead, KR_BOOL),
};
static const struct kr_field f_switch[] = {
	F(sched_switch, cpu, KR_U32), F(sched_switch, prev_state, KR_STATE),
};
static const struct kr_field f_wakeup[] = {
	F(wakeup, target_tid, KR_U64), F(wakeup, target_pid, KR_PID),
	F(wakeup, target_cpu, KR_U32),
};
static const struct kr_field f_page_fault[] = {
	F(page_fault, address, KR_ADDR), F(page_fault, ip, KR_ADDR),
	F(page_fault, error_code, KR_FAULT_CODE),
};
static const struct kr_field f_io_uring_submit[] = {
	F(io_uring_submit, ctx, KR_ADDR), F(io_uring_submit, user_data, KR_ADDR),
	F(io_uring_submit, opcode, KR_U32), F(io_uring_submit, flags, KR_U32),
	F(io_uring_submit, fd, KR_I32),
};
static const struct kr_field f_io_uring_complete[] = {
	F(io_uring_complete, ctx, KR_ADDR), F(io_uring_complete, user_data, KR_ADDR),
	F(io_uring_complete, res, KR_I32), F(io_uring_complete, cflags, KR_U32),
};
static const struct kr_field f_io_uring_create[] = {
	F(io_uring_create, ctx, KR_ADDR), F(io_uring_create, fd, KR_I32),
	F(io_uring_create, sq_entries, KR_U32), F(io_uring_create, cq_entries, KR_U32),
	F(io_uring_create, flags, KR_U32),
};
static const struct kr_field f_nt_call[] = {
	F(nt_call, handle, KR_ADDR), F(nt_call, length, KR_U64),
	F(nt_call, offset, KR_OPT_U64), F(nt_call, status, KR_OPT_U32),
};
static const struct kr_field f_wine_server_call[] = {
	F(wine_server_call, request, KR_REQUEST), F(wine_server_call, status, KR_OPT_U32),
};
static const struct kr_field f_vulkan[] = {
	F(vulkan, handle, KR_ADDR), F(vulkan, count, KR_U32), F(vulkan, result, KR_OPT_I32),
};
static const struct kr_field f_drop[] = {
	F(drop, source, KR_DROP_SOURCE), F(drop, instance, KR_U32), F(drop, count, KR_U64),
};
static const struct kr_field f_process_info[] = {
	F(process_info, comm, KR_STR), F(process_info, exe_path, KR_OPT_STR),
	F(process_info, windows_image, KR_OPT_STR), F(process_info, origin, KR_ORIGIN),
};
static const struct kr_field f_nt_syscall[] = {
	F(nt_syscall, number, KR_U32), F(nt_syscall, name, KR_OPT_STR),
	F(nt_syscall, status, KR_OPT_U32),
};
static const struct kr_field f_wine_server_requests[] = {
	F(wine_server_requests, names, KR_STR_VEC),
};
static const struct kr_field f_task_rename[] = {
	F(task_rename, comm, KR_STR),
};
static const struct kr_field f_d3d12[] = {
	F(d3d12, object, KR_ADDR), F(d3d12, fence, KR_ADDR), F(d3d12, value, KR_U64),
	F(d3d12, count, KR_U32), F(d3d12, event, KR_ADDR), F(d3d12, result, KR_OPT_I32),
};
static const struct kr_field f_wakeup_outside[] = {
	F(wakeup_outside, target_tid, KR_U64), F(wakeup_outside, target_pid, KR_PID),
	F(wakeup_outside, target_cpu, KR_U32), F(wakeup_outside, waker_pid, KR_PID),
	F(wakeup_outside, waker_tid, KR_U64), F(wakeup_outside, waker_comm, KR_STR),
	F(wakeup_outside, context, KR_WAKER_CONTEXT),
};
static const struct kr_field f_gpu_fence[] = {
	F(gpu_fence, context, KR_U64), F(gpu_fence, seqno, KR_U64),
};
static const struct kr_field f_gpu_vblank[] = {
	F(gpu_vblank, crtc, KR_U64), F(gpu_vblank, sequence, KR_U64),
};
static const struct kr_field f_gpu_cmd[] = {
	F(gpu_cmd, cmd_type, KR_U32), F(gpu_cmd, flags, KR_U32), F(gpu_cmd, fence_id, KR_U64),
	F(gpu_cmd, ctx_id, KR_U32),
};
static const struct kr_field f_gpu_timeline[] = {
	F(gpu_timeline, context, KR_U64), F(gpu_timeline, driver, KR_STR),
	F(gpu_timeline, timeline, KR_STR),
};

#define D(arr) { arr, sizeof(arr) / sizeof(arr[0]) }

/* Indexed by enum katra_payload_type; None has no fields. */
static const struct kr_payload_desc descs[KATRA_PAYLOAD_COUNT] = {
	[KATRA_PAYLOAD_NONE] = { NULL, 0 },
	[KATRA_PAYLOAD_SYSCALL] = D(f_syscall),
	[KATRA_PAYLOAD_SYSCALL_RETURN] = D(f_syscall_return),
	[KATRA_PAYLOAD_FILE_IO] = D(f_file_io),
	[KATRA_PAYLOAD_FILE_OPEN] = D(f_file_open),
	[KATRA_PAYLOAD_FILE_CLOSE] = D(f_file_close),
	[KATRA_PAYLOAD_MEMORY_MAP] = D(f_memory_map),
	[KATRA_PAYLOAD_MEMORY_RANGE] = D(f_memory_range),
	[KATRA_PAYLOAD_FUTEX] = D(f_futex),
	[KATRA_PAYLOAD_WAIT] = D(f_wait),
	[KATRA_PAYLOAD_IO_URING_ENTER] = D(f_io_uring_enter),
	[KATRA_PAYLOAD_SOCKET_MSG] = D(f_socket_msg),
	[KATRA_PAYLOAD_EXECVE] = D(f_execve),
	[KATRA_PAYLOAD_CLONE] = D(f_clone),
	[KATRA_PAYLOAD_TASK_FORK] = D(f_task_fork),
	[KATRA_PAYLOAD_TASK_EXEC] = D(f_task_exec),
	[KATRA_PAYLOAD_TASK_EXIT] = D(f_task_exit),
	[KATRA_PAYLOAD_SWITCH] = D(f_switch),
	[KATRA_PAYLOAD_WAKEUP] = D(f_wakeup),
	[KATRA_PAYLOAD_PAGE_FAULT] = D(f_page_fault),
	[KATRA_PAYLOAD_IO_URING_SUBMIT] = D(f_io_uring_submit),
	[KATRA_PAYLOAD_IO_URING_COMPLETE] = D(f_io_uring_complete),
	[KATRA_PAYLOAD_IO_URING_CREATE] = D(f_io_uring_create),
	[KATRA_PAYLOAD_NT_CALL] = D(f_nt_call),
	[KATRA_PAYLOAD_WINE_SERVER_CALL] = D(f_wine_server_call),
	[KATRA_PAYLOAD_VULKAN] = D(f_vulkan),
	[KATRA_PAYLOAD_PROCESS_INFO] = D(f_process_info),
	[KATRA_PAYLOAD_DROP] = D(f_drop),
	[KATRA_PAYLOAD_NT_SYSCALL] = D(f_nt_syscall),
	[KATRA_PAYLOAD_WINE_SERVER_REQUESTS] = D(f_wine_server_requests),
	[KATRA_PAYLOAD_TASK_RENAME] = D(f_task_rename),
	[KATRA_PAYLOAD_D3D12] = D(f_d3d12),
	[KATRA_PAYLOAD_WAKEUP_OUTSIDE] = D(f_wakeup_outside),
	[KATRA_PAYLOAD_GPU_FENCE] = D(f_gpu_fence),
	[KATRA_PAYLOAD_GPU_VBLANK] = D(f_gpu_vblank),
	[KATRA_PAYLOAD_GPU_CMD] = D(f_gpu_cmd),
	[KATRA_PAYLOAD_GPU_TIMELINE] = D(f_gpu_timeline),
};

const struct kr_payload_desc *kr_payload_desc(uint32_t type)
{
	return type < KATRA_PAYLOAD_COUNT ? &descs[type] : NULL;
}

static void put_none(FILE *out, bool json)
{
	kr_s(out, json ? "null" : "-");
}

void kr_payload_field_value(FILE *out, const struct katra_payload *p,
			    const struct kr_field *f, bool json)
{
	const void *v = (const char *)p + f->off;
	char nbuf[KR_NAME_BUF];

	switch (f->type) {
	case KR_U32:
	case KR_REQUEST:
	case KR_NR:
	case KR_OPEN_FLAGS:
	case KR_MODE:
	case KR_PROT:
	case KR_MMAP_FLAGS:
	case KR_FUTEX_OP:
		kr_u64(out, *(const uint32_t *)v);
		break;
	case KR_I32:
	case KR_DIRFD:
		kr_i64(out, *(const int32_t *)v);
		break;
	case KR_U64:
	case KR_RANGE_ARG:
	case KR_CLONE_FLAGS:
	case KR_STATE:
	case KR_FAULT_CODE:
	case KR_PID:
		kr_u64(out, *(const uint64_t *)v);
		break;
	case KR_ADDR:
		if (json) {
			putc('"', out);
			kr_u64(out, *(const uint64_t *)v);
			putc('"', out);
		} else {
			kr_hex(out, *(const uint64_t *)v);
		}
		break;
	case KR_I64:
	case KR_RET:
		kr_i64(out, *(const int64_t *)v);
		break;
	case KR_BOOL:
		kr_s(out, *(const bool *)v ? "true" : "false");
		break;
	case KR_OPT_U32: {
		const struct katra_opt_u32 *o = v;

		if (o->present)
			kr_u64(out, o->value);
		else
			put_none(out, json);
		break;
	}
	case KR_OPT_I32: {
		const struct katra_opt_i32 *o = v;

		if (o->present)
			kr_i64(out, o->value);
		else
			put_none(out, json);
		break;
	}
	case KR_OPT_U64: {
		const struct katra_opt_u64 *o = v;

		if (o->present)
			kr_u64(out, o->value);
		else
			put_none(out, json);
		break;
	}
	case KR_OPT_STR: {
		const struct katra_opt_str *o = v;

		if (o->present)
			katra_json_string(out, o->value.ptr, o->value.len);
		else
			put_none(out, json);
		break;
	}
	case KR_STR: {
		const struct katra_str *str = v;

		katra_json_string(out, str->ptr, str->len);
		break;
	}
	case KR_STR_VEC: {
		const struct katra_str_vec *sv = v;

		putc('[', out);
		for (uint64_t i = 0; i < sv->len; i++) {
			if (i)
				putc(',', out);
			katra_json_string(out, sv->items[i].ptr, sv->items[i].len);
		}
		putc(']', out);
		break;
	}
	case KR_DROP_SOURCE:
	case KR_ORIGIN:
	case KR_WAKER_CONTEXT: {
		uint32_t s = *(const uint32_t *)v;
		const char *name = kr_enum(f->type == KR_ORIGIN	       ? katra_process_origin_name(s)
					   : f->type == KR_WAKER_CONTEXT ? katra_waker_context_name(s)
									 : katra_drop_source_name(s),
					   s, nbuf);

		if (json)
			katra_json_string(out, name, katra_cstr(name).len);
		else
			kr_s(out, name);
		break;
	}
	}
}
