// SPDX-License-Identifier: GPL-2.0-only
/* Call stacks for windows rendered before the stacks are read
 * (report_render.h): a marker where a hop's stack goes, replaced when the
 * rendering is copied out after the last record (copy_resolved,
 * report_run.c: the renderers call this file, the copy calls them). */
#include <inttypes.h>
#include <stdio.h>

#include "report_render.h"

bool kr_defer_stack(FILE *f, const struct kr_report *rp, const struct kr_hop *h,
		    enum kr_defer_mode mode)
{
	if (kr_report_stacks_final(rp) || !kr_report_stacks(rp) ||
	    (h->type != KR_HOP_BLOCKED && h->type != KR_HOP_RUN))
		return false;
	fprintf(f, "%cKSTK:%c:%u:%" PRIu64 ":%" PRIu64 ":%" PRIu64 "%c", KR_DEFER_MARK, (char)mode,
		(unsigned)h->type, h->tid, h->from_ns, h->to_ns, KR_DEFER_MARK);
	return true;
}
