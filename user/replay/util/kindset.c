// SPDX-License-Identifier: GPL-2.0-only
/* Kind sets from and to text (see kindset.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "kindset.h"

static void copy_bad(char *bad, size_t cap, const char *s, size_t n)
{
	if (!cap)
		return;
	if (n >= cap)
		n = cap - 1;
	memcpy(bad, s, n);
	bad[n] = 0;
}

int kr_kindset_parse(const char *list, kr_kindset *out, char *bad, size_t bad_cap)
{
	kr_kindset set = 0;
	const char *p = list;

	if (!*list || !strcasecmp(list, "none")) {
		*out = 0;
		return 0;
	}
	for (;;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *s = p;
		uint32_t k;

		while (n && (*s == ' ' || *s == '\t'))
			s++, n--;
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		for (k = 0; n && k < KATRA_KIND_COUNT; k++) {
			const char *name = katra_kind_name(k);

			if (strlen(name) == n && !strncasecmp(name, s, n))
				break;
		}
		if (!n || k == KATRA_KIND_COUNT) {
			copy_bad(bad, bad_cap, s, n); /* "" for an empty item ("a,,b") */
			return -EINVAL;
		}
		set |= kr_kindset_bit(k);
		if (!end)
			break;
		p = end + 1;
	}
	*out = set;
	return 0;
}

void kr_kindset_format(kr_kindset s, const char *sep, char *buf, size_t cap)
{
	size_t used = 0;
	bool first = true;

	if (!cap)
		return;
	buf[0] = 0;
	for (uint32_t k = 0; k < KATRA_KIND_COUNT; k++) {
		int n;

		if (!kr_kindset_has(s, k))
			continue;
		n = snprintf(buf + used, cap - used, "%s%s", first ? "" : sep, katra_kind_name(k));
		if (n < 0 || (size_t)n >= cap - used)
			return; /* cut: the caller's buffer is too small */
		used += (size_t)n;
		first = false;
	}
	if (first)
		snprintf(buf, cap, "none");
}
