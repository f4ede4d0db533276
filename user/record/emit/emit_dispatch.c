// SPDX-License-Identifier: GPL-2.0-only
/* The emitter's dispatch: a pending wire record to the builder of its kind,
 * and the spans still open at capture end closed through each builder.
 * Above the builders; emit.c below them holds what they share. */
#include <errno.h>

#include "emit_int.h"

static inline __attribute__((always_inline)) int emit_by_kind(struct emitter *e,
							     const struct pending *p);

/* emit_pending() after an error, or with name tables waiting: out of line
 * (noinline: inlined, its call made emit_pending save two registers and
 * call emit_by_kind for every record), so the common path saves no
 * registers and jumps to the builder */
__attribute__((noinline)) int emit_pending_rare(struct emitter *e, const struct pending *p)
{
	if (e->error)
		return e->error;
	/* request names the uprobes worker has read since: before this record
	 * (its key keeps the order) */
	int rc = emit_waiting_names(e, p->key);
	return rc ? rc : emit_by_kind(e, p);
}

int emit_pending(struct emitter *e, const struct pending *p)
{
	if (e->error || e->names_waiting)
		return emit_pending_rare(e, p);
	return emit_by_kind(e, p);
}

static inline __attribute__((always_inline)) int emit_by_kind(struct emitter *e,
							     const struct pending *p)
{
	/* every kind listed: a new one cannot be misfiled silently */
	switch ((enum pend_kind)p->kind) {
	/* their common cases first (emit_pending_syscall's functions) */
	case PEND_SYSCALL_BEGIN:
	case PEND_SYSCALL_PAIR: /* its Begin half (pipeline.c writes the End) */
		return emit_syscall_begin_common(e, p);
	case PEND_SYSCALL_END:
	case PEND_SYSCALL_ORPHAN:
		return emit_syscall_end_common(e, p);
	case PEND_SWITCH:
		return emit_switch(e, p);
	case PEND_WAKING:
		return emit_waking(e, p);
	case PEND_FORK:
		return emit_fork(e, p);
	case PEND_EXEC:
		return emit_exec(e, p);
	case PEND_EXIT:
		return emit_exit(e, p);
	case PEND_PAGE_FAULT:
	case PEND_FAULT_BEGIN:
	case PEND_FAULT_END:
		return emit_page_fault(e, p);
	case PEND_URING_CREATE:
	case PEND_URING_SUBMIT:
	case PEND_URING_COMPLETE:
		return emit_uring(e, p);
	case PEND_UCALL:
		return emit_ucall(e, p);
	case PEND_TASK_RENAME:
		return emit_task_rename(e, p);
	case PEND_GPU_FENCE:
		return emit_gpu_fence(e, p);
	case PEND_GPU_TIMELINE:
		return emit_gpu_timeline(e, p);
	case PEND_GPU_CMD:
		return emit_gpu_cmd(e, p);
	}
	return -EINVAL;
}

int emit_close_open_spans(struct emitter *e, uint64_t key)
{
	int rc = 0;

	if (key < e->st.last_key)
		key = e->st.last_key;
	ktable_each(&e->threads, i) {
		if (rc)
			break;
		struct thread_state *th = ktable_value_at(&e->threads, i);
		uint32_t tid = (uint32_t)ktable_key_at(&e->threads, i);
		struct katra_wire_head h = { .tid = tid, .tgid = th->tgid };
		if (th->flags & TH_SYSCALL_OPEN)
			rc = emit_close_syscall(e, th, tid, key);
		if (!rc && (th->flags & TH_FAULT_OPEN)) {
			th->flags &= ~TH_FAULT_OPEN;
			rc = emit_end_span(e, th, &h, KATRA_KIND_PAGE_FAULT, th->pf_span, th->pf_seq,
					   key, NULL, KATRA_CONFIDENCE_INFERRED);
		}
		if (!rc && (th->flags & TH_OFFCPU_OPEN)) {
			th->flags &= ~TH_OFFCPU_OPEN;
			rc = emit_end_span(e, th, &h, KATRA_KIND_OFF_CPU, th->off_span, th->off_seq,
					   key, NULL, KATRA_CONFIDENCE_INFERRED);
		}
		if (!rc)
			rc = emit_ucall_close_all(e, th, tid, key);
		if (!rc)
			rc = emit_gpu_close(e, th, tid, key);
	}
	return rc;
}
