// SPDX-License-Identifier: GPL-2.0-only
/* The resource spelling shared by every command (see resnames.h). */
#include <inttypes.h>

#include "katra/format.h"
#include "replay/util/out.h"
#include "procnames.h"
#include "resnames.h"

int kr_res_id_is_hex(uint32_t domain)
{
	switch (domain) {
	case KATRA_RES_FUTEX:
	case KATRA_RES_MEMORY:
	case KATRA_RES_IO_URING:
	case KATRA_RES_WIN_HANDLE:
	case KATRA_RES_VULKAN_QUEUE:
		return 1;
	default:
		return 0;
	}
}

const char *kr_res_label(uint32_t domain, uint64_t id, char *buf, size_t cap)
{
	char nb[KR_NAME_BUF];

	if (!cap)
		return buf;
	buf[0] = 0;
	if (domain == KATRA_RES_NONE && !id)
		return buf;
	snprintf(buf, cap, kr_res_id_is_hex(domain) ? "%s:0x%" PRIx64 : "%s:%" PRIu64,
		 kr_enum(katra_resource_domain_name(domain), domain, nb), id);
	return buf;
}

/* dump writes one per event: no formatting pass */
void kr_res_put(FILE *f, uint32_t domain, uint64_t id)
{
	char nb[KR_NAME_BUF];

	if (domain == KATRA_RES_NONE && !id)
		return;
	kr_s(f, kr_enum(katra_resource_domain_name(domain), domain, nb));
	putc(':', f);
	if (kr_res_id_is_hex(domain))
		kr_hex(f, id);
	else
		kr_u64(f, id);
}
