/* SPDX-License-Identifier: GPL-2.0-only */
/* The fence a GPU fence event (payload GpuFence) is about, as one number:
 * its request_id (context << 32 | seqno, or, for a fence its driver numbers
 * only at its emit, context << 32 | the recorder's token for it, the same
 * in all its events: format/SPEC.md, the GPU layer), else context << 32 |
 * the payload's seqno. */
#ifndef KATRA_REPLAY_GPUKEY_H
#define KATRA_REPLAY_GPUKEY_H

#include <stdint.h>

#include "katra/format.h"

static inline uint64_t kr_gpu_fence_key(const struct katra_event *e)
{
	if (e->request_id.present)
		return e->request_id.value;
	return e->payload.u.gpu_fence.context << 32 | (e->payload.u.gpu_fence.seqno & 0xffffffffu);
}

#endif
