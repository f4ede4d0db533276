// SPDX-License-Identifier: GPL-2.0-only
/* Frame epochs' names (frames.h). */
#include <stdio.h>
#include <string.h>

#include "frames.h"

bool kr_frame_parse(const struct katra_epoch_marker *m, struct kr_frame *f)
{
	char name[128], tail;
	unsigned long long n, pid, chain;

	if (m->kind != KATRA_EPOCH_FRAME || !m->name.len || m->name.len >= sizeof(name))
		return false;
	memcpy(name, m->name.ptr, m->name.len);
	name[m->name.len] = 0;
	if (sscanf(name, "frame %llu (pid %llu, swapchain 0x%llx%c", &n, &pid, &chain, &tail) != 4 ||
	    tail != ')')
		return false;
	*f = (struct kr_frame){ n, pid, chain };
	return true;
}
