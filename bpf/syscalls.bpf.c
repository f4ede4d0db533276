// SPDX-License-Identifier: GPL-2.0-only
/* raw_syscalls sys_enter / sys_exit for every syscall of tracked threads.
 * The enter is kept in its CPU's slot and one combined record is written at the
 * exit (see KATRA_EV_SYSCALL in wire.h); sched.bpf.c flushes a pending enter
 * when its thread leaves the CPU. */
#include "common.bpf.h"
#include "stacks.bpf.h"

/* x86_64 syscall numbers the probes decode further. */
#define NR_read            0
#define NR_write           1
#define NR_close           3
#define NR_mmap            9
#define NR_pread64         17
#define NR_pwrite64        18
#define NR_readv           19
#define NR_writev          20
#define NR_nanosleep       35
#define NR_sendmsg         46
#define NR_recvmsg         47
#define NR_execve          59
#define NR_execveat        322
#define NR_clock_nanosleep 230
#define NR_openat          257
#define NR_ppoll           271
#define NR_preadv          295
#define NR_pwritev         296
#define NR_clone3          435
#define NR_openat2         437
/* The trampolines of uretprobes (Linux 6.11) and optimized uprobes (6.17)
 * enter the kernel through these: katra's own Wine and Vulkan probes (or
 * another tracer's), not the program's work.  Not recorded. */
#define NR_uretprobe       335
#define NR_uprobe          336

#define MAP_ANONYMOUS_ 0x20

struct timespec64_ {
	__s64 sec;
	__s64 nsec;
};

/* The superblocks whose files /proc/PID/fd (and strace -y) name by kind,
 * not by path: <uapi/linux/magic.h>. */
#define PIPEFS_MAGIC_        0x50495045
#define SOCKFS_MAGIC_        0x534F434B
#define ANON_INODE_FS_MAGIC_ 0x09041934
#define PID_FS_MAGIC_        0x50494446 /* pidfds since 6.9, still "anon_inode:[pidfd]" */

/* What a file is, from its superblock's magic (read beside s_dev: no helper
 * call on the BTF path).  An anon inode's dentry name ("[eventfd]") goes
 * into dev/ino (16 bytes, NUL-padded): the one inode is shared by every
 * such file, so its dev/ino say nothing.  Copying the name is the one
 * helper call, made only for anon inodes.  bf: the file as a BTF pointer
 * (have_rdonly_cast), else NULL.  See KATRA_SC_PIPE in wire.h. */
static __always_inline __u32 file_class(unsigned long magic, struct file *f, struct file *bf,
					__u64 *dev, __u64 *ino)
{
	const unsigned char *name;
	__u64 nm[2] = { 0, 0 };

	switch (magic) {
	case PIPEFS_MAGIC_:
		return KATRA_SC_FILE | KATRA_SC_PIPE;
	case SOCKFS_MAGIC_:
		return KATRA_SC_FILE | KATRA_SC_SOCKET;
	case PID_FS_MAGIC_:
		*dev = 0x5d64666469705bull; /* "[pidfd]" */
		*ino = 0;
		return KATRA_SC_FILE | KATRA_SC_ANON;
	case ANON_INODE_FS_MAGIC_:
		if (bf) {
			struct dentry *d = bf->f_path.dentry;

			name = d ? d->d_name.name : NULL;
		} else {
			name = BPF_CORE_READ(f, f_path.dentry, d_name.name);
		}
		if (name) /* _str: the bytes after the NUL are a longer name's */
			bpf_probe_read_kernel_str(nm, sizeof(nm), name);
		*dev = nm[0];
		*ino = nm[1];
		return KATRA_SC_FILE | KATRA_SC_ANON;
	default:
		return KATRA_SC_FILE;
	}
}

/* dev/ino of the current task's open file `fd` and what it is (KATRA_SC_FILE
 * and a class flag); 0 if there is none.  cur: the current task as a BTF
 * pointer the caller has already (no helper call for it), else NULL. */
static __always_inline __u32 fd_identity(__s64 fd, __u64 *dev, __u64 *ino, struct task_struct *cur)
{
	struct fdtable *fdt;
	struct file **fda;
	struct file *f = NULL;
	struct inode *inode;
	struct super_block *sb;
	unsigned int max_fds;

	if (fd < 0)
		return 0;
	if (have_rdonly_cast) {
		/* an untrusted BTF pointer: the same inline loads, but the verifier
		 * does not ask whether the task's files are trusted (four searches
		 * of the kernel's BTF by name, each time it visits the load) */
		struct task_struct *task = bpf_rdonly_cast(cur ? (void *)cur : (void *)bpf_get_current_task(),
							   bpf_core_type_id_kernel(struct task_struct));
		fdt = task->files->fdt;
		if (!fdt)
			return 0;
		max_fds = fdt->max_fds;
		fda = fdt->fd;
	} else if (have_task_btf) {
		/* trusted task: plain CO-RE loads, no helper calls, for the first hops */
		struct task_struct *task = bpf_get_current_task_btf();
		fdt = task->files->fdt;
		if (!fdt)
			return 0;
		max_fds = fdt->max_fds;
		fda = fdt->fd;
	} else {
		struct task_struct *task = (struct task_struct *)bpf_get_current_task();
		fdt = BPF_CORE_READ(task, files, fdt);
		if (!fdt)
			return 0;
		max_fds = BPF_CORE_READ(fdt, max_fds);
		fda = BPF_CORE_READ(fdt, fd);
	}
	if ((__u64)fd >= max_fds)
		return 0;
	if (have_rdonly_cast) {
		/* the fd's slot and the file as BTF pointers: every hop is an
		 * inline load (a fault reads 0), not a helper call each; the
		 * slot is read as the first field of a struct kiocb (ki_filp,
		 * a struct file *, first since kiocb exists): a helper call
		 * for it was a third of the enter's cost on a pread loop */
		struct kiocb *slot = bpf_rdonly_cast((void *)fda + (__u64)fd * sizeof(f),
						     bpf_core_type_id_kernel(struct kiocb));
		struct file *bf = slot->ki_filp;

		if (!bf)
			return 0;
		f = bf;
		inode = bf->f_inode;
		if (!inode)
			return 0;
		*ino = inode->i_ino;
		sb = inode->i_sb;
		*dev = sb->s_dev;
		return file_class(sb->s_magic, f, bf, dev, ino);
	}
	if (bpf_probe_read_kernel(&f, sizeof(f), &fda[fd]) || !f)
		return 0;
	inode = BPF_CORE_READ(f, f_inode);
	if (!inode)
		return 0;
	*ino = BPF_CORE_READ(inode, i_ino);
	sb = BPF_CORE_READ(inode, i_sb);
	*dev = BPF_CORE_READ(sb, s_dev);
	return file_class(BPF_CORE_READ(sb, s_magic), f, NULL, dev, ino);
}

static __always_inline bool read_timeout_ns(__u64 uptr, __u64 *ns)
{
	struct timespec64_ t;

	if (!uptr || bpf_probe_read_user(&t, sizeof(t), (void *)uptr))
		return false;
	*ns = (__u64)t.sec * 1000000000ull + (__u64)t.nsec;
	return true;
}

static __always_inline void emit_path(__u64 pid_tgid, __u32 cpu, __u64 ts, __u32 nr, __u64 uptr)
{
	struct katra_ev_path *e;
	void *rb;
	long n;

	e = katra_reserve(&rb, cpu, sizeof(*e), 1);
	if (!e)
		return;
	katra_head(&e->head, KATRA_EV_PATH, cpu, pid_tgid, ts);
	e->enter_ts = ts;
	e->nr = nr;
	e->pad = 0;
	n = bpf_probe_read_user_str(e->path, sizeof(e->path), (void *)uptr);
	if (n <= 0) {
		e->path[0] = 0;
		n = 1;
	}
	e->len = n - 1;
	e->flags = n >= KATRA_PATH_MAX ? KATRA_PATH_TRUNCATED : 0;
	katra_submit(rb, e, cpu);
}

/* i386 numbers whose arguments are laid out as their x86_64 twins' (the
 * same registers in the i386 order): decoded as those. */
#define NR32_read     3
#define NR32_write    4
#define NR32_close    6
#define NR32_readv    145
#define NR32_writev   146
#define NR32_pread64  180
#define NR32_pwrite64 181
#define TS_COMPAT_    0x0002 /* thread_info.status: in a 32-bit syscall */

static __always_inline __u32 as_x86_64(__u32 nr32)
{
	switch (nr32) {
	case NR32_read: return NR_read;
	case NR32_write: return NR_write;
	case NR32_close: return NR_close;
	case NR32_readv: return NR_readv;
	case NR32_writev: return NR_writev;
	case NR32_pread64: return NR_pread64;
	case NR32_pwrite64: return NR_pwrite64;
	default: return (__u32)-1;
	}
}

/* Decode what the exit will not be able to see any more: the fd's file (it
 * may be closed by then), user-memory arguments. */
static __always_inline void decode_enter(struct katra_cpu_slot *p, struct task_struct *cur)
{
	__u64 fd = (__u64)-1;
	__u32 nr = p->sc_flags & KATRA_SC_I386 ? as_x86_64(p->nr) : p->nr;

	switch (nr) {
	case NR_read: case NR_write: case NR_close: case NR_pread64: case NR_pwrite64:
	case NR_readv: case NR_writev: case NR_preadv: case NR_pwritev:
	case NR_sendmsg: case NR_recvmsg:
		fd = (__u32)p->args[0];
		break;
	case NR_mmap:
		if (!(p->args[3] & MAP_ANONYMOUS_))
			fd = p->args[4];
		break;
	case NR_clone3:
		if (!bpf_probe_read_user(&p->aux, sizeof(p->aux), (void *)p->args[0]))
			p->sc_flags |= KATRA_SC_AUX;
		return;
	case NR_nanosleep:
		if (read_timeout_ns(p->args[0], &p->aux))
			p->sc_flags |= KATRA_SC_AUX;
		return;
	case NR_clock_nanosleep: case NR_ppoll:
		if (read_timeout_ns(p->args[2], &p->aux))
			p->sc_flags |= KATRA_SC_AUX;
		return;
	default:
		return;
	}
	p->sc_flags |= fd_identity((__s32)fd, &p->dev, &p->ino, cur);
	if (nr == NR_recvmsg && !(p->sc_flags & KATRA_SC_I386)) {
		/* the first iovec's base: where the data lands (what completes
		 * a pending NtReadFile on a socket under Wine, emit_wine.c) */
		__u64 iov = 0;

		if (!bpf_probe_read_user(&iov, sizeof(iov), (void *)(p->args[1] + 16)) && iov &&
		    !bpf_probe_read_user(&p->aux, sizeof(p->aux), (void *)iov))
			p->sc_flags |= KATRA_SC_AUX;
	}
}

static __always_inline bool in_compat_syscall(void);

/* At the exit of the io_uring_enter that entered at enter_ts: its place,
 * when its batch is still the one being staged (the caller owns the CPU),
 * the batch then counting its two events; else NULL (it is written as any
 * other, the place left a hole). */
static __always_inline struct katra_ev_syscall_mid *placed(__u32 cpu, __u64 enter_ts)
{
	struct katra_ev_batch *b = STAGE_OF(cpu);
	__u64 *w = PLACE_OF(cpu), off = w[0];

	w[0] = 0;
	if (!off || w[1] != STAGE_GEN(cpu) || w[2] != enter_ts)
		return NULL;
	b->events += 2;
	return (void *)((__u8 *)b + sizeof(*b) + katra_bound(off - 1, KATRA_STAGE_BYTES - 1));
}

/* Whether -e selected syscall nr (x86_64 numbering; 32-bit calls always). */
static __always_inline bool selected(__u32 nr)
{
	if (select_all)
		return true;
	if (nr < KATRA_NR_LIMIT &&
	    (selected_nrs[katra_bound(nr >> 6, 7)] & (1ull << (nr & 63))))
		return true;
	return in_compat_syscall();
}

static __always_inline bool in_compat_syscall(void)
{
	if (have_task_btf)
		return bpf_get_current_task_btf()->thread_info.status & TS_COMPAT_;
	return BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), thread_info.status) &
	       TS_COMPAT_;
}

/* Whether the current task (cur, a BTF pointer, else NULL) is in a 32-bit
 * syscall. */
static __always_inline bool cur_compat(struct task_struct *cur)
{
	if (cur)
		return cur->thread_info.status & TS_COMPAT_;
	return in_compat_syscall();
}

/* btf: regs is a trusted BTF pointer (tp_btf), else a raw one (raw_tp).
 * tp: a tracepoint's program (katra_idle_tp where the kernel never
 * preempts it: syscall_tp_unpreempted). */
static __always_inline int sys_enter(struct pt_regs *regs, long id, bool btf, bool tp)
{
	/* the task once (one helper call): its ids, its compat status and its
	 * files are loads from it, not a helper call each */
	struct task_struct *cur = btf && have_task_btf ? bpf_get_current_task_btf() : NULL;
	__u64 pid_tgid = cur ? (__u64)cur->tgid << 32 | (__u32)cur->pid : bpf_get_current_pid_tgid();
	struct katra_cpu_slot *p;
	bool compat;
	__u32 cpu;
	__u64 ts;

	if (!katra_tracked(pid_tgid >> 32) || !selected(id))
		return 0;
	if ((id == NR_uretprobe || id == NR_uprobe) && !cur_compat(cur))
		return 0;
	cpu = tp && syscall_tp_unpreempted ? katra_busy_tp() : katra_busy();
	if (cpu >= KATRA_MAX_CPUS)
		return 0;
	p = PEND_SLOT(cpu);
	ts = bpf_ktime_get_ns();
	/* another thread's enter still in the slot: its switch-out was not seen
	 * (a probe attached or detached in between, a switch the kernel skipped).
	 * Its Begin is written now, as at a switch-out, not overwritten; the
	 * same thread's (its exit was not seen) is replaced. */
	if (p->state) {
		/* a fault of this thread is pending here: it makes a syscall, so
		 * the kernel refused that fault (SIGSEGV, no handle_mm_fault) */
		if (p->state & KATRA_SLOT_FAULT) {
			katra_flush_fault(cpu, pid_tgid, ts);
			p->fault_ts = 0;
		}
		if ((p->state & KATRA_SLOT_ACTIVE) && p->tid != (__u32)pid_tgid)
			katra_flush_slot(p, ((__u64)p->tgid << 32) | p->tid, cpu, false, false, ts);
	}
	p->enter_ts = ts;
	p->nr = id;
	p->tid = pid_tgid;
	p->tgid = pid_tgid >> 32;
	p->dev = 0;
	p->ino = 0;
	p->aux = 0;
	compat = cur_compat(cur);
	p->sc_flags = compat ? KATRA_SC_I386 : 0;
	if (compat) {
		/* i386: bx, cx, dx, si, di, bp (32-bit values) */
		p->args[0] = (__u32)BPF_CORE_READ(regs, bx);
		p->args[1] = (__u32)BPF_CORE_READ(regs, cx);
		p->args[2] = (__u32)BPF_CORE_READ(regs, dx);
		p->args[3] = (__u32)BPF_CORE_READ(regs, si);
		p->args[4] = (__u32)BPF_CORE_READ(regs, di);
		p->args[5] = (__u32)BPF_CORE_READ(regs, bp);
	} else if (btf) {
		p->args[0] = regs->di;
		p->args[1] = regs->si;
		p->args[2] = regs->dx;
		p->args[3] = regs->r10;
		p->args[4] = regs->r8;
		p->args[5] = regs->r9;
	} else {
		p->args[0] = BPF_CORE_READ(regs, di);
		p->args[1] = BPF_CORE_READ(regs, si);
		p->args[2] = BPF_CORE_READ(regs, dx);
		p->args[3] = BPF_CORE_READ(regs, r10);
		p->args[4] = BPF_CORE_READ(regs, r8);
		p->args[5] = BPF_CORE_READ(regs, r9);
	}
	decode_enter(p, cur);
	p->state = KATRA_SLOT_ACTIVE;
	if (record_paths && !compat) {
		if (p->nr == NR_openat || p->nr == NR_openat2)
			emit_path(pid_tgid, cpu, p->enter_ts, p->nr, p->args[1]);
		else if (p->nr == NR_execve)
			emit_path(pid_tgid, cpu, p->enter_ts, p->nr, p->args[0]);
	}
	if (tp && syscall_tp_unpreempted)
		katra_idle_tp(cpu);
	else
		katra_idle(cpu);
	return 0;
}

static __always_inline void fill_from(struct katra_ev_syscall *e, const struct katra_cpu_slot *p)
{
	e->enter_ts = p->enter_ts;
	__builtin_memcpy(e->args, p->args, sizeof(e->args));
	e->dev = p->dev;
	e->ino = p->ino;
	e->aux = p->aux;
}

/* The exit belongs to the thread's pending enter whatever orig_ax says now:
 * a thread makes one syscall at a time, and rt_sigreturn (orig_ax -1 after
 * the restore), restart_syscall and a successful execve change it. */
static __always_inline int sys_exit(struct pt_regs *regs, long ret, bool btf, bool tp)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 cpu, nr, tid = pid_tgid;
	struct katra_ev_syscall *e;
	struct katra_cpu_slot *p, *f = NULL, *t;
	bool in_task = false;
	struct katra_ev_syscall scratch; /* a record written directly */
	bool mine, own;
	__u64 ts, enter = 0; /* the call's enter time, when known: --stacks */

	if (!katra_tracked(pid_tgid >> 32))
		return 0;
	if (!select_all) {
		/* -e: an unselected call whose enter was not kept here costs only
		 * this check (no busy mark, no clock); a flushed enter of another
		 * number is let go below in the same case */
		cpu = bpf_get_smp_processor_id();
		p = PEND_SLOT(cpu);
		if (!((p->state & KATRA_SLOT_ACTIVE) && p->tid == tid) &&
		    !selected(btf ? regs->orig_ax : BPF_CORE_READ(regs, orig_ax)))
			return 0;
	}
	cpu = tp && syscall_tp_unpreempted ? katra_busy_tp() : katra_busy();
	if (cpu >= KATRA_MAX_CPUS)
		return 0;
	own = katra_owns_cpu(cpu);
	ts = bpf_ktime_get_ns();
	nr = btf ? regs->orig_ax : BPF_CORE_READ(regs, orig_ax);
	p = PEND_SLOT(cpu);
	mine = (p->state & KATRA_SLOT_ACTIVE) && p->tid == tid;
	if (mine)
		nr = p->nr;
	else if ((nr == NR_uretprobe || nr == NR_uprobe) && !in_compat_syscall())
		goto out; /* a uprobe trampoline's: its enter was not recorded either */
	if (mine && !p->sc_flags && nr < KATRA_NR_LIMIT &&
	    !(decoded_nrs[katra_bound(nr >> 6, 7)] & (1ull << (nr & 63)))) {
		/* staged (the common case) or written directly: see katra_put */
		struct katra_ev_syscall_short *s =
			katra_put(&scratch, cpu, own, sizeof(*s), 2, p->enter_ts, ts);

		katra_head(&s->head, KATRA_EV_SYSCALL_SHORT, cpu, pid_tgid, ts);
		s->enter_ts = p->enter_ts;
		enter = p->enter_ts;
		s->ret = ret;
		s->nr = nr;
		s->flags = KATRA_SC_EXIT | KATRA_SC_ENTER;
		p->state = 0;
		katra_put_done(s, cpu, own, sizeof(*s), 2);
		goto out;
	}
	if (mine && !(p->sc_flags & (KATRA_SC_AUX | KATRA_SC_I386)) && nr < KATRA_NR_LIMIT &&
	    (mid_nrs[katra_bound(nr >> 6, 7)] & (1ull << (nr & 63)))) {
		/* no argument past the fourth, no aux: 96 bytes, not 128 (the
		 * bytes a record takes in the ring are most of its cost); an
		 * io_uring_enter's into the place its first submission took for
		 * it (io_uring.bpf.h, place_call) */
		struct katra_ev_syscall_mid *m =
			own && nr == KATRA_NR_IO_URING_ENTER ? placed(cpu, p->enter_ts) : NULL;

		if (!m)
			m = katra_put(&scratch, cpu, own, sizeof(*m), 2, p->enter_ts, ts);
		katra_head(&m->head, KATRA_EV_SYSCALL_MID, cpu, pid_tgid, ts);
		m->enter_ts = p->enter_ts;
		enter = p->enter_ts;
		m->ret = ret;
		m->nr = nr;
		m->flags = KATRA_SC_EXIT | KATRA_SC_ENTER | p->sc_flags;
		m->dev = p->dev;
		m->ino = p->ino;
		__builtin_memcpy(m->args, p->args, sizeof(m->args));
		p->state = 0;
		if ((nr == NR_openat || nr == NR_openat2) && ret >= 0)
			m->flags |= fd_identity(ret, &m->dev, &m->ino, NULL);
		katra_put_done(m, cpu, own, sizeof(*m), 2);
		goto out;
	}
	if (!mine && !selected(nr))
		goto out; /* not selected (-e): its enter was not kept either */
	if (!mine) {
		/* kept with the thread, else in the table */
		t = katra_task_pend(false);
		in_task = t && (t->state & KATRA_SLOT_ACTIVE);
		if (in_task)
			f = t;
		else
			f = bpf_map_lookup_elem(&flushed, &tid);
	}
	/* no enter and no such syscall: the uretprobe trampoline's exit (Linux
	 * 6.11 sets its orig_ax to -1), not a call of the program's */
	if (!mine && !f && nr >= KATRA_NR_LIMIT)
		goto out;
	if (f && f->nr != NR_mmap && f->nr != NR_openat && f->nr != NR_openat2) {
		/* its Begin went out with the arguments: the End is 72 bytes, not
		 * 128 (the whole record for a blocking mmap, whose PROT_EXEC names
		 * an image at the return, and an open, whose file is the return's:
		 * below, one place that reads it) */
		struct katra_ev_syscall_end *en = katra_put(&scratch, cpu, own, sizeof(*en), 1, ts, ts);

		katra_head(&en->head, KATRA_EV_SYSCALL_END, cpu, pid_tgid, ts);
		en->enter_ts = f->enter_ts;
		enter = f->enter_ts;
		en->exit_ts = ts;
		en->ret = ret;
		en->nr = f->nr;
		en->flags = KATRA_SC_EXIT | KATRA_SC_FLUSHED | f->sc_flags;
		en->dev = f->dev;
		en->ino = f->ino;
		if (in_task)
			f->state = 0;
		else
			bpf_map_delete_elem(&flushed, &tid);
		katra_put_done(en, cpu, own, sizeof(*en), 1);
		goto out;
	}
	/* combined (Begin + End) when the enter is still in this CPU's slot */
	e = katra_put(&scratch, cpu, own, sizeof(*e), mine ? 2 : 1, mine ? p->enter_ts : ts, ts);
	katra_head(&e->head, KATRA_EV_SYSCALL, cpu, pid_tgid, ts);
	e->exit_ts = ts;
	e->ret = ret;
	if (mine) {
		/* never left the CPU: the common, cheap case */
		fill_from(e, p);
		enter = p->enter_ts;
		e->nr = nr;
		e->flags = KATRA_SC_EXIT | KATRA_SC_ENTER | p->sc_flags;
		p->state = 0;
	} else if (f) {
		fill_from(e, f);
		enter = f->enter_ts;
		e->nr = f->nr;
		e->flags = KATRA_SC_EXIT | KATRA_SC_FLUSHED | f->sc_flags;
		if (in_task)
			f->state = 0;
		else
			bpf_map_delete_elem(&flushed, &tid);
	} else {
		e->enter_ts = 0;
		__builtin_memset(e->args, 0, sizeof(e->args));
		e->dev = 0;
		e->ino = 0;
		e->aux = 0;
		e->nr = nr;
		e->flags = KATRA_SC_EXIT | KATRA_SC_NO_ENTER |
			   (in_compat_syscall() ? KATRA_SC_I386 : 0);
	}
	if ((e->nr == NR_openat || e->nr == NR_openat2) && !(e->flags & KATRA_SC_I386) && ret >= 0)
		e->flags |= fd_identity(ret, &e->dev, &e->ino, NULL);
	katra_put_done(e, cpu, own, sizeof(*e), mine ? 2 : 1);
out:
	/* --stacks: a long call's user stack (an exec's is the new image's) */
	if (record_stacks && enter && ts - enter >= stack_threshold_ns && nr != NR_execve &&
	    nr != NR_execveat)
		katra_stack_syscall(pid_tgid, enter, ts);
	if (tp && syscall_tp_unpreempted)
		katra_idle_tp(cpu);
	else
		katra_idle(cpu);
	return 0;
}
SEC("tp_btf/sys_enter")
int BPF_PROG(tpb_sys_enter, struct pt_regs *regs, long id)
{
	return sys_enter(regs, id, true, true);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(raw_sys_enter, struct pt_regs *regs, long id)
{
	return sys_enter(regs, id, false, true);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(tpb_sys_exit, struct pt_regs *regs, long ret)
{
	return sys_exit(regs, ret, true, true);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(raw_sys_exit, struct pt_regs *regs, long ret)
{
	return sys_exit(regs, ret, false, true);
}

/* per-syscall attach for -e: fentry/fexit on the same bodies */
#include "syscalls_fn.bpf.h"
/* io_uring's programs, in this object (see there) */
#include "io_uring.bpf.h"
