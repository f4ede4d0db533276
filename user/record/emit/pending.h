/* SPDX-License-Identifier: GPL-2.0-only */
/* A wire record waiting for its turn: what the pipeline orders
 * (pipeline/order.h) and the emitter turns into trace events.  Its key is
 * the time it sorts by. */
#ifndef KATRA_RECORD_PENDING_H
#define KATRA_RECORD_PENDING_H

#include <stdint.h>

#include "katra/wire.h"

enum pend_kind {
	PEND_SYSCALL_BEGIN,   /* u.sc, key enter_ts (combined or flushed enter) */
	PEND_SYSCALL_END,     /* u.sc, key exit time (combined or EXIT|FLUSHED) */
	PEND_SYSCALL_ORPHAN,  /* u.sc, EXIT|NO_ENTER: becomes an Instant */
	PEND_SYSCALL_PAIR,    /* u.sc, a combined record: key enter_ts; once its Begin
			       * is written it becomes the END, key exit_ts, in place */
	PEND_SWITCH,
	PEND_WAKING,
	PEND_FORK,
	PEND_EXEC,
	PEND_EXIT,
	PEND_PAGE_FAULT,      /* an instant */
	PEND_FAULT_BEGIN,     /* a measured fault, key enter_ts */
	PEND_FAULT_END,       /* ... key its end */
	PEND_URING_CREATE,
	PEND_URING_SUBMIT,
	PEND_URING_COMPLETE,
	PEND_UCALL,           /* u.ucl, a uprobed call's ENTER or EXIT (emit_wine.c) */
	PEND_TASK_RENAME,     /* u.rn, a thread's new name */
	PEND_GPU_FENCE,       /* u.gf, a dma_fence event (emit_gpu.c) */
	PEND_GPU_TIMELINE,    /* u.gt, a fence context's names */
	PEND_GPU_CMD,         /* u.gc, a driver's command or its response */
};

struct pending {
	uint64_t key;
	uint32_t kind; /* enum pend_kind */
	uint32_t ring;
	union {
		struct katra_wire_head head;
		struct katra_ev_syscall sc;
		struct katra_ev_switch sw;
		struct katra_ev_waking wk;
		struct katra_ev_fork fork;
		struct katra_ev_exec exec;
		struct katra_ev_exit exit;
		struct katra_ev_page_fault pf;
		struct katra_ev_uring_create uc;
		struct katra_ev_uring_submit us;
		struct katra_ev_uring_complete ucp;
		struct katra_ev_ucall ucl;
		struct katra_ev_task_rename rn;
		struct katra_ev_gpu_fence gf;
		struct katra_ev_gpu_timeline gt;
		struct katra_ev_gpu_cmd gc;
	} u;
};

#endif
