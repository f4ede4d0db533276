/* SPDX-License-Identifier: GPL-2.0-only */
/* The capture's host side: who -- COMMAND runs as and who owns the trace
 * under sudo, and how much memory the recorder holds. */
#ifndef KATRA_RECORD_HOST_H
#define KATRA_RECORD_HOST_H

#include <stdint.h>

#include "recorder.h"
#include "record/targets/targets.h"

/* -u USER, else under sudo the invoking user, else as we are: *as filled
 * (as->set false: no change).  0 or -EINVAL (no such user, said on stderr). */
int katra_resolve_run_as(const struct katra_record_opts *o, struct katra_run_as *as);
/* Under sudo the invoking user owns the trace (still mode 0600). */
void katra_give_to_sudo_user(int fd, const char *path);
/* The recorder's peak RSS and what of it the BPF maps' mappings hold now. */
void katra_memory_use(uint64_t *peak_kib, uint64_t *ring_kib);
/* This process's CPU time so far, user + sys, in ns. */
uint64_t katra_cpu_ns(void);

#endif
