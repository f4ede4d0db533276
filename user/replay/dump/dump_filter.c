// SPDX-License-Identifier: GPL-2.0-only
/* dump's filter options (see dump_filter.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dump_filter.h"

int kr_parse_id_list(const char *s, uint64_t *v, unsigned *n)
{
	const char *p = s;

	for (;;) {
		char *end;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		if (*n >= KATRA_DUMP_MAX_IDS)
			return -E2BIG;
		errno = 0;
		v[*n] = strtoull(p, &end, 10);
		if (errno)
			return -EINVAL;
		(*n)++;
		if (!*end)
			return 0;
		if (*end != ',')
			return -EINVAL;
		p = end + 1;
	}
}

/* A name may be both an EventKind and a record variant (Counter): it
 * selects both. */
static int one_kind(const char *w, size_t len, uint64_t *kinds, unsigned *records)
{
	static const uint32_t rec_types[] = { KATRA_RECORD_EPOCH_MARKER, KATRA_RECORD_COUNTER,
					      KATRA_RECORD_SESSION_SUMMARY };
	bool found = false;

	for (uint32_t k = 0; k < KATRA_KIND_COUNT; k++) {
		const char *n = katra_kind_name(k);

		if (n && strlen(n) == len && !strncasecmp(n, w, len)) {
			*kinds |= 1ull << k;
			found = true;
		}
	}
	for (unsigned i = 0; i < sizeof(rec_types) / sizeof(rec_types[0]); i++) {
		const char *n = katra_record_type_name(rec_types[i]);

		if (n && strlen(n) == len && !strncasecmp(n, w, len)) {
			*records |= 1u << rec_types[i];
			found = true;
		}
	}
	return found ? 0 : -EINVAL;
}

int kr_parse_kinds(const char *s, uint64_t *kinds, unsigned *records)
{
	for (const char *p = s;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (!len || one_kind(p, len, kinds, records))
			return -EINVAL;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int kr_parse_when(const char *s, struct katra_dump_when *w)
{
	uint64_t sec = 0, frac = 0;
	unsigned digits = 0;
	const char *p = s;

	w->set = true;
	w->epoch = NULL;
	w->ns = 0;
	if (!*s)
		return -EINVAL;
	while (*p >= '0' && *p <= '9' && sec < 1000000000ull)
		sec = sec * 10 + (uint64_t)(*p++ - '0');
	if (p == s && *p != '.')
		goto name;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9' && digits < 9) {
			frac = frac * 10 + (uint64_t)(*p++ - '0');
			digits++;
		}
		if (p == s + 1)
			goto name; /* "." alone */
	}
	if (*p == 's')
		p++;
	if (*p)
		goto name;
	while (digits++ < 9)
		frac *= 10;
	w->ns = sec * 1000000000ull + frac;
	return 0;
name:
	w->epoch = s;
	return 0;
}
