// SPDX-License-Identifier: GPL-2.0-only
/* A process joins a traced Wine session when it connects to the session's
 * wineserver: the return of a connect() whose unix socket now has a peer
 * bound to one of join_socks (the wineserver's DIR/socket, by the kernel's
 * device number and inode, set by user space).  It is tracked from there,
 * before its first wineserver request, and what it forks is followed as any
 * tracked process's children; the record says so to user space (a fork
 * record with KATRA_FORK_JOINED, the process's own ids).
 *
 * A new Wine process that a member creates gets its wineserver connection
 * from its parent (no connect): it is followed by fork. */
#include "common.bpf.h"

#define KATRA_JOIN_MAX 8
#define S_IFMT___katra 0170000
#define S_IFSOCK___katra 0140000
#define AF_UNIX___katra 1

/* Set by user space through the mmap'ed .bss: pairs (device as the kernel
 * keeps it, MAJOR << 20 | MINOR; inode), join_nsocks of them. */
__u64 join_socks[KATRA_JOIN_MAX * 2];
__u32 join_nsocks;

/* The unix socket open as fd in the current process, or NULL. */
static __always_inline struct sock *unix_sock_of_fd(__u64 fd)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds, *f = NULL;
	struct socket *sock;
	struct sock *sk;

	if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]) || !f)
		return NULL;
	if ((BPF_CORE_READ(f, f_inode, i_mode) & S_IFMT___katra) != S_IFSOCK___katra)
		return NULL;
	sock = BPF_CORE_READ(f, private_data);
	sk = sock ? BPF_CORE_READ(sock, sk) : NULL;
	if (!sk || BPF_CORE_READ(sk, __sk_common.skc_family) != AF_UNIX___katra)
		return NULL;
	return sk;
}

static __always_inline bool is_join_sock(__u64 dev, __u64 ino)
{
	__u32 n = join_nsocks;

	for (__u32 i = 0; i < KATRA_JOIN_MAX; i++) {
		if (i >= n)
			break;
		if (join_socks[2 * i] == dev && join_socks[2 * i + 1] == ino)
			return true;
	}
	return false;
}

SEC("tp/syscalls/sys_exit_connect")
int tp_sys_exit_connect(struct trace_event_raw_sys_exit *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), fd = 0, dev, ino;
	__u32 tgid = pid_tgid >> 32, cpu;
	struct katra_ev_fork *e;
	struct unix_sock *peer;
	struct dentry *d;
	struct sock *sk;
	__u64 ts;
	void *rb;

	if (!join_nsocks || ctx->ret != 0 || katra_tracked(tgid))
		return 0;
	/* the fd: connect's first argument, still in the saved user registers */
	if (bpf_probe_read_kernel(&fd, sizeof(fd),
				  (void *)(katra_user_regs(katra_current_stack()) +
					   bpf_core_field_offset(struct pt_regs, di))))
		return 0;
	sk = unix_sock_of_fd(fd);
	if (!sk)
		return 0;
	/* a stream connect's peer is the server's new socket, which holds the
	 * listener's path (af_unix.c: unix_stream_connect) */
	peer = (struct unix_sock *)BPF_CORE_READ((struct unix_sock *)sk, peer);
	d = peer ? BPF_CORE_READ(peer, path.dentry) : NULL;
	if (!d)
		return 0;
	dev = BPF_CORE_READ(d, d_sb, s_dev);
	ino = BPF_CORE_READ(d, d_inode, i_ino);
	if (!is_join_sock(dev, ino))
		return 0;
	/* before the record: the process's next event is tracked */
	katra_set_tracked(tgid, true);
	cpu = katra_busy();
	ts = bpf_ktime_get_ns();
	e = katra_reserve(&rb, cpu, sizeof(*e), 1);
	if (e) {
		katra_head(&e->head, KATRA_EV_FORK, cpu, pid_tgid, ts);
		e->child_tgid = tgid;
		e->child_tid = (__u32)pid_tgid;
		e->flags = KATRA_FORK_JOINED | KATRA_FORK_TRACKED;
		e->pad = 0;
		bpf_get_current_comm(e->comm, sizeof(e->comm));
		katra_submit(rb, e, cpu);
	}
	katra_idle(cpu);
	return 0;
}
