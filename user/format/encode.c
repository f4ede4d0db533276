// SPDX-License-Identifier: GPL-2.0-only
/* bincode 1.x encoder for the Katra types (fixint, little-endian, u64
 * lengths, u32 enum indices), writing into the caller's buffer. */
#include <errno.h>
#include <string.h>

#include "encode_int.h"

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
	case KATRA_RECORD_MODULE:
		put_u32(e, r->u.module.id);
		put_str(e, r->u.module.name);
		put_str(e, r->u.module.build_id);
		put_u8(e, r->u.module.has_pe);
		if (r->u.module.has_pe) {
			put_u32(e, r->u.module.pe.time_date_stamp);
			put_u32(e, r->u.module.pe.size_of_image);
			put_str(e, r->u.module.pe.pdb_guid);
			put_u32(e, r->u.module.pe.pdb_age);
			put_str(e, r->u.module.pe.pdb_name);
		}
		break;
	case KATRA_RECORD_STACK:
		put_u64(e, r->u.stack.id);
		put_u64(e, r->u.stack.frames_len);
		for (uint64_t i = 0; i < r->u.stack.frames_len; i++) {
			put_u32(e, r->u.stack.frames[i].module);
			put_u64(e, r->u.stack.frames[i].address);
		}
		put_str_vec(e, r->u.stack.kernel);
		put_bool(e, r->u.stack.truncated);
		break;
	case KATRA_RECORD_STACK_OF:
		put_u64(e, r->u.stack_of.stack_id);
		put_u64(e, r->u.stack_of.thread_id);
		put_u64(e, r->u.stack_of.process_id);
		put_u64(e, r->u.stack_of.begin_ns);
		put_u64(e, r->u.stack_of.duration_ns);
		put_u32(e, r->u.stack_of.site);
		break;
	case KATRA_RECORD_SYMBOLS:
		put_u32(e, r->u.symbols.module);
		put_u64(e, r->u.symbols.names_len);
		for (uint64_t i = 0; i < r->u.symbols.names_len; i++) {
			put_u64(e, r->u.symbols.names[i].address);
			put_str(e, r->u.symbols.names[i].name);
			put_u64(e, r->u.symbols.names[i].offset);
		}
		break;
	}
}

static long enc_result(const struct enc *e)
{
	return e->len <= e->cap ? (long)e->len : -ENOSPC;
}

long katra_encode_header(const struct katra_header *h, uint8_t *out, size_t cap)
{
	struct enc e = { out, cap, 0, false, false };

	put_header(&e, h);
	return enc_result(&e);
}

long katra_encode_record(const struct katra_record *r, uint8_t *out, size_t cap)
{
	struct enc e = { out, cap, 0, false, false };

	put_record(&e, r);
	return enc_result(&e);
}

/* What an event's strings add to its bound (out of line: few events have
 * any). */
size_t katra_payload_string_bytes(const struct katra_payload *p)
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
	else if (p->type == KATRA_PAYLOAD_WAKEUP_OUTSIDE)
		n += p->u.wakeup_outside.waker_comm.len;
	else if (p->type == KATRA_PAYLOAD_GPU_TIMELINE)
		n += p->u.gpu_timeline.driver.len + 8 + p->u.gpu_timeline.timeline.len;
	else if (p->type == KATRA_PAYLOAD_NT_SYSCALL && p->u.nt_syscall.name.present)
		n += p->u.nt_syscall.name.value.len;
	else if (p->type == KATRA_PAYLOAD_WINE_SERVER_REQUESTS)
		for (uint64_t i = 0; i < p->u.wine_server_requests.names.len; i++)
			n += 8 + p->u.wine_server_requests.names.items[i].len;
	return n;
}

/* An Event record checked field by field against cap (a short buffer, a
 * huge event): out of line, so that the fast path saves no registers for
 * it. */
static __attribute__((noinline)) long encode_event_checked(const struct katra_event *ev,
							   uint8_t *out, size_t cap)
{
	struct enc e = { out, cap, 0, false, false };

	put_u32(&e, KATRA_RECORD_EVENT);
	put_event(&e, ev);
	return enc_result(&e);
}

long katra_encode_event_record(const struct katra_event *ev, uint8_t *out, size_t cap)
{
	/* the recorder's hot path: one capacity check instead of one per field */
	if (!event_fits(ev, cap))
		return encode_event_checked(ev, out, cap);
	return (long)encode_event_unchecked(ev, out);
}

size_t katra_encoded_record_size(const struct katra_record *r)
{
	struct enc e = { NULL, 0, 0, false, false };

	put_record(&e, r);
	return e.len;
}
