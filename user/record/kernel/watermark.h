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

/* Readings of a CPU's slot tried before it is taken as busy, a pause
 * between two (12.6 ns here; 1,024 of them about 20 us, where a CPU
 * stays busy only while a probe on it is held up: a vCPU descheduled).
 * Four back to back fell within one probe's run on a CPU that runs probes
 * most of the time (a syscall loop): in 4 of 13 `benchwl sys 160000`
 * captures 26-37 of ~110 marks found it busy, its watermark standing still
 * for milliseconds while the other rings' items waited, and in one of them
 * the reorder budget was spent and 26,774 items went out early.  With 32
 * paused tries 2 of 5 captures still had 8-13 such marks; with 1,024 none
 * of 13 (at most 2,272 extra readings in a capture). */
#define KATRA_WM_TRIES 1024

/* The CPU's watermark read after `now` (CLOCK_MONOTONIC), never below prev;
 * prev when no reading could be trusted. */
uint64_t katra_wm_of_slot(const struct katra_wm_reader *r, unsigned cpu, uint64_t now,
			  uint64_t prev);

#endif
