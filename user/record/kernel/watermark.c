// SPDX-License-Identifier: GPL-2.0-only
#include "katra/wire.h"

#include "watermark.h"

/* A pause while a probe runs: the next reading a little later. */
#if defined(__x86_64__) || defined(__i386__)
#define wm_relax() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define wm_relax() __asm__ __volatile__("yield" ::: "memory")
#else
#define wm_relax() __asm__ __volatile__("" ::: "memory")
#endif

/* A sequence count read: busy_seq, then everything a probe of that CPU
 * writes (the slot, then the staging area its records move to), then
 * busy_seq again.  Equal readings with busy 0: no probe was inside at any
 * moment in between (one that entered changed the high half), so what was
 * read is one state of the CPU.  Otherwise a probe may have carried an old
 * key from a place not yet read to one already read (a switch-out clears
 * the slot, then stages the syscall's Begin at its entry), or hold it in
 * flight: nothing read is trusted, and after KATRA_WM_TRIES readings the
 * CPU counts as busy (the previous watermark: every key any probe can still
 * commit is at or after it, the margin covering the clocks). */
uint64_t katra_wm_of_slot(const struct katra_wm_reader *r, unsigned cpu, uint64_t now,
			  uint64_t prev)
{
	for (unsigned t = 0; t < KATRA_WM_TRIES; t++) {
		uint64_t seq = r->read(r->ctx, cpu, KATRA_WM_BUSY_SEQ), state, enter, fault, staged;
		uint64_t w = now;

		if ((uint32_t)seq) { /* a probe is inside: it may be short */
			wm_relax();
			continue;
		}
		state = r->read(r->ctx, cpu, KATRA_WM_STATE);
		enter = r->read(r->ctx, cpu, KATRA_WM_ENTER);
		fault = r->read(r->ctx, cpu, KATRA_WM_FAULT);
		staged = r->read(r->ctx, cpu, KATRA_WM_STAGED);
		if (r->read(r->ctx, cpu, KATRA_WM_BUSY_SEQ) != seq)
			continue;
		if ((state & KATRA_SLOT_ACTIVE) && enter < w)
			w = enter;
		if (fault && fault < w)
			w = fault;
		if (staged && staged < w)
			w = staged;
		return w > prev ? w : prev;
	}
	return prev;
}
