/* SPDX-License-Identifier: GPL-2.0-only */
/* The writer's appends for the common scheduler and page-fault events
 * (user/format/writer_sched.c), beside katra_writer_append_syscall_* in
 * format.h: Linux scope, Measured, no request, no cost; the bytes of
 * katra_writer_append_event for the Event their fields make, those fields
 * taken as scalars (no struct written field by field and read back in wider
 * loads); wall times are the monotonic ones plus wall_offset. */
#ifndef KATRA_WRITER_SCHED_H
#define KATRA_WRITER_SCHED_H

#include "katra/format.h"

/* A page fault's Begin (phase KATRA_PHASE_BEGIN: no cause) or End
 * (KATRA_PHASE_END: one cause, its Begin's seq) in span, or an instant
 * (KATRA_PHASE_INSTANT: no span, no cause; span and cause unused); the
 * memory at address its resource, a PageFault payload. */
int katra_writer_append_fault(struct katra_writer *w, uint64_t seq, uint64_t span,
			      uint64_t cause, uint64_t tid, uint64_t pid, uint32_t phase,
			      uint64_t ts, uint64_t wall_offset, uint64_t address, uint64_t ip,
			      uint64_t error_code);
/* An OffCpu span's Begin or End, its first ncauses (at most 2) of cause0,
 * cause1; no resource, a Switch payload. */
int katra_writer_append_switch(struct katra_writer *w, uint64_t seq, uint64_t span,
			       uint32_t ncauses, uint64_t cause0, uint64_t cause1, uint64_t tid,
			       uint64_t pid, uint32_t phase, uint64_t ts, uint64_t wall_offset,
			       uint32_t cpu, uint64_t prev_state);
/* A traced thread's wakeup of target_tid: an instant, no cause, the target
 * thread its resource, a Wakeup payload. */
int katra_writer_append_wakeup(struct katra_writer *w, uint64_t seq, uint64_t tid, uint64_t pid,
			       uint64_t ts, uint64_t wall_offset, uint32_t target_tid,
			       uint32_t target_pid, uint32_t target_cpu);

#endif
