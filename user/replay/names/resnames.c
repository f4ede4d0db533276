// SPDX-License-Identifier: GPL-2.0-only
/* The resource spelling shared by every command (see resnames.h). */
#include <inttypes.h>

#include "katra/format.h"
#include "replay/util/out.h"
#include "procnames.h"
#include "resnames.h"

int kr_res_is_open_file(uint32_t domain)
{
	return domain == KATRA_RES_FILE || domain == KATRA_RES_PIPE ||
	       domain == KATRA_RES_SOCKET || domain == KATRA_RES_ANON_INODE;
}

int kr_res_id_is_hex(uint32_t domain)
{
	switch (domain) {
	case KATRA_RES_FUTEX:
	case KATRA_RES_MEMORY:
	case KATRA_RES_IO_URING:
	case KATRA_RES_WIN_HANDLE:
	case KATRA_RES_VULKAN_QUEUE:
	case KATRA_RES_D3D12_OBJECT:
		return 1;
	default:
		return 0;
	}
}

/* The kinds /proc/PID/fd and strace -y name by what they are, not by path:
 * "pipe:[" / "socket:[" before the inode number, "]" after; NULL for the
 * rest. */
static const char *kind_prefix(uint32_t domain)
{
	switch (domain) {
	case KATRA_RES_PIPE:
		return "pipe:[";
	case KATRA_RES_SOCKET:
		return "socket:[";
	default:
		return NULL;
	}
}

/* An anon inode's name after "anon_inode:"; "?" for one the format has no
 * name for. */
static const char *anon_name(uint64_t id)
{
	const char *dn = katra_anon_inode_dname(id);

	return dn ? dn : "?";
}

const char *kr_res_label(uint32_t domain, uint64_t id, char *buf, size_t cap)
{
	char nb[KR_NAME_BUF];
	const char *prefix = kind_prefix(domain);

	if (!cap)
		return buf;
	buf[0] = 0;
	if (domain == KATRA_RES_NONE && !id)
		return buf;
	if (prefix)
		snprintf(buf, cap, "%s%" PRIu64 "]", prefix, id);
	else if (domain == KATRA_RES_ANON_INODE)
		snprintf(buf, cap, "anon_inode:%s", anon_name(id));
	else
		snprintf(buf, cap, kr_res_id_is_hex(domain) ? "%s:0x%" PRIx64 : "%s:%" PRIu64,
			 kr_enum(katra_resource_domain_name(domain), domain, nb), id);
	return buf;
}

/* dump writes one per event: no formatting pass */
void kr_res_put(FILE *f, uint32_t domain, uint64_t id)
{
	char nb[KR_NAME_BUF];
	const char *prefix = kind_prefix(domain);

	if (domain == KATRA_RES_NONE && !id)
		return;
	if (prefix) {
		kr_s(f, prefix);
		kr_u64(f, id);
		putc(']', f);
		return;
	}
	if (domain == KATRA_RES_ANON_INODE) {
		kr_s(f, "anon_inode:");
		kr_s(f, anon_name(id));
		return;
	}
	kr_s(f, kr_enum(katra_resource_domain_name(domain), domain, nb));
	putc(':', f);
	if (kr_res_id_is_hex(domain))
		kr_hex(f, id);
	else
		kr_u64(f, id);
}
