// SPDX-License-Identifier: GPL-2.0-only
/* Labels out of a header's notes (labels.h). */
#include <string.h>

#include "labels.h"

bool kr_label_parse(const struct katra_str *note, struct kr_label *out)
{
	static const char prefix[] = "label ";
	const char *p = note->ptr, *eq;
	uint64_t len = note->len, klen, vlen;

	if (len < sizeof(prefix) - 1 || memcmp(p, prefix, sizeof(prefix) - 1))
		return false;
	p += sizeof(prefix) - 1;
	len -= sizeof(prefix) - 1;
	eq = memchr(p, '=', len);
	if (!eq)
		return false;
	klen = (uint64_t)(eq - p);
	vlen = len - klen - 1;
	if (!klen || klen > KR_LABEL_KEY_MAX || vlen > KR_LABEL_VALUE_MAX)
		return false;
	for (uint64_t i = 0; i < klen; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_' ||
		      p[i] == '.' || p[i] == '-'))
			return false;
	for (uint64_t i = 0; i < vlen; i++)
		if (eq[1 + i] < 0x20 || eq[1 + i] > 0x7e)
			return false;
	memcpy(out->key, p, klen);
	out->key[klen] = 0;
	memcpy(out->value, eq + 1, vlen);
	out->value[vlen] = 0;
	return true;
}

void kr_labels_read(const struct katra_header *h, struct kr_labels *out)
{
	struct kr_label l;

	memset(out, 0, sizeof(*out));
	for (uint64_t i = 0; i < h->notes.len; i++) {
		bool dup = false;

		if (!kr_label_parse(&h->notes.items[i], &l))
			continue;
		for (unsigned j = 0; j < out->n && !dup; j++)
			dup = !strcmp(out->l[j].key, l.key);
		if (dup || out->n == KR_LABELS_MAX) {
			out->skipped++;
			continue;
		}
		out->l[out->n++] = l;
	}
}
