/* SPDX-License-Identifier: GPL-2.0-only */
/* A trace's call stacks kept for the views that show them beside a span
 * (report's hops, export's slices): the Module, Stack and StackOf records
 * fed as they are read, then asked which stack a thread's span cites, named
 * from the binaries at hand (elfsyms.h). */
#ifndef KATRA_REPLAY_STACKIDX_H
#define KATRA_REPLAY_STACKIDX_H

#include <stddef.h>
#include <stdint.h>

#include "katra/format.h"

struct kr_stackidx;

/* symbols: --symbols DIR, or NULL.  NULL when out of memory. */
struct kr_stackidx *kr_stackidx_new(const char *symbols);
void kr_stackidx_free(struct kr_stackidx *ix);
/* A record: Module, Stack and StackOf are kept (copied), others ignored.
 * 0 or -ENOMEM. */
int kr_stackidx_add(struct kr_stackidx *ix, const struct katra_record *rec);
/* Whether any StackOf was kept */
int kr_stackidx_any(const struct kr_stackidx *ix);
/* The stack of thread tid's spans of this site (enum katra_stack_site) that
 * overlap [from_ns, to_ns] the longest (an off-CPU interval's own stack); of
 * timer samples (KATRA_SITE_SAMPLE), those taken inside [from_ns, to_ns],
 * the stack most of them show; its n innermost user
 * frames named ("symbol", innermost first) and joined by sep into buf.
 * Returns how many frames, 0 when none (buf then ""); *samples: how many
 * StackOf records named that stack there. */
unsigned kr_stackidx_top(struct kr_stackidx *ix, uint64_t tid, uint64_t from_ns,
			 uint64_t to_ns, uint32_t site, unsigned n, const char *sep, char *buf,
			 size_t cap, unsigned *samples);

#endif
