/* SPDX-License-Identifier: GPL-2.0-only */
/* One table describing every payload's fields (name, type, place in the C
 * union), so the text dump and the JSON lines cannot disagree about them.
 * Field names are exactly the spec's (format/schema.txt). */
#ifndef KATRA_REPLAY_PAYLOAD_FIELDS_H
#define KATRA_REPLAY_PAYLOAD_FIELDS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "katra/format.h"

enum kr_ftype {
	KR_U32,
	KR_I32,
	KR_U64,
	KR_I64,
	KR_BOOL,
	KR_OPT_U32,
	KR_OPT_I32,
	KR_OPT_U64,
	KR_OPT_STR,
	KR_DROP_SOURCE, /* u32 holding enum katra_drop_source */
	KR_STR,
	KR_ORIGIN,      /* u32 holding enum katra_process_origin */
	KR_WAKER_CONTEXT, /* u32 holding enum katra_waker_context */
	KR_STR_VEC,     /* struct katra_str_vec: a JSON array of strings (text: the same) */
	/* the same scalars with a meaning the text dump decodes (payload_text.c);
	 * kr_payload_field_value writes them as their plain type */
	KR_ADDR,        /* u64 address, pointer or handle: JSON decimal string, text hex */
	KR_NR,          /* u32 syscall number (bit 31: i386) */
	KR_RET,         /* i64 syscall return, -errno on failure */
	KR_DIRFD,       /* i32, -100 = AT_FDCWD */
	KR_OPEN_FLAGS,  /* u32 O_* */
	KR_MODE,        /* u32 file mode (octal in text) */
	KR_PROT,        /* u32 PROT_* */
	KR_MMAP_FLAGS,  /* u32 MAP_* */
	KR_RANGE_ARG,   /* u64 MemoryRange.arg: prot (mprotect) or advice (madvise) */
	KR_FUTEX_OP,    /* u32 FUTEX_* */
	KR_CLONE_FLAGS, /* u64 CLONE_* | exit signal */
	KR_STATE,       /* u64 raw task state */
	KR_FAULT_CODE,  /* u64 x86 page-fault error code */
	KR_PID,         /* u64 process id */
	KR_REQUEST,     /* u32 WineServerCall.request: the wineserver request (its name
			 * from the trace's WineServerRequests table, in text) */
};

struct kr_field {
	const char *name;
	uint8_t type;   /* enum kr_ftype */
	uint16_t off;   /* offset in struct katra_payload */
};

struct kr_payload_desc {
	const struct kr_field *fields;
	unsigned count;
};

/* NULL when type is out of range. */
const struct kr_payload_desc *kr_payload_desc(uint32_t type);

/* Writes one field's value: JSON (null, true, "Name", "str"; a KR_ADDR as a
 * decimal string, exact for jq) or text (- for None, quoted+escaped strings,
 * bare enum names, a KR_ADDR in hex). */
void kr_payload_field_value(FILE *out, const struct katra_payload *p,
			    const struct kr_field *f, bool json);

#endif
