// SPDX-License-Identifier: GPL-2.0-only
#include "katra/wire.h"

#include "watermark.h"

uint64_t katra_wm_of_slot(const struct katra_wm_reader *r, unsigned cpu, uint64_t now,
			  uint64_t prev)
{
	uint64_t busy, state, enter, staged, fault, w;

	busy = r->read(r->ctx, cpu, KATRA_WM_BUSY_SEQ);
	state = r->read(r->ctx, cpu, KATRA_WM_STATE);
	enter = r->read(r->ctx, cpu, KATRA_WM_ENTER);
	staged = r->read(r->ctx, cpu, KATRA_WM_STAGED);
	/* a probe that started meanwhile shows in busy when read again */
	if ((uint32_t)busy || (uint32_t)r->read(r->ctx, cpu, KATRA_WM_BUSY_SEQ))
		return prev;
	fault = r->read(r->ctx, cpu, KATRA_WM_FAULT);
	w = now;
	if ((state & KATRA_SLOT_ACTIVE) && enter < w)
		w = enter;
	if (fault && fault < w)
		w = fault;
	if (staged && staged < w)
		w = staged;
	return w > prev ? w : prev;
}
