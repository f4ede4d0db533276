/* SPDX-License-Identifier: GPL-2.0-only */
/* --stacks in the capture: a thread that reads the stack ring into the
 * stacks wing's spool, and the records written at the end (before the
 * SessionSummary).  Each returns 0 or -errno and has said why on stderr. */
#ifndef KATRA_RECORD_RECORDER_STACKS_H
#define KATRA_RECORD_RECORDER_STACKS_H

struct recorder;

/* Nothing without --stacks */
int recorder_stacks_start(struct recorder *r);
/* The reader stopped, the ring read to its end, the stacks unwound and written */
int recorder_stacks_write(struct recorder *r);
/* Whatever start made (the reader stopped if it still runs) */
void recorder_stacks_free(struct recorder *r);

#endif
