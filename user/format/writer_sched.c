// SPDX-License-Identifier: GPL-2.0-only
/* A page fault's Begin and End, an OffCpu span's Begin and End (sched
 * switches) and a traced thread's wakeup, their fields taken as scalars
 * (format.h): the bytes of katra_writer_append_event for the Event they
 * stand for, which never leaves these functions, so the encoder (put_event,
 * the one writer of the bytes) folds its constant fields away. */
#include "katra/writer_sched.h"
#include "encode_int.h"
#include "writer_int.h"

/* Room for one plain event and nothing sticky: the common case. */
static inline bool room(const struct katra_writer *w)
{
	return !w->error && !w->finished && w->cap - w->used >= 4 + PLAIN_EVENT_BOUND;
}

/* ---- page faults ---- */

#define FAULT_PARAMS                                                                         \
	struct katra_writer *w, uint64_t seq, uint64_t span, uint64_t cause, uint64_t tid,        \
		uint64_t pid, uint32_t phase, uint64_t ts, uint64_t wall_offset, uint64_t address, \
		uint64_t ip, uint64_t error_code
#define FAULT_EVENT(ev)                                                                      \
	struct katra_event ev = {                                                            \
		.seq = seq, .ts_mono_ns = ts, .ts_wall_ns = wall_offset + ts,                \
		.thread_id = tid, .process_id = pid,                                         \
		.scope = KATRA_SCOPE_LINUX, .kind = KATRA_KIND_PAGE_FAULT, .phase = phase,   \
		.span_id = { phase != KATRA_PHASE_INSTANT, span },                           \
		.causes = { &cause, phase == KATRA_PHASE_END },                              \
		.resource = { KATRA_RES_MEMORY, address },                                   \
		.payload = { .type = KATRA_PAYLOAD_PAGE_FAULT,                               \
			     .u.page_fault = { address, ip, error_code } },                  \
		.confidence = KATRA_CONFIDENCE_MEASURED,                                     \
	}

/* Out of line (the same parameters: a tail call): the Event on the stack
 * only where the buffer's end or an error needs the general path. */
static __attribute__((noinline)) int append_fault_other(FAULT_PARAMS)
{
	FAULT_EVENT(ev);

	return append_event_other(w, &ev);
}

int katra_writer_append_fault(FAULT_PARAMS)
{
	if (!room(w))
		return append_fault_other(w, seq, span, cause, tid, pid, phase, ts, wall_offset,
					  address, ip, error_code);
	FAULT_EVENT(ev);
	uint8_t *out = w->buf + w->used + 4;

	/* each phase's span and cause constants to the encoder */
	switch (phase) {
	case KATRA_PHASE_INSTANT:
		ev.span_id.present = false;
		ev.causes.len = 0;
		return commit_record(w, encode_event_plain(&ev, out));
	case KATRA_PHASE_END:
		ev.span_id.present = true;
		ev.causes.len = 1;
		return commit_record(w, encode_event_plain(&ev, out));
	default:
		ev.span_id.present = true;
		ev.causes.len = 0;
		return commit_record(w, encode_event_plain(&ev, out));
	}
}

/* ---- OffCpu spans ---- */

#define SWITCH_PARAMS                                                                        \
	struct katra_writer *w, uint64_t seq, uint64_t span, uint32_t ncauses, uint64_t cause0,   \
		uint64_t cause1, uint64_t tid, uint64_t pid, uint32_t phase, uint64_t ts,         \
		uint64_t wall_offset, uint32_t cpu, uint64_t prev_state
#define SWITCH_EVENT(ev, causes)                                                             \
	uint64_t causes[2] = { cause0, cause1 };                                             \
	struct katra_event ev = {                                                            \
		.seq = seq, .ts_mono_ns = ts, .ts_wall_ns = wall_offset + ts,                \
		.thread_id = tid, .process_id = pid,                                         \
		.scope = KATRA_SCOPE_LINUX, .kind = KATRA_KIND_OFF_CPU, .phase = phase,      \
		.span_id = { true, span }, .causes = { causes, ncauses },                     \
		.payload = { .type = KATRA_PAYLOAD_SWITCH,                                   \
			     .u.sched_switch = { cpu, prev_state } },                        \
		.confidence = KATRA_CONFIDENCE_MEASURED,                                     \
	}

static __attribute__((noinline)) int append_switch_other(SWITCH_PARAMS)
{
	SWITCH_EVENT(ev, causes);

	return append_event_other(w, &ev);
}

int katra_writer_append_switch(SWITCH_PARAMS)
{
	if (!room(w))
		return append_switch_other(w, seq, span, ncauses, cause0, cause1, tid, pid, phase,
					   ts, wall_offset, cpu, prev_state);
	SWITCH_EVENT(ev, causes);
	uint8_t *out = w->buf + w->used + 4;

	/* each count of causes a constant to the encoder: its loop over them
	 * unrolled, the causes from registers, not from the stack */
	switch (ncauses) {
	case 0:
		ev.causes.len = 0;
		return commit_record(w, encode_event_plain(&ev, out));
	case 1:
		ev.causes.len = 1;
		return commit_record(w, encode_event_plain(&ev, out));
	default:
		ev.causes.len = 2;
		return commit_record(w, encode_event_plain(&ev, out));
	}
}

/* ---- wakeups ---- */

#define WAKEUP_PARAMS                                                                        \
	struct katra_writer *w, uint64_t seq, uint64_t tid, uint64_t pid, uint64_t ts,            \
		uint64_t wall_offset, uint32_t target_tid, uint32_t target_pid,                   \
		uint32_t target_cpu
#define WAKEUP_EVENT(ev)                                                                     \
	struct katra_event ev = {                                                            \
		.seq = seq, .ts_mono_ns = ts, .ts_wall_ns = wall_offset + ts,                \
		.thread_id = tid, .process_id = pid,                                         \
		.scope = KATRA_SCOPE_LINUX, .kind = KATRA_KIND_WAKEUP,                       \
		.phase = KATRA_PHASE_INSTANT,                                                \
		.resource = { KATRA_RES_THREAD, target_tid },                                \
		.payload = { .type = KATRA_PAYLOAD_WAKEUP,                                   \
			     .u.wakeup = { target_tid, target_pid, target_cpu } },           \
		.confidence = KATRA_CONFIDENCE_MEASURED,                                     \
	}

static __attribute__((noinline)) int append_wakeup_other(WAKEUP_PARAMS)
{
	WAKEUP_EVENT(ev);

	return append_event_other(w, &ev);
}

int katra_writer_append_wakeup(WAKEUP_PARAMS)
{
	if (!room(w))
		return append_wakeup_other(w, seq, tid, pid, ts, wall_offset, target_tid,
					   target_pid, target_cpu);
	WAKEUP_EVENT(ev);

	return commit_record(w, encode_event_plain(&ev, w->buf + w->used + 4));
}
