/* SPDX-License-Identifier: GPL-2.0-only */
/* What the dump remembers while streaming, so that a line can say more than
 * its record: the process names seen so far (ProcessInfo events) and the
 * Begin time of each open span, for dur_ns on its End.  Bounded: at most
 * KR_MAX_OPEN_SPANS open spans are remembered (an End beyond that has no
 * dur_ns) and KR_MAX_NAMED_PROCESSES names. */
#ifndef KATRA_REPLAY_DUMP_CTX_H
#define KATRA_REPLAY_DUMP_CTX_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "katra/format.h"
#include "replay/util/idmap.h"
#include "replay/names/procnames.h"

struct kr_dump_ctx {
	struct kr_procnames names;
	struct kr_idmap open;  /* (thread_id, span_id) -> v1 Begin ts_mono_ns */
	bool have_dur;         /* the record last seen is an End whose Begin was seen */
	uint64_t dur_ns;
	const char *path;      /* the trace (names read ahead: procnames.h), or NULL */
};

void kr_dump_ctx_init(struct kr_dump_ctx *c);
void kr_dump_ctx_free(struct kr_dump_ctx *c);
/* Updates the context with rec (call for every record, printed or not,
 * before printing it). */
void kr_dump_ctx_see(struct kr_dump_ctx *c, const struct katra_record *rec);

/* The formatters with context (c may be NULL: no names, no dur_ns). */
void kr_text_record(FILE *out, const struct katra_record *rec, const struct kr_dump_ctx *c);
void kr_jsonl_record(FILE *out, const struct katra_record *rec, const struct kr_dump_ctx *c);
/* One payload field in the text dump's decoded form (payload_text.c). */
struct kr_field;
void kr_payload_text_value(FILE *out, const struct katra_event *e, const struct kr_field *f,
			   const struct kr_procnames *names);

#endif
