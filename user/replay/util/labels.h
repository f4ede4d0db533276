/* SPDX-License-Identifier: GPL-2.0-only */
/* A run's labels (katra-record --label KEY=VALUE): the header notes that
 * read "label KEY=VALUE" (format/SPEC.md, Labels), KEY of [a-z0-9_.-],
 * 1..64 bytes, VALUE printable ASCII, 0..160 bytes.  A note that does not
 * match that grammar is free text, not a label. */
#ifndef KATRA_REPLAY_LABELS_H
#define KATRA_REPLAY_LABELS_H

#include <stdbool.h>
#include <stdint.h>

#include "katra/format.h"

#define KR_LABELS_MAX 16
#define KR_LABEL_KEY_MAX 64
#define KR_LABEL_VALUE_MAX 160

struct kr_label {
	char key[KR_LABEL_KEY_MAX + 1];
	char value[KR_LABEL_VALUE_MAX + 1];
};

struct kr_labels {
	struct kr_label l[KR_LABELS_MAX];
	unsigned n;
	unsigned skipped; /* labels beyond KR_LABELS_MAX or a KEY met twice */
};

/* Whether note is a label; if so, its KEY and VALUE (NUL-terminated). */
bool kr_label_parse(const struct katra_str *note, struct kr_label *out);
/* Every label of a header's notes, in their order (the first of a KEY wins). */
void kr_labels_read(const struct katra_header *h, struct kr_labels *out);

#endif
