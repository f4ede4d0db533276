/* SPDX-License-Identifier: GPL-2.0-only */
/* One CPU's watermark from what its probes publish (include/katra/wire.h,
 * struct katra_cpu_slot; the staging area's oldest key, bpf/common.bpf.h):
 * the lowest key a record that CPU has not yet committed to its ring can
 * carry.  Memory the probes write while it is read: every field is read
 * once, through `read`, so that a test can change them between two reads
 * as a probe on that CPU would. */
#ifndef KATRA_RECORD_KERNEL_WATERMARK_H
#define KATRA_RECORD_KERNEL_WATERMARK_H

#include <stdint.h>

enum katra_wm_field {
	KATRA_WM_BUSY_SEQ, /* low half: probes inside; high half: probes entered */
	KATRA_WM_STATE,    /* KATRA_SLOT_* */
	KATRA_WM_ENTER,    /* the pending syscall's entry time */
	KATRA_WM_FAULT,    /* a page fault's start (0: none) */
	KATRA_WM_STAGED,   /* the oldest key staged (0: nothing) */
};

struct katra_wm_reader {
	uint64_t (*read)(void *ctx, unsigned cpu, enum katra_wm_field f);
	void *ctx;
};

/* Readings of a CPU's slot tried before it is taken as busy. */
#define KATRA_WM_TRIES 4

/* The CPU's watermark read after `now` (CLOCK_MONOTONIC), never below prev;
 * prev when no reading could be trusted. */
uint64_t katra_wm_of_slot(const struct katra_wm_reader *r, unsigned cpu, uint64_t now,
			  uint64_t prev);

#endif
