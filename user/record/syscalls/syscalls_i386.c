// SPDX-License-Identifier: GPL-2.0-only
/* 32-bit (i386 ABI) syscalls of compat tasks: the trace keeps the i386
 * number with KATRA_NR_I386 set (SPEC section 10), and the kinds and
 * payloads come from the x86_64 twin where the arguments mean the same. */
#include <string.h>
#include <sys/syscall.h>

#include "syscalls.h"

/* i386 number -> x86_64 number with the same meaning and argument order,
 * or UINT32_MAX.  (Numbers from the kernel's syscall_32.tbl.) */
static uint32_t twin(uint32_t nr32)
{
	switch (nr32) {
	case 2: return SYS_fork;
	case 3: return SYS_read;
	case 4: return SYS_write;
	case 5: return SYS_open;
	case 6: return SYS_close;
	case 11: return SYS_execve;
	case 91: return SYS_munmap;
	case 120: return SYS_clone;
	case 125: return SYS_mprotect;
	case 145: return SYS_readv;
	case 146: return SYS_writev;
	case 168: return SYS_poll;
	case 180: return SYS_pread64;
	case 181: return SYS_pwrite64;
	case 190: return SYS_vfork;
	case 192: return SYS_mmap; /* mmap2: offset in pages, fixed up below */
	case 219: return SYS_madvise;
	case 240: return SYS_futex;
	case 256: return SYS_epoll_wait;
	case 295: return SYS_openat;
	case 370: return SYS_sendmsg;
	case 372: return SYS_recvmsg;
	case 358: return SYS_execveat;
	case 426: return SYS_io_uring_enter;
	case 435: return SYS_clone3;
	case 437: return SYS_openat2;
	default: return UINT32_MAX;
	}
}

uint32_t katra_syscall_kind_i386(const struct katra_ev_syscall *sc)
{
	uint32_t nr = twin(sc->nr);

	if (nr != UINT32_MAX)
		return katra_syscall_kind(nr);
	if (sc->nr == 102 /* socketcall */ && (sc->args[0] == 16 || sc->args[0] == 17))
		return sc->args[0] == 16 ? KATRA_KIND_SOCKET_SEND : KATRA_KIND_SOCKET_RECV;
	return KATRA_KIND_SYSCALL;
}

void katra_syscall_payload_i386(const struct katra_ev_syscall *sc, struct katra_payload *p)
{
	struct katra_ev_syscall x;
	uint32_t nr = twin(sc->nr);

	if (nr == UINT32_MAX || nr == SYS_clone) {
		/* i386 clone's arguments are not x86_64's order past flags */
		memset(p, 0, sizeof(*p));
		p->type = KATRA_PAYLOAD_SYSCALL;
		p->u.syscall.nr = sc->nr | KATRA_NR_I386;
		if (nr == SYS_clone) {
			p->type = KATRA_PAYLOAD_CLONE;
			p->u.clone.flags = (uint32_t)sc->args[0];
		}
		return;
	}
	memcpy(&x, sc, sizeof(x));
	x.nr = nr;
	x.flags &= ~KATRA_SC_AUX; /* timeouts are 32-bit timespecs: not read */
	switch (sc->nr) {
	case 180: case 181: /* pread64/pwrite64: the offset in two registers */
		x.args[3] = (sc->args[3] & 0xffffffffu) | (sc->args[4] << 32);
		break;
	case 192: /* mmap2: the offset in 4096-byte units */
		x.args[5] = sc->args[5] * 4096u;
		break;
	}
	katra_syscall_payload(&x, p);
	if (p->type == KATRA_PAYLOAD_SYSCALL)
		p->u.syscall.nr = sc->nr | KATRA_NR_I386;
}
