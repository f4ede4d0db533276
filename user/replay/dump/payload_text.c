// SPDX-License-Identifier: GPL-2.0-only
/* A payload field in the text dump's decoded form: syscall names, errno
 * names, flag words, task states, addresses in hex, pids with their process
 * names.  Raw numbers stay where the decoded form alone would hide them:
 * nr=257(openat), ret=-2(ENOENT), prev_state=0x102(D), pid=1234(tar). */
#include <stdbool.h>

#include "dump_ctx.h"
#include "replay/util/out.h"
#include "replay/names/payload_fields.h"
#include "replay/names/sysflags.h"
#include "replay/names/sysnames.h"

/* mmap, brk, mremap and shmat return an address */
static bool returns_address(const struct katra_event *e)
{
	uint32_t nr = e->payload.u.syscall_return.nr;

	if (e->payload.type != KATRA_PAYLOAD_SYSCALL_RETURN)
		return false;
	return e->kind == KATRA_KIND_MEMORY_MAP || nr == 12 || nr == 25 || nr == 30;
}

void kr_payload_text_value(FILE *f, const struct katra_event *e, const struct kr_field *fd,
			   const struct kr_procnames *names)
{
	const void *v = (const char *)&e->payload + fd->off;
	char buf[KR_SYSNAME_BUF];

	switch (fd->type) {
	case KR_NR: {
		uint32_t nr = *(const uint32_t *)v;

		kr_u64(f, nr);
		fprintf(f, "(%s)", kr_syscall_name(nr, buf));
		break;
	}
	case KR_RET: {
		int64_t r = *(const int64_t *)v;
		const char *en = r < 0 ? kr_errno_name(-r) : NULL;

		if (returns_address(e) && r >= 4096)
			kr_hex(f, (uint64_t)r);
		else
			kr_i64(f, r);
		if (en)
			fprintf(f, "(%s)", en);
		break;
	}
	case KR_DIRFD:
		kr_put_dirfd(f, *(const int32_t *)v);
		break;
	case KR_OPEN_FLAGS:
		kr_put_open_flags(f, *(const uint32_t *)v);
		break;
	case KR_MODE:
		if (*(const uint32_t *)v)
			fprintf(f, "0%o", *(const uint32_t *)v);
		else
			putc('0', f);
		break;
	case KR_PROT:
		kr_put_prot(f, *(const uint32_t *)v);
		break;
	case KR_MMAP_FLAGS:
		kr_put_mmap_flags(f, *(const uint32_t *)v);
		break;
	case KR_RANGE_ARG: {
		uint64_t a = *(const uint64_t *)v;

		if (e->kind == KATRA_KIND_MEMORY_PROTECT)
			kr_put_prot(f, a);
		else if (e->kind == KATRA_KIND_MEMORY_ADVISE)
			kr_put_madvice(f, a);
		else
			kr_u64(f, a);
		break;
	}
	case KR_FUTEX_OP:
		kr_put_futex_op(f, *(const uint32_t *)v);
		break;
	case KR_CLONE_FLAGS:
		kr_put_clone_flags(f, *(const uint64_t *)v);
		break;
	case KR_STATE: {
		uint64_t s = *(const uint64_t *)v;

		kr_hex(f, s);
		/* an OffCpu End (switch-in) carries no state of its own */
		if (e->phase != KATRA_PHASE_END)
			fprintf(f, "(%c)", kr_task_state(s));
		break;
	}
	case KR_FAULT_CODE:
		kr_put_fault_code(f, *(const uint64_t *)v);
		break;
	case KR_PID:
		kr_put_pid(f, names, *(const uint64_t *)v);
		break;
	case KR_REQUEST: {
		/* WinToUnix uses the same payload: its request is a function
		 * index into the table of the library its resource names */
		uint32_t r = *(const uint32_t *)v;
		const char *rn = e->kind == KATRA_KIND_WINE_SERVER_CALL ?
					 kr_procnames_request(names, r) :
				 e->kind == KATRA_KIND_WIN_TO_UNIX ?
					 kr_procnames_unix_call(names, e->process_id,
								e->resource.id, r) : NULL;

		kr_u64(f, r);
		if (rn)
			fprintf(f, "(%s)", rn);
		break;
	}
	default:
		kr_payload_field_value(f, &e->payload, fd, false);
		break;
	}
}
