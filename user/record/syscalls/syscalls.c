// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include <sys/syscall.h>

#include "syscalls.h"

/* By number (KATRA_KIND_SYSCALL, 0, for those not listed): a load, not a
 * switch and a call, on every syscall's Begin. */
const uint8_t katra_syscall_kinds[KATRA_SYSCALL_NR_LIMIT] = {
	[SYS_read] = KATRA_KIND_FILE_READ, [SYS_pread64] = KATRA_KIND_FILE_READ,
	[SYS_readv] = KATRA_KIND_FILE_READ, [SYS_preadv] = KATRA_KIND_FILE_READ,
	[SYS_preadv2] = KATRA_KIND_FILE_READ,
	[SYS_write] = KATRA_KIND_FILE_WRITE, [SYS_pwrite64] = KATRA_KIND_FILE_WRITE,
	[SYS_writev] = KATRA_KIND_FILE_WRITE, [SYS_pwritev] = KATRA_KIND_FILE_WRITE,
	[SYS_pwritev2] = KATRA_KIND_FILE_WRITE,
	[SYS_openat] = KATRA_KIND_FILE_OPEN, [SYS_openat2] = KATRA_KIND_FILE_OPEN,
	[SYS_open] = KATRA_KIND_FILE_OPEN,
	[SYS_close] = KATRA_KIND_FILE_CLOSE,
	[SYS_mmap] = KATRA_KIND_MEMORY_MAP,
	[SYS_munmap] = KATRA_KIND_MEMORY_UNMAP,
	[SYS_mprotect] = KATRA_KIND_MEMORY_PROTECT,
	[SYS_madvise] = KATRA_KIND_MEMORY_ADVISE,
	[SYS_futex] = KATRA_KIND_FUTEX,
	[SYS_epoll_wait] = KATRA_KIND_EPOLL_WAIT, [SYS_epoll_pwait] = KATRA_KIND_EPOLL_WAIT,
	[SYS_epoll_pwait2] = KATRA_KIND_EPOLL_WAIT,
	[SYS_poll] = KATRA_KIND_POLL, [SYS_ppoll] = KATRA_KIND_POLL,
	[SYS_nanosleep] = KATRA_KIND_SLEEP, [SYS_clock_nanosleep] = KATRA_KIND_SLEEP,
	[SYS_io_uring_enter] = KATRA_KIND_IO_URING_ENTER,
	[SYS_sendmsg] = KATRA_KIND_SOCKET_SEND,
	[SYS_recvmsg] = KATRA_KIND_SOCKET_RECV,
	[SYS_execve] = KATRA_KIND_EXECVE, [SYS_execveat] = KATRA_KIND_EXECVE,
	[SYS_clone] = KATRA_KIND_CLONE, [SYS_clone3] = KATRA_KIND_CLONE,
	[SYS_fork] = KATRA_KIND_CLONE, [SYS_vfork] = KATRA_KIND_CLONE,
};
_Static_assert(KATRA_KIND_SYSCALL == 0, "unlisted numbers read as KATRA_KIND_SYSCALL");
_Static_assert(KATRA_KIND_COUNT <= 256, "a kind fits the table's bytes");

uint64_t katra_syscall_anon_inode(const struct katra_ev_syscall *sc)
{
	char name[16];

	memcpy(name, &sc->dev, 8);
	memcpy(name + 8, &sc->ino, 8);
	return katra_anon_inode_of(name, sizeof(name));
}

static struct katra_opt_u64 some(uint64_t v)
{
	return (struct katra_opt_u64){ true, v };
}

static struct katra_opt_u64 timeout_aux(const struct katra_ev_syscall *sc)
{
	return (sc->flags & KATRA_SC_AUX) ? some(sc->aux) : (struct katra_opt_u64){ false, 0 };
}

/* poll/epoll timeouts are milliseconds, negative = forever */
static struct katra_opt_u64 timeout_ms(uint64_t arg)
{
	int32_t ms = (int32_t)arg;

	return ms >= 0 ? some((uint64_t)ms * 1000000ull) : (struct katra_opt_u64){ false, 0 };
}

void katra_syscall_payload(const struct katra_ev_syscall *sc, struct katra_payload *p)
{
	memset(p, 0, sizeof(*p));
	katra_syscall_payload_cleared(sc, p);
}

void katra_syscall_payload_cleared(const struct katra_ev_syscall *sc, struct katra_payload *p)
{
	const __u64 *a = sc->args;

	switch (sc->nr) {
	case SYS_read: case SYS_write:
		p->type = KATRA_PAYLOAD_FILE_IO;
		p->u.file_io.fd = (int32_t)a[0];
		p->u.file_io.count = a[2];
		break;
	case SYS_pread64: case SYS_pwrite64:
		p->type = KATRA_PAYLOAD_FILE_IO;
		p->u.file_io.fd = (int32_t)a[0];
		p->u.file_io.count = a[2];
		p->u.file_io.offset = some(a[3]);
		break;
	case SYS_readv: case SYS_writev:
		p->type = KATRA_PAYLOAD_FILE_IO;
		p->u.file_io.fd = (int32_t)a[0];
		p->u.file_io.iov_count = (uint32_t)a[2];
		break;
	case SYS_preadv: case SYS_pwritev: case SYS_preadv2: case SYS_pwritev2:
		p->type = KATRA_PAYLOAD_FILE_IO;
		p->u.file_io.fd = (int32_t)a[0];
		p->u.file_io.iov_count = (uint32_t)a[2];
		p->u.file_io.offset = some(a[3]);
		break;
	case SYS_openat:
		p->type = KATRA_PAYLOAD_FILE_OPEN;
		p->u.file_open.dirfd = (int32_t)a[0];
		p->u.file_open.flags = (uint32_t)a[2];
		p->u.file_open.mode = (uint32_t)a[3];
		break;
	case SYS_open:
		p->type = KATRA_PAYLOAD_FILE_OPEN;
		p->u.file_open.dirfd = -100; /* AT_FDCWD */
		p->u.file_open.flags = (uint32_t)a[1];
		p->u.file_open.mode = (uint32_t)a[2];
		break;
	case SYS_openat2: /* flags and mode live in struct open_how (not read) */
		p->type = KATRA_PAYLOAD_FILE_OPEN;
		p->u.file_open.dirfd = (int32_t)a[0];
		break;
	case SYS_close:
		p->type = KATRA_PAYLOAD_FILE_CLOSE;
		p->u.file_close.fd = (int32_t)a[0];
		break;
	case SYS_mmap:
		p->type = KATRA_PAYLOAD_MEMORY_MAP;
		p->u.memory_map.addr = a[0];
		p->u.memory_map.len = a[1];
		p->u.memory_map.prot = (uint32_t)a[2];
		p->u.memory_map.flags = (uint32_t)a[3];
		p->u.memory_map.fd = (int32_t)a[4];
		p->u.memory_map.offset = a[5];
		break;
	case SYS_munmap: case SYS_mprotect: case SYS_madvise:
		p->type = KATRA_PAYLOAD_MEMORY_RANGE;
		p->u.memory_range.addr = a[0];
		p->u.memory_range.len = a[1];
		p->u.memory_range.arg = sc->nr == SYS_munmap ? 0 : a[2];
		break;
	case SYS_futex:
		p->type = KATRA_PAYLOAD_FUTEX;
		p->u.futex.uaddr = a[0];
		p->u.futex.op = (uint32_t)a[1];
		p->u.futex.val = (uint32_t)a[2];
		break;
	case SYS_epoll_wait: case SYS_epoll_pwait:
		p->type = KATRA_PAYLOAD_WAIT;
		p->u.wait.handle = (int32_t)a[0];
		p->u.wait.count = (uint32_t)a[2];
		p->u.wait.timeout_ns = timeout_ms(a[3]);
		break;
	case SYS_epoll_pwait2:
		p->type = KATRA_PAYLOAD_WAIT;
		p->u.wait.handle = (int32_t)a[0];
		p->u.wait.count = (uint32_t)a[2];
		p->u.wait.timeout_ns = timeout_aux(sc);
		break;
	case SYS_poll:
		p->type = KATRA_PAYLOAD_WAIT;
		p->u.wait.handle = -1;
		p->u.wait.count = (uint32_t)a[1];
		p->u.wait.timeout_ns = timeout_ms(a[2]);
		break;
	case SYS_ppoll:
		p->type = KATRA_PAYLOAD_WAIT;
		p->u.wait.handle = -1;
		p->u.wait.count = (uint32_t)a[1];
		p->u.wait.timeout_ns = timeout_aux(sc);
		break;
	case SYS_nanosleep:
		p->type = KATRA_PAYLOAD_WAIT;
		p->u.wait.handle = -1;
		p->u.wait.timeout_ns = timeout_aux(sc);
		break;
	case SYS_clock_nanosleep: /* handle = clock id, count = flags (TIMER_ABSTIME) */
		p->type = KATRA_PAYLOAD_WAIT;
		p->u.wait.handle = (int32_t)a[0];
		p->u.wait.count = (uint32_t)a[1];
		p->u.wait.timeout_ns = timeout_aux(sc);
		break;
	case SYS_io_uring_enter:
		p->type = KATRA_PAYLOAD_IO_URING_ENTER;
		p->u.io_uring_enter.fd = (int32_t)a[0];
		p->u.io_uring_enter.to_submit = (uint32_t)a[1];
		p->u.io_uring_enter.min_complete = (uint32_t)a[2];
		p->u.io_uring_enter.flags = (uint32_t)a[3];
		break;
	case SYS_sendmsg: case SYS_recvmsg:
		p->type = KATRA_PAYLOAD_SOCKET_MSG;
		p->u.socket_msg.fd = (int32_t)a[0];
		p->u.socket_msg.flags = (uint32_t)a[2];
		break;
	case SYS_execve: case SYS_execveat:
		p->type = KATRA_PAYLOAD_EXECVE;
		break;
	case SYS_clone:
		p->type = KATRA_PAYLOAD_CLONE;
		p->u.clone.flags = a[0];
		break;
	case SYS_clone3:
		p->type = KATRA_PAYLOAD_CLONE;
		p->u.clone.flags = (sc->flags & KATRA_SC_AUX) ? sc->aux : 0;
		break;
	case SYS_fork:
		p->type = KATRA_PAYLOAD_CLONE;
		p->u.clone.flags = 17; /* SIGCHLD, what fork() means */
		break;
	case SYS_vfork:
		p->type = KATRA_PAYLOAD_CLONE;
		p->u.clone.flags = 0x4000 | 0x100 | 17; /* CLONE_VFORK | CLONE_VM | SIGCHLD */
		break;
	default:
		p->type = KATRA_PAYLOAD_SYSCALL;
		p->u.syscall.nr = sc->nr;
		break;
	}
}

bool katra_syscall_has_args(uint32_t nr)
{
	struct katra_ev_syscall sc = { .nr = nr };
	struct katra_payload p;

	katra_syscall_payload(&sc, &p);
	return p.type != KATRA_PAYLOAD_SYSCALL;
}

bool katra_syscall_four_args(uint32_t nr)
{
	/* the payload decoded with the fifth and sixth arguments zero and set
	 * differs exactly where the decoder reads them */
	struct katra_ev_syscall zero = { .nr = nr }, set = { .nr = nr };
	struct katra_payload a, b;

	set.args[4] = set.args[5] = ~0ull;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	katra_syscall_payload_cleared(&zero, &a);
	katra_syscall_payload_cleared(&set, &b);
	return !memcmp(&a, &b, sizeof(a));
}

void katra_syscall_record_bitmaps(uint64_t *decoded, uint64_t *mid)
{
	for (uint32_t nr = 0; nr < KATRA_SYSCALL_NR_LIMIT; nr++)
		if (katra_syscall_has_args(nr)) {
			decoded[nr / 64] |= 1ull << (nr % 64);
			if (katra_syscall_four_args(nr))
				mid[nr / 64] |= 1ull << (nr % 64);
		}
}
