/* SPDX-License-Identifier: GPL-2.0-only */
/* katra wire contract: the records the BPF probes write into the per-CPU rings
 * and the recorder reads back.  Shared by bpf/ and user/record/.
 *
 * Rules:
 * - Every record starts with struct katra_wire_head; head.type says which
 *   struct follows, and each type has ONE fixed size (KATRA_WIRE_SIZE_OK()).
 * - Fixed-width fields only, naturally aligned, explicit padding, little-endian
 *   (the host's).  No libc, no vmlinux.h: BPF includes this after vmlinux.h.
 * - One ring per possible CPU; ring i holds what CPU i produced and
 *   head.cpu == i.  Within a ring, records are in commit order, and head.ts is
 *   nondecreasing except for small inversions (a probe in interrupt context
 *   nesting between another probe's clock read and its reserve).  Merge the
 *   rings by head.ts within a bounded window.
 * - head.ts is bpf_ktime_get_ns() (CLOCK_MONOTONIC) taken when the probe RAN;
 *   it is the record's position in time.  Some records also carry earlier
 *   times (katra_ev_syscall.enter_ts); see there.
 * - head.tgid/head.tid are the task that was CURRENT when the probe ran (for a
 *   switch: the thread leaving the CPU; for a wakeup: the waker; for a fork:
 *   the parent).  They can be 0 (idle task); for sched_waking and
 *   io_uring_complete they are 0 when the current task is untracked
 *   (interrupt or worker context): the tracked side is in the payload.
 *
 * x86_64 only for now: katra_ev_syscall.nr is the x86_64 syscall number
 * (<asm/unistd_64.h>, as SYS_xxx in <sys/syscall.h>). */
#ifndef KATRA_WIRE_H
#define KATRA_WIRE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define KATRA_WIRE_VERSION 1u

enum katra_wire_type {
	KATRA_EV_SYSCALL = 1,       /* struct katra_ev_syscall */
	KATRA_EV_PATH = 2,          /* struct katra_ev_path (only with record_paths) */
	KATRA_EV_SWITCH = 3,        /* struct katra_ev_switch */
	KATRA_EV_WAKING = 4,        /* struct katra_ev_waking */
	KATRA_EV_FORK = 5,          /* struct katra_ev_fork */
	KATRA_EV_EXEC = 6,          /* struct katra_ev_exec */
	KATRA_EV_EXIT = 7,          /* struct katra_ev_exit */
	KATRA_EV_PAGE_FAULT = 8,    /* struct katra_ev_page_fault */
	KATRA_EV_URING_CREATE = 9,  /* struct katra_ev_uring_create */
	KATRA_EV_URING_SUBMIT = 10, /* struct katra_ev_uring_submit */
	KATRA_EV_URING_COMPLETE = 11, /* struct katra_ev_uring_complete */
	KATRA_EV_SYSCALL_SHORT = 12, /* struct katra_ev_syscall_short */
	KATRA_EV_UCALL = 13,        /* struct katra_ev_ucall (uprobes: Wine, Vulkan) */
	KATRA_EV_TASK_RENAME = 14,  /* struct katra_ev_task_rename */
	KATRA_EV_BATCH = 15,        /* struct katra_ev_batch: records back to back */
	KATRA_EV_SYSCALL_END = 16,  /* struct katra_ev_syscall_end */
	KATRA_EV_GPU_FENCE = 17,    /* struct katra_ev_gpu_fence */
	KATRA_EV_GPU_TIMELINE = 18, /* struct katra_ev_gpu_timeline */
	KATRA_EV_GPU_CMD = 19,      /* struct katra_ev_gpu_cmd */
	KATRA_EV_HOLE = 20,         /* room for a katra_ev_syscall_mid never filled (place_call): skip */
	KATRA_EV_SYSCALL_MID = 21,  /* struct katra_ev_syscall_mid */
	KATRA_EV_TYPE_COUNT = 22,   /* one past the last type: size tables */
};

struct katra_wire_head {
	__u32 type; /* enum katra_wire_type */
	__u32 cpu;  /* CPU that produced the record == ring index */
	__u32 tgid; /* current task's process id (see top comment) */
	__u32 tid;  /* current task's thread id */
	__u64 ts;   /* CLOCK_MONOTONIC ns when the probe ran */
};

/* ---- syscalls: raw_syscalls sys_enter + sys_exit, every syscall of a tracked
 * thread.
 *
 * The enter is kept in a per-CPU slot and ONE record is written at the exit
 * (flags ENTER|EXIT, "combined").  If the thread leaves the CPU while the
 * syscall is pending (any sched_switch, blocking or preempted), or exits the
 * process without returning (exit, exit_group), the enter is written right
 * then as its own record (flags ENTER only, "flushed"), so a blocking
 * syscall's Begin reaches user space promptly; its exit then writes a record
 * with EXIT|FLUSHED that repeats enter_ts, nr, args and the file identity so
 * the two match on (tid, enter_ts).  An exit with no stored enter (the syscall
 * was in flight when the probes attached) writes EXIT|NO_ENTER with
 * enter_ts = 0 and args/file zero.
 *
 *   flags               head.ts      enter_ts  exit_ts  args,file,aux  ret
 *   ENTER|EXIT          exit time    valid     valid    valid          valid
 *   ENTER (flushed)     flush time   valid     0        valid          0
 *   EXIT|FLUSHED        exit time    valid     valid    valid          valid
 *   EXIT|NO_ENTER       exit time    0         valid    0              valid
 *
 * A combined record's enter_ts precedes head.ts by the syscall's duration on
 * the CPU (it never spans a switch-out), so records this thread produced during
 * the syscall (a wakeup it caused, io_uring submits, ...) sit BEFORE it in the
 * ring with head.ts between enter_ts and exit_ts.  Sort Begin by enter_ts.
 *
 * File identity (flags FILE): dev/ino of the fd's file, read at enter for
 * read, pread64, readv, preadv, write, pwrite64, writev, pwritev, close,
 * sendmsg, recvmsg, mmap (non-anonymous, fd >= 0), and at exit for openat,
 * openat2 when ret >= 0 (the returned fd).  dev is the KERNEL dev_t encoding
 * (major << 20 | minor, from inode->i_sb->s_dev): convert with
 * makedev(dev >> 20, dev & 0xfffff) to compare with stat()'s st_dev.
 * With FILE, at most one class flag says what the file is, from its
 * superblock's magic: PIPE (pipefs: an anonymous pipe; a named FIFO is a
 * plain FILE), SOCKET (sockfs), ANON (an anon inode, or a pidfd on pidfs):
 * then dev then ino hold, instead of the shared inode's identity, the first
 * 16 bytes of the file's dentry name ("[eventfd]", "inotify"), NUL-padded,
 * as /proc/PID/fd shows it after "anon_inode:".
 *
 * aux (flags AUX): clone3: clone_args.flags read from user memory;
 * recvmsg: msg_iov[0].iov_base (where the data lands) read from user memory;
 * nanosleep, clock_nanosleep, ppoll: the requested timeout in ns read from
 * user memory (ppoll with a NULL timeout: no AUX flag). */
#define KATRA_SC_ENTER    (1u << 0) /* enter_ts/args describe the enter */
#define KATRA_SC_EXIT     (1u << 1) /* exit_ts/ret describe the exit */
#define KATRA_SC_FLUSHED  (1u << 2) /* the enter was sent earlier as ENTER-only */
#define KATRA_SC_NO_ENTER (1u << 3) /* exit without any enter seen */
#define KATRA_SC_FILE     (1u << 4) /* dev/ino valid */
#define KATRA_SC_AUX      (1u << 5) /* aux valid */
#define KATRA_SC_I386     (1u << 6) /* a 32-bit (int $0x80 / compat) syscall: nr and
				     * args are the i386 ABI's (bx, cx, dx, si, di, bp) */
#define KATRA_SC_PIPE     (1u << 7) /* with FILE: the file is a pipe */
#define KATRA_SC_SOCKET   (1u << 8) /* with FILE: a socket */
#define KATRA_SC_ANON     (1u << 9) /* with FILE: an anon inode, dev/ino its name */

struct katra_ev_syscall {
	struct katra_wire_head head;
	__u64 enter_ts;
	__u64 exit_ts;
	__s64 ret;
	__u32 nr;    /* x86_64 syscall number */
	__u32 flags; /* KATRA_SC_* */
	__u64 dev; /* kernel dev_t, see above */
	__u64 ino;
	/* what only the Begin needs comes last: user space copies a prefix */
	__u64 aux;
	__u64 args[6];
};
#define KATRA_EV_SYSCALL_END_BYTES __builtin_offsetof(struct katra_ev_syscall, aux)

/* ---- the return of a syscall whose Begin went out at a switch-out (always
 * KATRA_SC_EXIT | KATRA_SC_FLUSHED): what an End reads, the first
 * KATRA_EV_SYSCALL_END_BYTES of a struct katra_ev_syscall, in 72 bytes
 * instead of 128 (the Begin carried the arguments).  The return of a
 * blocking mmap (its PROT_EXEC argument names a mapped image at the return)
 * or openat/openat2 (the new file's identity, read at the return) stays a
 * whole katra_ev_syscall. */
struct katra_ev_syscall_end {
	struct katra_wire_head head; /* ts == exit time */
	__u64 enter_ts;
	__u64 exit_ts;
	__s64 ret;
	__u32 nr;
	__u32 flags;
	__u64 dev;
	__u64 ino;
};

/* ---- a syscall whose arguments nobody decodes (getppid, gettid, ...) that
 * never left the CPU: the combined case in 48 bytes instead of 128, since
 * ring traffic is most of the cost.  Always ENTER|EXIT; which numbers are
 * decoded is set by the loader (the decoded_nrs bitmap). */
struct katra_ev_syscall_short {
	struct katra_wire_head head; /* ts == exit time */
	__u64 enter_ts;
	__s64 ret;
	__u32 nr;
	__u32 flags; /* KATRA_SC_ENTER | KATRA_SC_EXIT */
};

/* ---- a decoded syscall that never left the CPU, whose decoder reads no
 * argument past the fourth and no aux (the loader's mid_nrs bitmap; not
 * i386, whose 64-bit values span two registers): the combined case in 96
 * bytes instead of 128 (io_uring_enter, read, write, pread64, ...).  Always
 * ENTER|EXIT; user space widens it (args[4..5] and aux 0). */
struct katra_ev_syscall_mid {
	struct katra_wire_head head; /* ts == exit time */
	__u64 enter_ts;
	__s64 ret;
	__u32 nr;
	__u32 flags; /* KATRA_SC_ENTER | KATRA_SC_EXIT | what the file's identity set */
	__u64 dev;
	__u64 ino;
	__u64 args[4];
};

/* ---- paths: only when record_paths is set.  Written at the enter of openat,
 * openat2, execve (user pointer, read when the syscall starts); it comes before
 * the syscall's own record(s) in the same ring and matches them on
 * (tid, enter_ts == this record's enter_ts).  path is NUL-terminated; len is
 * the string length (< KATRA_PATH_MAX; a longer path is cut at
 * KATRA_PATH_MAX - 1 and flagged TRUNCATED). */
#define KATRA_PATH_MAX 256
#define KATRA_PATH_TRUNCATED (1u << 0)

struct katra_ev_path {
	struct katra_wire_head head; /* ts == enter_ts */
	__u64 enter_ts;
	__u32 nr;  /* syscall number it belongs to */
	__u32 len; /* bytes before the NUL */
	__u32 flags; /* KATRA_PATH_* */
	__u32 pad;
	char path[KATRA_PATH_MAX];
};

/* ---- sched_switch: written when the previous OR the next thread is tracked.
 * head.tid/tgid = prev (the thread leaving); prev_state is the raw
 * task state it left in (0 = runnable, i.e. preempted; 1 = S, 2 = D, ...;
 * see the SWITCH_PREEMPT flag for the kernel's own preempt bit). */
#define KATRA_SW_PREV_TRACKED (1u << 0)
#define KATRA_SW_NEXT_TRACKED (1u << 1)
#define KATRA_SW_PREEMPT      (1u << 2) /* the switch was a preemption */

struct katra_ev_switch {
	struct katra_wire_head head;
	__u64 prev_state;
	__u32 next_tgid;
	__u32 next_tid;
	__u32 flags; /* KATRA_SW_* */
	__u32 pad;
};

/* ---- sched_waking / sched_wakeup_new: written when the TARGET is tracked.
 * head = the waker when it is tracked and runs in its own context; tgid =
 * tid = 0 when not (an interrupt, a kernel thread or another process: the
 * task that happened to be running is not blamed).  Then KATRA_WK_INTERRUPT
 * says it was an interrupt; without it, the waker is the task in whose
 * context the wakeup ran, untracked: out_tgid, out_tid and out_comm (its
 * process's name, the group leader's comm) name it. */
#define KATRA_WK_NEW       (1u << 0) /* sched_wakeup_new: first wakeup of a new task */
#define KATRA_WK_INTERRUPT (1u << 1) /* head 0: woken in an interrupt, no task to name */

struct katra_ev_waking {
	struct katra_wire_head head;
	__u32 target_tgid;
	__u32 target_tid;
	__u32 target_cpu;
	__u32 flags; /* KATRA_WK_* */
	__u32 out_tgid; /* head 0, no KATRA_WK_INTERRUPT: the untracked waker */
	__u32 out_tid;
	char out_comm[16];
};

/* ---- sched_process_fork: written when the parent is tracked (threads too).
 * head = parent.  If follow_children is set and child_tgid != parent tgid,
 * child_tgid was added to the tracked set before this record was written, so
 * the child's first event follows it. */
#define KATRA_FORK_THREAD  (1u << 0) /* a new thread, same process */
#define KATRA_FORK_TRACKED (1u << 1) /* the child is tracked (thread, or followed) */
/* not a fork: the current process joined a traced Wine session (it connected
 * to its wineserver) and is tracked from now on; child_* are its own ids */
#define KATRA_FORK_JOINED  (1u << 2)

struct katra_ev_fork {
	struct katra_wire_head head;
	__u32 child_tgid;
	__u32 child_tid;
	__u32 flags; /* KATRA_FORK_* */
	__u32 pad;
	char comm[16]; /* the parent's task name, which the child inherits */
};

/* ---- sched_process_exec (tracked process): head = the task after exec;
 * old_tid is the tid before (differs when a non-leader thread exec'd). */
struct katra_ev_exec {
	struct katra_wire_head head;
	__u32 old_tid;
	__u32 pad;
	char comm[16]; /* the task name the exec gave it */
};

/* ---- task_rename (a tracked thread's comm changed, not by an exec): head =
 * the thread that made the change (current), tid = the renamed thread (the
 * same, or another thread of its process through /proc/PID/task/TID/comm). */
struct katra_ev_task_rename {
	struct katra_wire_head head;
	__u32 tid;
	__u32 pad;
	char comm[16]; /* the new name, NUL-terminated */
};

/* ---- sched_process_exit (tracked thread): written for every exiting thread;
 * GROUP_DEAD marks the last thread of the process (the tracepoint's own
 * group_dead where the kernel has it, else signal->live read at the
 * tracepoint, which can flag more than one thread of a process exiting at
 * once: user space keeps the first).  The tgid stays tracked: user space
 * removes it once it has read the record, so the other threads' exits are
 * still seen.  exit_code is task->exit_code (wait status
 * encoding: code << 8 | signal). */
#define KATRA_EXIT_GROUP_DEAD (1u << 0)

struct katra_ev_exit {
	struct katra_wire_head head;
	__u32 exit_code;
	__u32 flags; /* KATRA_EXIT_* */
};

/* ---- exceptions:page_fault_user (tracked thread).  Where fexit on
 * handle_mm_fault attaches, the fault is measured: the tracepoint keeps its
 * start (by tid) and the fexit writes one record, MEASURED, with enter_ts =
 * the tracepoint's time and head.ts = when handle_mm_fault returned (it may
 * have slept: head.ts can be far after enter_ts).  A fault the kernel
 * refuses before handle_mm_fault (a bad address, a write to a read-only
 * page: SIGSEGV) is written as an instant at its own time (head.ts ==
 * enter_ts == the fault's) as soon as the thread is seen past it: its next
 * syscall, its next switch-out (its user ip moved on, or SIGSEGV/SIGBUS is
 * queued), its next fault or its exit; until then the watermark waits for
 * it.  Every fault is an instant where the fexit is not attached.
 * A fault that sleeps (its thread leaves the CPU inside it) is split so that
 * its Begin is not held back past the thread's OffCpu: BEGIN is written at
 * the switch-out (head.ts = the switch, enter_ts = the fault) and END at
 * handle_mm_fault's return (enter_ts repeats the fault's time to match). */
#define KATRA_PF_MEASURED (1u << 0) /* Begin and End in one record */
#define KATRA_PF_BEGIN    (1u << 1) /* the Begin only, written at a switch-out */
#define KATRA_PF_END      (1u << 2) /* the End of a fault whose Begin was written */

struct katra_ev_page_fault {
	struct katra_wire_head head;
	__u64 address;
	__u64 ip;
	__u64 error_code; /* x86 PF error code: bit0 present, 1 write, 2 user, 4 fetch */
	__u64 enter_ts;
	__u32 flags;      /* KATRA_PF_* */
	__u32 pad;
};

/* ---- io_uring.  ctx is the kernel io_ring_ctx pointer (an opaque id);
 * req the io_kiocb pointer (opaque, reused).  A ring created or submitted
 * to by a tracked process is remembered, so its completions are written even
 * when they run in another context (io-wq worker, SQPOLL thread, interrupt). */
struct katra_ev_uring_create {
	struct katra_wire_head head;
	__u64 ctx;
	__u32 fd; /* ring fd (may be -1 as u32 for registered rings) */
	__u32 sq_entries;
	__u32 cq_entries;
	__u32 flags; /* IORING_SETUP_* */
};

struct katra_ev_uring_submit {
	struct katra_wire_head head;
	__u64 ctx;
	__u64 req;
	__u64 user_data;
	__u64 req_flags; /* REQ_F_* (kernel internal) */
	__u32 opcode;    /* IORING_OP_* */
	__u32 sq_thread; /* 1 if submitted by the SQPOLL thread */
};

struct katra_ev_uring_complete {
	struct katra_wire_head head;
	__u64 ctx;
	__u64 req;
	__u64 user_data;
	__s32 res;
	__u32 cflags;
	__u32 owner_tgid; /* the completing thread's tgid when a traced thread
			   * completes in its own context, else the tgid that
			   * created/submitted to ctx (user space reads neither) */
	__u32 pad;
};

/* Bits the probes set in katra_ev_uring_complete.cflags (and the trace's
 * IoUringCompletePayload.cflags), above the kernel's IORING_CQE_F_* (bits
 * 0-5 and 15 as of Linux 6.18; the buffer id is bits 16-31): the completion
 * did not fit the CQ ring (io_uring_cqe_overflow, no request pointer: req is
 * 0) and went to the kernel's overflow list, handed out at a later reap;
 * LOST as well when the kernel could not keep it there (the process never
 * sees it; the ring's cq_overflow counts it). */
#define KATRA_URING_CQE_OVERFLOW (1u << 14)
#define KATRA_URING_CQE_LOST (1u << 13)

/* ---- the GPU layer (bpf/gpu.bpf.c): dma_fence trace events.  A fence is
 * (context, seqno), both 32 bits as the tracepoints give them.  A fence made
 * (init) in a tracked thread's context is the tracked process's: its later
 * events are written whoever runs them (an interrupt, a driver's worker),
 * until it signals or is freed.  Waits are written for tracked threads.
 * head.tgid/tid: the current task when it is tracked and not in an
 * interrupt, else 0 (owner_tgid says whose the fence is).  The GPU
 * scheduler's job events come in the same record (KATRA_GPU_JOB_*), by the
 * job's finished fence. */
#define KATRA_GPU_FENCE_INIT          0
#define KATRA_GPU_FENCE_EMIT          1
#define KATRA_GPU_FENCE_ENABLE_SIGNAL 2
#define KATRA_GPU_FENCE_SIGNALED      3
#define KATRA_GPU_FENCE_WAIT_START    4
#define KATRA_GPU_FENCE_WAIT_END      5
#define KATRA_GPU_FENCE_DESTROY       6 /* freed without having signalled */
/* a GPU scheduler job, by its finished fence (context, seqno): queued (in
 * the submitting thread), run on its ring, done */
#define KATRA_GPU_JOB_QUEUE           7
#define KATRA_GPU_JOB_RUN             8
#define KATRA_GPU_JOB_DONE            9
/* the display (drm:drm_vblank_event*), in the same record with context the
 * CRTC's index and seqno the vblank's sequence: a vblank on a CRTC a tracked
 * process's DRM file has had events on; a vblank event asked for by a
 * tracked thread (its ioctl); one delivered to a tracked process's DRM file
 * (a flip done, a wait over) */
#define KATRA_GPU_VBLANK              10
#define KATRA_GPU_VBLANK_QUEUED       11
#define KATRA_GPU_VBLANK_DELIVERED    12
#define KATRA_GPU_FENCE_EVENTS        13

struct katra_ev_gpu_fence {
	struct katra_wire_head head;
	__u32 context;
	__u32 seqno;
	__u32 what;       /* KATRA_GPU_FENCE_* */
	__u32 owner_tgid; /* the process that made it, 0: not a tracked one's */
	/* A fence the driver numbers only at its emit (made with seqno 0:
	 * virtio_gpu): the probes' own number for it (bit 31 set, never 0),
	 * the same in all its events, from its init (seqno 0) on; 0 for the
	 * others.  User space keys such a fence by it (request_id). */
	__u32 token;
	__u32 pad;
};

/* A fence context's names, written before its first fence event (once per
 * context while the probes' table holds it). */
#define KATRA_GPU_NAME_MAX 32
struct katra_ev_gpu_timeline {
	struct katra_wire_head head;
	__u32 context;
	__u32 pad;
	char driver[KATRA_GPU_NAME_MAX];   /* NUL-terminated, cut to fit */
	char timeline[KATRA_GPU_NAME_MAX];
};

/* ---- a GPU driver's command to its device and the device's response
 * (virtio_gpu:virtio_gpu_cmd_queue, _response; raw tracepoints, whose
 * arguments are (struct virtqueue *, struct virtio_gpu_ctrl_hdr *) on every
 * kernel, a seqno after them in later ones): the header as the driver
 * queued it or the device answered (virtio is little-endian, as x86_64).
 * A command is a tracked process's when it carries the fence_id of that
 * process's fence just emitted on this CPU (virtio_gpu_fence_emit runs
 * right before the queueing, under the queue's lock, in the same thread),
 * or when a tracked thread queues it in its own context; a response when it
 * carries the fence_id of such a command.  head.tgid/tid as for fences. */
#define KATRA_GPU_CMD_QUEUE    0
#define KATRA_GPU_CMD_RESPONSE 1

struct katra_ev_gpu_cmd {
	struct katra_wire_head head;
	__u64 fence_id;   /* the header's; 0 unless flags has VIRTIO_GPU_FLAG_FENCE */
	__u32 what;       /* KATRA_GPU_CMD_* */
	__u32 type;       /* VIRTIO_GPU_CMD_* (a response: VIRTIO_GPU_RESP_*) */
	__u32 flags;      /* VIRTIO_GPU_FLAG_* */
	__u32 ctx_id;     /* the 3D context (0 in 2D) */
	__u32 context;    /* its fence's dma_fence context, 0: no fence of a tracked process */
	__u32 token;      /* its fence's token (katra_ev_gpu_fence.token) */
	__u32 owner_tgid; /* the process whose command it is */
	__u32 pad;
};

/* The GPU layer's totals per fence context (the map gpu_totals, read by
 * user space at each counter tick and at the capture's end): other processes' work, counted and not
 * written (a fence is another process's when its init ran outside the
 * tracked threads, or was not seen and it is not a tracked process's), and
 * the busy time of all the context's work, tracked processes' included.
 * Busy times are unions of intervals (a fence: init to signalled; a job:
 * run to done), merged in the order they end. */
struct katra_gpu_totals {
	__u64 fences;         /* other processes' fences signalled */
	__u64 fence_ns;       /* their time in flight, summed (inits seen) */
	__u64 busy_ns;        /* the union of those flights */
	__u64 cover_end;      /* where that union ends so far */
	__u64 jobs;           /* other processes' scheduler jobs done */
	__u64 ring_busy_ns;   /* the union of their runs (run to done) */
	__u64 ring_cover_end;
	__u64 all_busy_ns;    /* the union of every fence's flight */
	__u64 all_cover_end;
	__u64 all_ring_busy_ns; /* the union of every job's run */
	__u64 all_ring_cover_end;
};

/* ---- the per-CPU slot: one per possible CPU in the probes' .bss, read by
 * user space through the mmap'ed .bss.  It holds the syscall between its
 * enter and its exit while the thread stays on the CPU, and `busy`, the
 * number of this CPU's probes that have taken a timestamp and not yet
 * committed their record.  Together they tell user space up to which time a
 * ring is complete (the watermark, SPEC section 10):
 *   busy != 0               nothing new is known about this ring;
 *   state & SLOT_ACTIVE     records still to come may sort at enter_ts;
 *   otherwise               every later record sorts at or after the time
 *                           user space read the slot.
 * busy is the low half of busy_seq; every probe moves the high half (seq)
 * while its busy is visible: atomic adds of both before the clock read and
 * of -1 to busy after the commit where it may be preempted, else plain
 * stores (bpf/common.bpf.h, katra_busy_tp).  User space reads busy_seq, the
 * slot and the staging area, then busy_seq again, and trusts what it read
 * only if both readings are equal with busy 0 (no probe ran in between; a
 * sequence count that allows probes nested on one CPU). */
#define KATRA_SLOT_ACTIVE (1u << 0)
#define KATRA_SLOT_FAULT  (1u << 1) /* fault_ts is set (the probes' own flag: one
				     * load tells sys_enter about both) */

struct katra_cpu_slot {
	__u64 enter_ts;
	__u64 args[6];
	__u64 dev;
	__u64 ino;
	__u64 aux;
	__u32 nr;
	__u32 sc_flags;   /* KATRA_SC_FILE / AUX / I386 */
	__u32 state;      /* KATRA_SLOT_* */
	__u32 tid;
	__u64 wake_avail; /* ring fill seen at the last wakeup check */
	__u32 nsubmit;    /* records submitted on this CPU (its low bits pace wakeup checks) */
	__u32 tgid;
	union {
		__u64 busy_seq;
		struct {
			__u32 busy; /* probes inside (little-endian: the low half) */
			__u32 seq;  /* probes entered, wrapping */
		};
	};
	__u64 fault_ts;   /* a measured page fault in progress here (0: none):
			   * records may still sort at this time */
};

/* ---- a batch: several records in one ring record (bpf/common.bpf.h,
 * "staging").  The frequent records of a tracepoint probe go into its CPU's
 * staging area with plain stores and reach the ring together, one reserve for
 * many.  In the staging area head.ts is the smallest sort key of what it
 * holds (0: empty), which the watermark reads: nothing staged is released
 * before it is in the ring.  In the ring, `bytes` of whole records follow,
 * each as big as its type's record (KATRA_WIRE_SIZES), 8-byte aligned. */
struct katra_ev_batch {
	struct katra_wire_head head; /* tgid, tid 0; ts: the smallest key staged */
	__u32 bytes;  /* of the records that follow */
	__u32 events; /* trace events they become (a combined syscall is two) */
};

/* ---- calls into user-space libraries, by uprobes (bpf/wine.bpf.c,
 * bpf/vulkan.bpf.c): Wine's Unix-side ntdll.so (the NT calls the Windows
 * program made, wine_server_call, the Win->Unix call dispatcher) and the
 * Vulkan driver's entry points.
 *
 * Each call is TWO records, both written where they happen, so both are in
 * time order in their ring: ENTER at the function's entry (head.ts = entry
 * time) and EXIT at its return (head.ts = return time, ret valid).  Calls are
 * grouped in layers (KATRA_UC_LAYER_*); per thread and layer only the
 * OUTERMOST call is written (the NT layer: per level, KATRA_UC_LEVEL) (Wine's NtWaitForSingleObject calls
 * NtWaitForMultipleObjects: one NtWait), so ENTER and EXIT of a thread and
 * layer alternate and match on (tid, layer).  An ENTER whose call never
 * returned (a longjmp, the thread died inside it) is followed by the next
 * ENTER of that thread and layer, or by nothing: user space closes it.
 *
 * a[] per call, at the ENTER; the EXIT repeats them, with the out-parameters
 * it reads at the return in the places named after "EXIT:":
 *   NT_READ_FILE, NT_WRITE_FILE   handle, length, *offset (A2_VALID), event
 *                                 EXIT: a1 = IO_STATUS_BLOCK.Information (A1_VALID)
 *   NT_CREATE_FILE                0, access, create disposition, options
 *                                 EXIT: a0 = *FileHandle (the new handle)
 *   NT_WAIT_SINGLE                handle, 1, *timeout (A2_VALID), alertable
 *   NT_WAIT_MULTIPLE              handles[0], count, *timeout (A2_VALID),
 *                                 alertable | wait_any << 1
 *   NT_DELAY_EXECUTION            0, alertable, *timeout (A2_VALID), 0
 *     timeouts are the raw LARGE_INTEGER (100 ns units; < 0 relative,
 *     >= 0 absolute since 1601); no A2_VALID: a NULL timeout (infinite)
 *   NT_MAP_VIEW_OF_SECTION        section, *size, *offset (A2_VALID), *base
 *                                 EXIT: a1 = *size, a3 = *base
 *   NT_ALLOCATE_VIRTUAL_MEMORY    process, *size, *base, type | protect << 32
 *                                 EXIT: a1 = *size, a2 = *base
 *   NT_CREATE_USER_PROCESS        0, process flags, thread flags, 0
 *                                 EXIT: a0 = *process handle, a1 = *thread handle
 *   WINE_SERVER_CALL              request number, 0, 0, 0
 *   NT_SYSCALL                    NT number (table 0: n; win32u's table 1:
 *                                 0x1000 | n), 0, 0, the ntdll file's slot in
 *                                 nt_files (the uprobe's attach cookie)
 *   WINE_UNIX_CALL                unixlib handle, function index, args, 0
 *                                 EXIT: a2 = 0
 *   VK_QUEUE_SUBMIT, _SUBMIT2     queue, submitCount, fence, 0
 *   VK_QUEUE_PRESENT              queue, swapchainCount, pSwapchains[0] (0: none), 0
 *   VK_WAIT_FOR_FENCES            device, fenceCount, timeout (ns), waitAll
 *   VK_WAIT_SEMAPHORES            device, semaphoreCount, timeout (ns), 0
 *   VK_ACQUIRE_NEXT_IMAGE         device, swapchain, timeout (ns), 0
 *                                 EXIT: a3 = *pImageIndex (A1_VALID)
 *   D3D12_EXECUTE_COMMAND_LISTS   queue, NumCommandLists, ppCommandLists, 0
 *   D3D12_QUEUE_SIGNAL, _WAIT     queue, fence, value, 0
 *   D3D12_FENCE_SET_EVENT         fence, value, event handle, 0
 *   D3D12_FENCE_SIGNAL            fence, value, 0, 0
 *     (the D3D12 methods vkd3d implements: the COM object the program
 *     holds is `this`; a fence is the same pointer in both)
 * ret (EXIT): NTSTATUS (NT calls, wine_server_call, unix calls), VkResult,
 * HRESULT (D3D12; ExecuteCommandLists returns nothing: 0),
 * as the function's 32-bit return value sign-extended.  ret (ENTER):
 * NT_READ_FILE, NT_WRITE_FILE: the buffer's address (what matches a pending
 * read to the Linux read that completes it later); else 0. */
enum katra_ucall {
	KATRA_UC_NT_READ_FILE = 1,
	KATRA_UC_NT_WRITE_FILE = 2,
	KATRA_UC_NT_CREATE_FILE = 3,
	KATRA_UC_NT_WAIT_SINGLE = 4,
	KATRA_UC_NT_WAIT_MULTIPLE = 5,
	KATRA_UC_NT_DELAY_EXECUTION = 6,
	KATRA_UC_NT_MAP_VIEW_OF_SECTION = 7,
	KATRA_UC_NT_ALLOCATE_VIRTUAL_MEMORY = 8,
	KATRA_UC_NT_CREATE_USER_PROCESS = 9,
	KATRA_UC_WINE_SERVER_CALL = 10,
	KATRA_UC_WINE_UNIX_CALL = 11,
	KATRA_UC_VK_QUEUE_SUBMIT = 12,
	KATRA_UC_VK_QUEUE_SUBMIT2 = 13,
	KATRA_UC_VK_QUEUE_PRESENT = 14,
	KATRA_UC_VK_WAIT_FOR_FENCES = 15,
	KATRA_UC_VK_WAIT_SEMAPHORES = 16,
	KATRA_UC_VK_ACQUIRE_NEXT_IMAGE = 17,
	KATRA_UC_NT_SYSCALL = 18, /* any other NT call, at Wine's syscall dispatcher */
	KATRA_UC_D3D12_EXECUTE_COMMAND_LISTS = 19, /* ID3D12CommandQueue:: */
	KATRA_UC_D3D12_QUEUE_SIGNAL = 20,
	KATRA_UC_D3D12_QUEUE_WAIT = 21,
	KATRA_UC_D3D12_FENCE_SET_EVENT = 22, /* ID3D12Fence::SetEventOnCompletion */
	KATRA_UC_D3D12_FENCE_SIGNAL = 23,
	KATRA_UC_COUNT = 24,
};

/* Layers: at most one open call per thread and layer (the NT layer: per
 * level, KATRA_UC_LEVEL). */
#define KATRA_UC_LAYER_NT     0 /* NT calls (WindowsFacing) */
#define KATRA_UC_LAYER_SERVER 1 /* wine_server_call (WineProton) */
#define KATRA_UC_LAYER_UNIX   2 /* Win->Unix calls (WineProton) */
#define KATRA_UC_LAYER_VULKAN 3 /* Vulkan driver entry points */
#define KATRA_UC_LAYER_D3D12  4 /* D3D12 methods in vkd3d (D3d12Vkd3d) */
#define KATRA_UC_LAYERS       5
#define KATRA_UC_LAYER_OF(call)                                                        \
	((call) <= KATRA_UC_NT_CREATE_USER_PROCESS || (call) == KATRA_UC_NT_SYSCALL    \
		 ? KATRA_UC_LAYER_NT                                                   \
	 : (call) == KATRA_UC_WINE_SERVER_CALL     ? KATRA_UC_LAYER_SERVER             \
	 : (call) == KATRA_UC_WINE_UNIX_CALL       ? KATRA_UC_LAYER_UNIX               \
	 : (call) >= KATRA_UC_D3D12_EXECUTE_COMMAND_LISTS ? KATRA_UC_LAYER_D3D12       \
						   : KATRA_UC_LAYER_VULKAN)

#define KATRA_UC_ENTER    (1u << 0)
#define KATRA_UC_EXIT     (1u << 1)
#define KATRA_UC_A2_VALID (1u << 2) /* a[2] was read (offset / timeout present) */
#define KATRA_UC_A1_VALID (1u << 3) /* the out-parameter was read: a[1] (a[3]: VK_ACQUIRE_NEXT_IMAGE) */
/* EXIT at a tail jump out of the call (D3D12: jmp *__imp_X): ret is none */
#define KATRA_UC_RET_UNKNOWN (1u << 4)
/* KATRA_UC_LAYER_NT: the call's level on its thread's stack of open NT calls
 * (0: outermost; n + 1: made by a user callback inside the open call of
 * level n, a win32u call's), on its ENTER and EXIT; at most KATRA_NT_DEPTH
 * levels (a deeper call is not written: KTABLE_UCALLS counts its two
 * events). */
#define KATRA_UC_LEVEL_SHIFT 8
#define KATRA_UC_LEVEL(flags) (((flags) >> KATRA_UC_LEVEL_SHIFT) & 15u)
#define KATRA_NT_DEPTH 8

struct katra_ev_ucall {
	struct katra_wire_head head; /* ts: entry time (ENTER) or return time (EXIT) */
	__u32 call;  /* enum katra_ucall */
	__u32 flags; /* KATRA_UC_* */
	__u64 a[4];  /* see above */
	__s64 ret;   /* EXIT: the return value */
};

/* One ntdll.so file whose syscall dispatcher is probed (BPF array map
 * nt_files, index = the slot, the uprobes' attach cookie): ELF virtual
 * addresses of the dispatcher's `call *(%r10,%rax,8)` and of the syscall
 * table (so a probe tells its load bias, ip - call_vaddr, and whether r10 is
 * this table: other tables, win32u's, are not written), the table's size,
 * and the numbers left to a function probe of their own (skip bits). */
/* The attach cookie of the probes on an ntdll.so's functions (NtReadFile,
 * wine_server_call, ...) and on its Win->Unix dispatcher: how that build
 * passes arguments, decided from its own code (uprobes_wine.c).  0: the
 * Windows x64 convention (Wine 8: rcx, rdx, r8, r9, the stack from sp+40),
 * and the unix dispatcher probed after its prologue (r10, rdx, r8);
 * KATRA_NT_ABI_SYSV: System V (Wine 10: rdi, rsi, rdx, rcx, r8, r9, the stack
 * from sp+8), and the unix dispatcher probed at its call (r10, rdx, rdi). */
#define KATRA_NT_ABI_SYSV 1u
#define KATRA_NT_SKIP_WORDS 16 /* numbers 0..1023 */
#define KATRA_NT_FILES 16
/* katra_nt_file.flags, from the dispatcher's code: it loads r10 from rbx,
 * the thread's entry of its table of syscall tables (mov (%rbx),%r10 before
 * the call), so table 1 (win32u's) is the r10 whose previous entry is this
 * ntdll.so's table; it finds its frame from rbp after the call (lea
 * disp32(%rbp),%rcx), so rbp tells one dispatcher level from another. */
#define KATRA_NT_FILE_TABLE1 1u
#define KATRA_NT_FILE_FRAME  2u
struct katra_nt_file {
	__u64 call_vaddr;
	__u64 table_vaddr;
	__u32 count;
	__u32 flags;
	__u64 skip[KATRA_NT_SKIP_WORDS];
};

/* Size of each record type, indexed by type (0 = invalid). */
#define KATRA_WIRE_SIZES                                                                      \
	{                                                                                     \
		0, sizeof(struct katra_ev_syscall), sizeof(struct katra_ev_path),             \
		sizeof(struct katra_ev_switch), sizeof(struct katra_ev_waking),               \
		sizeof(struct katra_ev_fork), sizeof(struct katra_ev_exec),                   \
		sizeof(struct katra_ev_exit), sizeof(struct katra_ev_page_fault),             \
		sizeof(struct katra_ev_uring_create), sizeof(struct katra_ev_uring_submit),   \
		sizeof(struct katra_ev_uring_complete), sizeof(struct katra_ev_syscall_short), \
		sizeof(struct katra_ev_ucall), sizeof(struct katra_ev_task_rename),           \
		sizeof(struct katra_ev_batch), sizeof(struct katra_ev_syscall_end),           \
		sizeof(struct katra_ev_gpu_fence), sizeof(struct katra_ev_gpu_timeline),       \
		sizeof(struct katra_ev_gpu_cmd), sizeof(struct katra_ev_syscall_mid),         \
		sizeof(struct katra_ev_syscall_mid),                                          \
	}

#include "wire_stacks.h" /* call stacks (--stacks): the stack ring's records */

/* Both sides compile these: a layout change cannot go unnoticed. */
#define KATRA_WIRE_ASSERT(c, m) _Static_assert(c, m)
KATRA_WIRE_ASSERT(sizeof(struct katra_wire_head) == 24, "wire head");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_syscall) == 128, "syscall record");
KATRA_WIRE_ASSERT(__builtin_offsetof(struct katra_ev_syscall, aux) == 72, "syscall END prefix");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_syscall_short) == 48, "short syscall record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_syscall_mid) == 96, "mid syscall record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_syscall_end) == 72 &&
			  __builtin_offsetof(struct katra_ev_syscall_end, ino) ==
				  __builtin_offsetof(struct katra_ev_syscall, ino),
		  "syscall END record: the syscall record's prefix");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_path) == 48 + KATRA_PATH_MAX, "path record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_switch) == 48, "switch record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_waking) == 64, "waking record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_fork) == 56, "fork record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_exec) == 48, "exec record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_exit) == 32, "exit record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_batch) == 32, "batch header");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_page_fault) == 64, "page fault record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_uring_create) == 48, "uring create record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_uring_submit) == 64, "uring submit record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_uring_complete) == 64, "uring complete record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_ucall) == 72, "ucall record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_task_rename) == 48, "task rename record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_gpu_fence) == 48, "gpu fence record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_gpu_timeline) == 96, "gpu timeline record");
KATRA_WIRE_ASSERT(sizeof(struct katra_ev_gpu_cmd) == 64, "gpu command record");
KATRA_WIRE_ASSERT(sizeof(struct katra_nt_file) == 24 + 8 * KATRA_NT_SKIP_WORDS, "nt file");
KATRA_WIRE_ASSERT(sizeof(struct katra_cpu_slot) == 128, "cpu slot: two cache lines");
KATRA_WIRE_ASSERT(__builtin_offsetof(struct katra_cpu_slot, busy) == 112, "cpu slot busy");
KATRA_WIRE_ASSERT(__builtin_offsetof(struct katra_cpu_slot, busy_seq) == 112, "cpu slot busy_seq");
KATRA_WIRE_ASSERT(KATRA_STACK_HEAD_BYTES == 392 + 8 + 8 * KATRA_STACK_KDEPTH, "stack record header");
KATRA_WIRE_ASSERT(sizeof(struct katra_wine_frame_offs) == 24, "wine frame offsets");

#endif /* KATRA_WIRE_H */
