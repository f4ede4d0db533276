/* SPDX-License-Identifier: GPL-2.0-only */
/* Frame epochs (format/SPEC.md section 10, Frames): an EpochMarker of kind
 * Frame is named "frame N (pid P, swapchain 0xS)"; the text after the
 * number names its track (a process and a swapchain).  Shared by report
 * --frames and export. */
#ifndef KATRA_REPLAY_NAMES_FRAMES_H
#define KATRA_REPLAY_NAMES_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "katra/format.h"

struct kr_frame {
	uint64_t number;    /* N: the frame it ended, from 1 */
	uint64_t pid;       /* P */
	uint64_t swapchain; /* S */
};

/* True when m is a Frame epoch whose name reads as the recorder writes it. */
bool kr_frame_parse(const struct katra_epoch_marker *m, struct kr_frame *f);

#endif
