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

/* Writes one field's value: JSON (null, true, "Name", "str") or text (-
 * for None, quoted+escaped strings, bare enum names). */
void kr_payload_field_value(FILE *out, const struct katra_payload *p,
			    const struct kr_field *f, bool json);

#endif
