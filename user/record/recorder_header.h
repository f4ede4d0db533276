/* SPDX-License-Identifier: GPL-2.0-only */
/* The trace header of a capture: capture options, host, and the notes that
 * say what the probes could and could not see.  The strings point into the
 * header_store, which lives as long as the header. */
#ifndef KATRA_RECORD_RECORDER_HEADER_H
#define KATRA_RECORD_RECORDER_HEADER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/utsname.h>

#include "katra/format.h"
#include "record/kernel/probes.h"
#include "recorder.h"
#include "record/targets/session.h"
#include "record/uprobes/uprobes.h"

struct header_store {
	/* how the processes traced from the start were found (session.h) */
	struct katra_wine_names *wine;
	const uint32_t *kids;
	const size_t *nkids;
	struct utsname uts;
	char hostname[256];
	char workload[64];
	uint64_t pids[KATRA_MAX_TARGETS];
	struct katra_str notes[64];
	char note_buf[64][KATRA_NOTE_MAX];
};

void katra_record_build_header(struct katra_header *h, struct header_store *hs,
			       const struct katra_record_opts *o, struct katra_probes *p,
			       const struct katra_uprobes *up, const uint32_t *pids, size_t npids,
			       uint64_t start_mono, uint64_t start_wall);

#endif
