/* SPDX-License-Identifier: GPL-2.0-only */
/* Katra trace format v1: the C types that mirror format/schema.txt, and the
 * codec, writer, reader and verifier that work on them.
 *
 * format/SPEC.md is normative; these types follow it field by field.  Strings
 * and vectors are (pointer, length) views: the encoder reads the caller's
 * memory, the decoder points into an arena owned by the reader, so neither
 * allocates per record. */
#ifndef KATRA_FORMAT_H
#define KATRA_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KATRA_MAGIC "KATRATRC"
#define KATRA_MAGIC_LEN 8
#define KATRA_FORMAT_VERSION 1u
/* Reader limits: a length beyond these is corruption, never an allocation. */
#define KATRA_MAX_HEADER_LEN (1u << 20)
#define KATRA_MAX_RECORD_LEN (16u << 20)

/* FNV-1a 64 of format/schema.txt, generated at build time. */
extern const uint64_t katra_schema_hash;

struct katra_str {
	const char *ptr; /* not necessarily NUL-terminated when encoding */
	uint64_t len;
};

struct katra_opt_u64 {
	bool present;
	uint64_t value;
};

struct katra_opt_u32 {
	bool present;
	uint32_t value;
};

struct katra_opt_i32 {
	bool present;
	int32_t value;
};

struct katra_opt_str {
	bool present;
	struct katra_str value;
};

struct katra_u64_vec {
	const uint64_t *items;
	uint64_t len;
};

struct katra_str_vec {
	const struct katra_str *items;
	uint64_t len;
};

/* ---- enums (values are the bincode variant indices) ---- */

enum katra_scope {
	KATRA_SCOPE_WINDOWS_FACING = 0,
	KATRA_SCOPE_WINE_PROTON = 1,
	KATRA_SCOPE_LINUX = 2,
	KATRA_SCOPE_D3D12_VKD3D = 3,
	KATRA_SCOPE_VULKAN = 4,
	KATRA_SCOPE_GPU = 5,
	KATRA_SCOPE_KATRA = 6,
	KATRA_SCOPE_COUNT
};

enum katra_phase {
	KATRA_PHASE_INSTANT = 0,
	KATRA_PHASE_BEGIN = 1,
	KATRA_PHASE_END = 2,
	KATRA_PHASE_COUNT
};

enum katra_confidence {
	KATRA_CONFIDENCE_MEASURED = 0,
	KATRA_CONFIDENCE_INFERRED = 1,
	KATRA_CONFIDENCE_ESTIMATED = 2,
	KATRA_CONFIDENCE_COUNT
};

enum katra_event_kind {
	KATRA_KIND_SYSCALL = 0,
	KATRA_KIND_FILE_READ,
	KATRA_KIND_FILE_WRITE,
	KATRA_KIND_FILE_OPEN,
	KATRA_KIND_FILE_CLOSE,
	KATRA_KIND_MEMORY_MAP,
	KATRA_KIND_MEMORY_UNMAP,
	KATRA_KIND_MEMORY_PROTECT,
	KATRA_KIND_MEMORY_ADVISE,
	KATRA_KIND_FUTEX,
	KATRA_KIND_EPOLL_WAIT, /* 10 */
	KATRA_KIND_POLL,
	KATRA_KIND_SLEEP,
	KATRA_KIND_IO_URING_ENTER,
	KATRA_KIND_SOCKET_SEND,
	KATRA_KIND_SOCKET_RECV,
	KATRA_KIND_EXECVE,
	KATRA_KIND_CLONE,
	KATRA_KIND_TASK_FORK,
	KATRA_KIND_TASK_EXEC,
	KATRA_KIND_TASK_EXIT, /* 20 */
	KATRA_KIND_OFF_CPU,
	KATRA_KIND_WAKEUP,
	KATRA_KIND_PAGE_FAULT,
	KATRA_KIND_IO_URING_SUBMIT,
	KATRA_KIND_IO_URING_COMPLETE,
	KATRA_KIND_IO_URING_CREATE,
	KATRA_KIND_NT_READ_FILE,
	KATRA_KIND_NT_WRITE_FILE,
	KATRA_KIND_NT_CREATE_FILE,
	KATRA_KIND_NT_WAIT, /* 30 */
	KATRA_KIND_NT_DELAY_EXECUTION,
	KATRA_KIND_NT_MAP_VIEW_OF_SECTION,
	KATRA_KIND_NT_ALLOCATE_VIRTUAL_MEMORY,
	KATRA_KIND_NT_CREATE_USER_PROCESS,
	KATRA_KIND_WINE_SERVER_CALL,
	KATRA_KIND_WIN_TO_UNIX,
	KATRA_KIND_VULKAN_QUEUE_SUBMIT,
	KATRA_KIND_VULKAN_QUEUE_PRESENT,
	KATRA_KIND_VULKAN_FENCE_WAIT,
	KATRA_KIND_EPOCH, /* 40 */
	KATRA_KIND_COUNTER,
	KATRA_KIND_DROP,
	KATRA_KIND_PROCESS_INFO,
	KATRA_KIND_NT_SYSCALL,          /* 44: any NT system call (generic span) */
	KATRA_KIND_WINE_SERVER_REQUESTS, /* 45: a wineserver's request names */
	KATRA_KIND_TASK_RENAME,         /* 46: a thread's comm changed (prctl, /proc) */
	KATRA_KIND_WINE_UNIX_CALL_NAMES, /* 47: a unix library's call names (winevulkan) */
	KATRA_KIND_D3D12_EXECUTE_COMMAND_LISTS, /* 48: ID3D12CommandQueue::ExecuteCommandLists */
	KATRA_KIND_D3D12_QUEUE_SIGNAL,          /* 49: ID3D12CommandQueue::Signal */
	KATRA_KIND_D3D12_QUEUE_WAIT,            /* 50: ID3D12CommandQueue::Wait */
	KATRA_KIND_D3D12_FENCE_SET_EVENT,       /* 51: ID3D12Fence::SetEventOnCompletion */
	KATRA_KIND_D3D12_FENCE_SIGNAL,          /* 52: ID3D12Fence::Signal */
	KATRA_KIND_VULKAN_SEMAPHORE_WAIT,       /* 53: vkWaitSemaphores */
	KATRA_KIND_VULKAN_ACQUIRE_NEXT_IMAGE,   /* 54: vkAcquireNextImageKHR */
	KATRA_KIND_GPU_FENCE_INIT,          /* 55: a dma_fence made (dma_fence:dma_fence_init) */
	KATRA_KIND_GPU_FENCE_EMIT,          /* 56: handed to the hardware */
	KATRA_KIND_GPU_FENCE_ENABLE_SIGNAL, /* 57: someone asked to be told when it signals */
	KATRA_KIND_GPU_FENCE_SIGNALED,      /* 58: it signalled */
	KATRA_KIND_GPU_FENCE_WAIT,          /* 59: a thread waiting on it (span) */
	KATRA_KIND_GPU_FENCE_DESTROY,       /* 60: freed without having signalled */
	KATRA_KIND_GPU_TIMELINE,            /* 61: a fence context's driver and timeline names */
	KATRA_KIND_GPU_JOB_QUEUE,           /* 62: a GPU scheduler job queued (its finished fence) */
	KATRA_KIND_GPU_JOB_RUN,             /* 63: ... handed to its ring */
	KATRA_KIND_GPU_JOB_DONE,            /* 64: ... completed by the ring */
	KATRA_KIND_GPU_VBLANK,              /* 65: a vertical blank on a CRTC (drm:drm_vblank_event) */
	KATRA_KIND_GPU_VBLANK_QUEUED,       /* 66: a vblank event asked for (drm_vblank_event_queued) */
	KATRA_KIND_GPU_VBLANK_DELIVERED,    /* 67: ... sent to its file: a flip done, a wait over */
	KATRA_KIND_GPU_CMD_QUEUE,           /* 68: a driver's command queued to its device (virtio_gpu) */
	KATRA_KIND_GPU_CMD_RESPONSE,        /* 69: ... the device's response to it */
	KATRA_KIND_COUNT
};

enum katra_resource_domain {
	KATRA_RES_NONE = 0,
	KATRA_RES_FILE,
	KATRA_RES_FUTEX,
	KATRA_RES_MEMORY,
	KATRA_RES_THREAD,
	KATRA_RES_PROCESS,
	KATRA_RES_IO_URING,
	KATRA_RES_SOCKET,
	KATRA_RES_WIN_HANDLE,
	KATRA_RES_VULKAN_QUEUE,
	KATRA_RES_RING,
	KATRA_RES_PIPE,       /* 11: an anonymous pipe; id its pipefs inode number */
	KATRA_RES_ANON_INODE, /* 12: an anon inode; id an enum katra_anon_inode */
	KATRA_RES_D3D12_OBJECT, /* 13: a D3D12 queue or fence; id its address in the process */
	KATRA_RES_GPU_TIMELINE, /* 14: a dma_fence context (32 bits, as its tracepoints give it) */
	KATRA_RES_DISPLAY_CRTC, /* 15: a display CRTC; id its index (pipe) on its DRM device */
	KATRA_RES_COUNT
};

/* The id of a ResourceDomain AnonInode: which kind of anon inode (SPEC 5.3). */
enum katra_anon_inode {
	KATRA_ANON_OTHER = 0, /* a name this table does not hold */
	KATRA_ANON_EVENTFD,
	KATRA_ANON_EVENTPOLL,
	KATRA_ANON_TIMERFD,
	KATRA_ANON_SIGNALFD,
	KATRA_ANON_INOTIFY,
	KATRA_ANON_FANOTIFY,
	KATRA_ANON_IO_URING,
	KATRA_ANON_USERFAULTFD,
	KATRA_ANON_PIDFD,
	KATRA_ANON_PERF_EVENT,
	KATRA_ANON_BPF_MAP,
	KATRA_ANON_BPF_PROG,
	KATRA_ANON_BPF_LINK,
	KATRA_ANON_COUNT
};

enum katra_drop_source {
	KATRA_DROP_RING_RESERVE = 0,
	KATRA_DROP_SPAN_TABLE,
	KATRA_DROP_WAKEUP_TABLE,
	KATRA_DROP_IO_URING_TABLE,
	KATRA_DROP_REORDER,
	KATRA_DROP_KERNEL_TABLE, /* instance: enum katra_kernel_table */
	KATRA_DROP_PROGRAM_SKIPPED, /* instance: the probe's index in probes_attached */
	KATRA_DROP_STACKS, /* instance: 0 the thread-slot table full, 1 the stack ring full */
	KATRA_DROP_SOURCE_COUNT
};

/* How a traced process came into the capture (ProcessInfoPayload.origin). */
enum katra_process_origin {
	KATRA_ORIGIN_TARGET = 0,   /* a -p PID */
	KATRA_ORIGIN_COMMAND,      /* the -- COMMAND */
	KATRA_ORIGIN_DESCENDANT,   /* already below a target when the capture started */
	KATRA_ORIGIN_FORKED,       /* forked by a traced process during the capture */
	KATRA_ORIGIN_WINE_SESSION, /* a member of a target's Wine session at start */
	KATRA_ORIGIN_WINE_JOINED,  /* joined that Wine session during the capture */
	KATRA_ORIGIN_COUNT
};

/* Where the kernel ran an outside waker's wakeup (WakeupOutsidePayload.context). */
enum katra_waker_context {
	KATRA_WAKER_TASK = 0,  /* in a task's own context: waker_pid/tid/comm name it */
	KATRA_WAKER_INTERRUPT, /* in an interrupt (hardirq, softirq, NMI): no task to name */
	KATRA_WAKER_CONTEXT_COUNT
};

/* The instance of a DropSource::KernelTable drop: which kernel map refused or
 * evicted an entry (SPEC §10). */
enum katra_kernel_table {
	KATRA_KTABLE_SYSCALLS = 0, /* syscalls in flight off-CPU */
	KATRA_KTABLE_FAULTS,       /* page faults in flight */
	KATRA_KTABLE_URING,        /* io_uring contexts of traced processes */
	KATRA_KTABLE_EXITING,      /* processes whose last threads are exiting */
	KATRA_KTABLE_UCALLS,       /* uprobed calls (Wine, Vulkan) in flight */
	KATRA_KTABLE_GPU,          /* dma_fences of traced processes not yet signalled */
	KATRA_KTABLE_GPU_TOTALS,   /* the GPU layer's counts: fences in flight, contexts */
	KATRA_KTABLE_COUNT
};

enum katra_epoch_kind {
	KATRA_EPOCH_CAPTURE_START = 0,
	KATRA_EPOCH_CAPTURE_END,
	KATRA_EPOCH_SIGNAL,
	KATRA_EPOCH_FIFO,
	KATRA_EPOCH_USER,
	KATRA_EPOCH_FRAME, /* a present on a swapchain ended a frame (SPEC section 10) */
	KATRA_EPOCH_KIND_COUNT
};

enum katra_counter_kind {
	KATRA_COUNTER_EVENTS_RECORDED = 0,
	KATRA_COUNTER_EVENTS_DROPPED,
	KATRA_COUNTER_RING_FILL_BYTES,
	KATRA_COUNTER_RING_CAPACITY_BYTES,
	KATRA_COUNTER_OPEN_SPANS,
	KATRA_COUNTER_BYTES_WRITTEN,
	/* per dma_fence context (instance): other processes' GPU work, counted
	 * in the kernel, and the timeline's busy time over all its work */
	KATRA_COUNTER_GPU_OTHER_FENCES,
	KATRA_COUNTER_GPU_OTHER_FENCE_NS,
	KATRA_COUNTER_GPU_OTHER_BUSY_NS,
	KATRA_COUNTER_GPU_OTHER_JOBS,
	KATRA_COUNTER_GPU_OTHER_RING_BUSY_NS,
	KATRA_COUNTER_GPU_TIMELINE_BUSY_NS,
	KATRA_COUNTER_GPU_RING_BUSY_NS,
	KATRA_COUNTER_KIND_COUNT
};

enum katra_payload_type {
	KATRA_PAYLOAD_NONE = 0,
	KATRA_PAYLOAD_SYSCALL,
	KATRA_PAYLOAD_SYSCALL_RETURN,
	KATRA_PAYLOAD_FILE_IO,
	KATRA_PAYLOAD_FILE_OPEN,
	KATRA_PAYLOAD_FILE_CLOSE,
	KATRA_PAYLOAD_MEMORY_MAP,
	KATRA_PAYLOAD_MEMORY_RANGE,
	KATRA_PAYLOAD_FUTEX,
	KATRA_PAYLOAD_WAIT,
	KATRA_PAYLOAD_IO_URING_ENTER, /* 10 */
	KATRA_PAYLOAD_SOCKET_MSG,
	KATRA_PAYLOAD_EXECVE,
	KATRA_PAYLOAD_CLONE,
	KATRA_PAYLOAD_TASK_FORK,
	KATRA_PAYLOAD_TASK_EXEC,
	KATRA_PAYLOAD_TASK_EXIT,
	KATRA_PAYLOAD_SWITCH,
	KATRA_PAYLOAD_WAKEUP,
	KATRA_PAYLOAD_PAGE_FAULT,
	KATRA_PAYLOAD_IO_URING_SUBMIT, /* 20 */
	KATRA_PAYLOAD_IO_URING_COMPLETE,
	KATRA_PAYLOAD_IO_URING_CREATE,
	KATRA_PAYLOAD_NT_CALL,
	KATRA_PAYLOAD_WINE_SERVER_CALL,
	KATRA_PAYLOAD_VULKAN,
	KATRA_PAYLOAD_DROP,
	KATRA_PAYLOAD_PROCESS_INFO,
	KATRA_PAYLOAD_NT_SYSCALL,
	KATRA_PAYLOAD_WINE_SERVER_REQUESTS,
	KATRA_PAYLOAD_TASK_RENAME,
	KATRA_PAYLOAD_D3D12, /* 31 */
	KATRA_PAYLOAD_WAKEUP_OUTSIDE, /* a Wakeup whose waker is outside the traced set */
	KATRA_PAYLOAD_GPU_FENCE,    /* 33 */
	KATRA_PAYLOAD_GPU_TIMELINE, /* 34 */
	KATRA_PAYLOAD_GPU_VBLANK,   /* 35 */
	KATRA_PAYLOAD_GPU_CMD,      /* 36 */
	KATRA_PAYLOAD_COUNT
};

enum katra_record_type {
	KATRA_RECORD_EVENT = 0,
	KATRA_RECORD_EPOCH_MARKER,
	KATRA_RECORD_COUNTER,
	KATRA_RECORD_SESSION_SUMMARY,
	KATRA_RECORD_MODULE,
	KATRA_RECORD_STACK,
	KATRA_RECORD_STACK_OF,
	KATRA_RECORD_SYMBOLS,
	KATRA_RECORD_COUNT
};

/* ---- header ---- */

struct katra_capture_options {
	struct katra_u64_vec target_pids;
	bool follow_children;
	bool record_paths;
	uint64_t buffer_size_bytes;
	struct katra_opt_u64 duration_limit_ns;
	uint64_t counter_interval_ns;
	uint64_t reorder_window_ns;
};

struct katra_host_info {
	struct katra_str hostname;
	struct katra_str os;
	struct katra_str kernel_release;
	struct katra_str machine;
	uint32_t cpu_count;
	uint32_t page_size;
};

struct katra_header {
	uint32_t format_version;
	uint64_t schema_hash;
	struct katra_str tool_version;
	struct katra_capture_options capture_options;
	uint64_t start_wall_ns;
	uint64_t start_mono_ns;
	uint64_t process_id;
	struct katra_str workload;
	struct katra_host_info host;
	struct katra_str_vec notes;
};

/* ---- payloads ---- */

struct katra_resource {
	uint32_t domain; /* enum katra_resource_domain */
	uint64_t id;
};

struct katra_payload {
	uint32_t type; /* enum katra_payload_type */
	union {
		struct { uint32_t nr; } syscall;
		struct { uint32_t nr; int64_t ret; } syscall_return;
		struct { int32_t fd; uint64_t count; struct katra_opt_u64 offset; uint32_t iov_count; } file_io;
		struct { int32_t dirfd; uint32_t flags; uint32_t mode; struct katra_opt_str path; } file_open;
		struct { int32_t fd; } file_close;
		struct { uint64_t addr, len; uint32_t prot, flags; int32_t fd; uint64_t offset; } memory_map;
		struct { uint64_t addr, len, arg; } memory_range;
		struct { uint64_t uaddr; uint32_t op, val; } futex;
		struct { int64_t handle; uint32_t count; struct katra_opt_u64 timeout_ns; } wait;
		struct { int32_t fd; uint32_t to_submit, min_complete, flags; } io_uring_enter;
		struct { int32_t fd; uint32_t flags; } socket_msg;
		struct { struct katra_opt_str path; } execve;
		struct { uint64_t flags; } clone;
		struct { uint64_t parent_pid, parent_tid, child_pid, child_tid; bool is_thread; } task_fork;
		struct { uint64_t old_tid; struct katra_opt_str path; } task_exec;
		struct { int32_t exit_code; bool group_dead; } task_exit;
		struct { uint32_t cpu; uint64_t prev_state; } sched_switch;
		struct { uint64_t target_tid, target_pid; uint32_t target_cpu; } wakeup;
		struct { uint64_t address, ip, error_code; } page_fault;
		struct { uint64_t ctx, user_data; uint32_t opcode, flags; int32_t fd; } io_uring_submit;
		struct { uint64_t ctx, user_data; int32_t res; uint32_t cflags; } io_uring_complete;
		struct { uint64_t ctx; int32_t fd; uint32_t sq_entries, cq_entries, flags; } io_uring_create;
		struct { uint64_t handle, length; struct katra_opt_u64 offset; struct katra_opt_u32 status; } nt_call;
		struct { uint32_t request; struct katra_opt_u32 status; } wine_server_call;
		struct { uint64_t handle; uint32_t count; struct katra_opt_i32 result; } vulkan;
		struct { uint32_t source; uint32_t instance; uint64_t count; } drop;
		struct { struct katra_str comm; struct katra_opt_str exe_path, windows_image; uint32_t origin; } process_info;
		struct { uint32_t number; struct katra_opt_str name; struct katra_opt_u32 status; } nt_syscall;
		struct { struct katra_str_vec names; } wine_server_requests;
		struct { struct katra_str comm; } task_rename;
		struct { uint64_t object, fence, value; uint32_t count; uint64_t event;
			 struct katra_opt_i32 result; } d3d12;
		struct { uint64_t target_tid, target_pid; uint32_t target_cpu;
			 uint64_t waker_pid, waker_tid; struct katra_str waker_comm;
			 uint32_t context; } wakeup_outside;
		struct { uint64_t context, seqno; } gpu_fence;
		struct { uint64_t context; struct katra_str driver, timeline; } gpu_timeline;
		struct { uint64_t crtc, sequence; } gpu_vblank;
		struct { uint32_t cmd_type, flags; uint64_t fence_id; uint32_t ctx_id; } gpu_cmd;
	} u;
};

/* ---- records ---- */

struct katra_event {
	uint64_t seq;
	uint64_t ts_mono_ns;
	uint64_t ts_wall_ns;
	uint64_t thread_id;
	uint64_t process_id;
	uint32_t scope;      /* enum katra_scope */
	uint32_t kind;       /* enum katra_event_kind */
	uint32_t phase;      /* enum katra_phase */
	struct katra_opt_u64 span_id;
	struct katra_opt_u64 request_id;
	struct katra_u64_vec causes;
	struct katra_resource resource;
	struct katra_payload payload;
	struct katra_opt_u64 cost_estimate_ns;
	uint32_t confidence; /* enum katra_confidence */
};

struct katra_epoch_marker {
	uint64_t seq;
	uint64_t ts_mono_ns;
	uint64_t ts_wall_ns;
	uint64_t epoch;
	uint32_t kind; /* enum katra_epoch_kind */
	struct katra_str name;
};

struct katra_counter {
	uint64_t seq;
	uint64_t ts_mono_ns;
	uint64_t ts_wall_ns;
	uint32_t kind; /* enum katra_counter_kind */
	uint32_t instance;
	uint64_t value;
};

struct katra_kind_count {
	uint32_t kind;
	uint64_t count;
};

struct katra_drop_count {
	uint32_t source;
	uint32_t instance;
	uint64_t count;
};

struct katra_summary {
	uint64_t event_count;
	uint64_t epoch_count;
	uint64_t counter_count;
	uint64_t duration_ns;
	const struct katra_kind_count *events_by_kind;
	uint64_t events_by_kind_len;
	uint64_t dropped_events;
	const struct katra_drop_count *drops;
	uint64_t drops_len;
	uint64_t inferred_events;
	struct katra_str_vec probes_attached;
	struct katra_str_vec probes_failed;
	uint64_t processes_seen;
	uint64_t threads_seen;
};

/* ---- call stacks (SPEC 5.7) ---- */

enum katra_stack_site {
	KATRA_SITE_OFF_CPU = 0,
	KATRA_SITE_SYSCALL,
	KATRA_SITE_SAMPLE, /* a timer sample of a running thread (--sample-hz) */
	KATRA_STACK_SITE_COUNT
};

/* A file whose code a stack names: id (from 1; 0 in a frame is "no
 * module"), its name (a basename, the whole path with --paths), its ELF
 * build id in lowercase hex (empty when it has none). */
/* A Windows PE image's identity (a module of Wine's PE side): its COFF
 * header's TimeDateStamp and SizeOfImage (how symbol servers index the
 * image), and its CodeView record (RSDS) naming the PDB: its GUID as
 * 32 lowercase hex digits in the order symbol servers print it, its age,
 * its file name */
struct katra_pe_identity {
	uint32_t time_date_stamp;
	uint32_t size_of_image;
	struct katra_str pdb_guid;
	uint32_t pdb_age;
	struct katra_str pdb_name;
};

struct katra_module {
	uint32_t id;
	struct katra_str name;
	struct katra_str build_id;
	bool has_pe; /* Option<PeIdentity> */
	struct katra_pe_identity pe;
};

struct katra_stack_frame {
	uint32_t module;  /* a Module's id, or 0: address is the absolute pc */
	uint64_t address; /* in the module's own ELF address space */
};

struct katra_stack {
	uint64_t id;
	const struct katra_stack_frame *frames; /* innermost first */
	uint64_t frames_len;
	struct katra_str_vec kernel; /* "symbol+0xoff", innermost first */
	bool truncated;
};

struct katra_stack_of {
	uint64_t stack_id;
	uint64_t thread_id;
	uint64_t process_id;
	uint64_t begin_ns; /* the span's Begin ts_mono_ns */
	uint64_t duration_ns;
	uint32_t site; /* enum katra_stack_site */
};

/* A stack address of a module named by the recorder from the file the
 * process mapped: the function holding it (an inlined one's own name) and
 * address's offset from the function's start */
struct katra_symbol_name {
	uint64_t address; /* as StackFrame.address */
	struct katra_str name;
	uint64_t offset;
};

struct katra_symbols {
	uint32_t module; /* a Module's id */
	const struct katra_symbol_name *names; /* by address, ascending */
	uint64_t names_len;
};

struct katra_record {
	uint32_t type; /* enum katra_record_type */
	union {
		struct katra_event event;
		struct katra_epoch_marker epoch;
		struct katra_counter counter;
		struct katra_summary summary;
		struct katra_module module;
		struct katra_stack stack;
		struct katra_stack_of stack_of;
		struct katra_symbols symbols;
	} u;
};

/* ---- names (the spec's variant names; NULL when out of range) ---- */

const char *katra_scope_name(uint32_t v);
const char *katra_phase_name(uint32_t v);
const char *katra_confidence_name(uint32_t v);
const char *katra_kind_name(uint32_t v);
const char *katra_resource_domain_name(uint32_t v);
/* An AnonInode id's dentry name as the kernel gives it and /proc/PID/fd
 * shows it after "anon_inode:" ("[eventfd]", "inotify"); NULL for Other
 * and ids past the table. */
const char *katra_anon_inode_dname(uint64_t id);
/* The AnonInode id of a dentry name (len bytes; a NUL ends it sooner). */
uint64_t katra_anon_inode_of(const char *name, size_t len);
const char *katra_drop_source_name(uint32_t v);
const char *katra_epoch_kind_name(uint32_t v);
const char *katra_counter_kind_name(uint32_t v);
const char *katra_payload_name(uint32_t v);
const char *katra_record_type_name(uint32_t v);
const char *katra_process_origin_name(uint32_t v);
const char *katra_stack_site_name(uint32_t v);
const char *katra_waker_context_name(uint32_t v);

static inline struct katra_str katra_cstr(const char *s)
{
	struct katra_str r = { s, 0 };
	if (s)
		while (s[r.len])
			r.len++;
	return r;
}

/* ---- codec (user/format/encode.c, decode.c) ----
 * Encoders write into out[0..cap) and return the number of bytes, or
 * -ENOSPC when cap is too small (nothing is promised about out then).
 * katra_encoded_*_size gives the exact size without writing. */
long katra_encode_header(const struct katra_header *h, uint8_t *out, size_t cap);
long katra_encode_record(const struct katra_record *r, uint8_t *out, size_t cap);
size_t katra_encoded_record_size(const struct katra_record *r);
/* An Event record (variant tag + event) straight from the event. */
long katra_encode_event_record(const struct katra_event *ev, uint8_t *out, size_t cap);

/* Decoding: strings and vectors are placed in an arena; every length is
 * checked against the bytes that remain before anything is reserved, so the
 * arena never exceeds 2 * input + a constant. */
struct katra_arena {
	uint8_t *base;
	size_t cap;
	size_t used;
};
void katra_arena_reset(struct katra_arena *a);
void katra_arena_free(struct katra_arena *a);

struct katra_decode_error {
	size_t offset;       /* byte offset within the decoded buffer */
	char message[160];
};

/* Returns 0, or -EINVAL (malformed: err says what and where) or -ENOMEM.
 * Trailing bytes after a complete value are allowed (bincode 1.x). */
int katra_decode_header(const uint8_t *in, size_t len, struct katra_header *h,
			struct katra_arena *arena, struct katra_decode_error *err);
int katra_decode_record(const uint8_t *in, size_t len, struct katra_record *r,
			struct katra_arena *arena, struct katra_decode_error *err);

/* ---- writer (user/format/writer.c) ---- */
struct katra_writer;

/* Records are encoded into a buffer and written when full (or at least
 * every 100 ms of capture): for a plain trace one of this size (a 2 MiB
 * huge page less the lead a direct write needs), for a compressed one of
 * KATRA_WRITER_GZIP_BUFFER_BYTES (each buffer ends in a sync flush). */
#define KATRA_WRITER_BUFFER_BYTES ((2u << 20) - 4096u)
#define KATRA_WRITER_GZIP_BUFFER_BYTES (1u << 20)

enum katra_writer_flags {
	KATRA_WRITER_OVERWRITE = 1 << 0, /* replace an existing regular file */
	/* gzip the whole stream (SPEC section 11): every flush is a Z_SYNC_FLUSH,
	 * so a killed capture decompresses up to its last flush */
	KATRA_WRITER_GZIP = 1 << 1,
};

/* Creates path 0600 with O_NOFOLLOW|O_CLOEXEC (O_EXCL unless OVERWRITE) and
 * writes the framing and header.  Returns 0 or -errno. */
/* path "-" writes to standard output. */
int katra_writer_open(struct katra_writer **out, const char *path,
		      const struct katra_header *h, unsigned flags);
/* As katra_writer_open, on a file the caller opened (the writer owns fd from
 * here, closed on failure too); shared: others may write it as well (a
 * standard output), so it is written in order, never at offsets. */
int katra_writer_open_fd(struct katra_writer **out, int fd, bool shared,
			 const struct katra_header *h, unsigned flags);
/* Appends one record (u32 length + bincode).  Buffered; no allocation. */
int katra_writer_append(struct katra_writer *w, const struct katra_record *r);
/* As append, for an Event: encodes straight from *ev (no record copy). */
int katra_writer_append_event(struct katra_writer *w, const struct katra_event *ev);
/* A syscall span's events, the most common ones: Linux scope, Measured,
 * its span, no request; the bytes of katra_writer_append_event for them,
 * encoded with the fixed fields as constants.  Their fields come as
 * scalars, not a struct: each goes from the caller's register to the
 * buffer (a struct written field by field and read back in wider loads
 * stalled the CPU on every event).  Wall times are the monotonic ones
 * plus wall_offset; the resource is (res_domain, res_id).
 * The End: seq, one cause (its Begin's seq), a SyscallReturn of nr, ret. */
int katra_writer_append_syscall_end(struct katra_writer *w, uint64_t seq, uint64_t span,
				    uint64_t cause, uint64_t tid, uint64_t pid, uint32_t kind,
				    uint32_t nr, uint64_t ts, uint64_t wall_offset,
				    uint32_t res_domain, uint64_t res_id, int64_t ret);
/* The Begin: no cause, the payload *pl. */
int katra_writer_append_syscall_begin(struct katra_writer *w, uint64_t seq, uint64_t span,
				      uint64_t tid, uint64_t pid, uint32_t kind, uint64_t ts,
				      uint64_t wall_offset, uint32_t res_domain, uint64_t res_id,
				      const struct katra_payload *pl);
/* A Begin and its End right after it: the bytes of the two calls above, in
 * one, for Begin seq at enter_ns and End seq + 1 (its cause: seq) at
 * exit_ns. */
int katra_writer_append_syscall_pair(struct katra_writer *w, uint64_t seq, uint64_t span,
				     uint64_t tid, uint64_t pid, uint32_t kind, uint32_t nr,
				     uint64_t enter_ns, uint64_t exit_ns, uint64_t wall_offset,
				     uint32_t res_domain, uint64_t res_id, int64_t ret,
				     const struct katra_payload *pl);
/* An io_uring request's submission or completion: Linux scope, an
 * instant, Measured, the ring as its resource, the user_data as its
 * request, at most one cause (a submission: its thread's fork; a
 * completion: its submission).  The bytes of katra_writer_append_event for
 * that Event. */
struct katra_io_uring_req {
	uint64_t seq, ts_mono_ns, ts_wall_ns, thread_id, process_id;
	uint32_t kind; /* KATRA_KIND_IO_URING_SUBMIT or KATRA_KIND_IO_URING_COMPLETE */
	uint32_t ncauses; /* 0 or 1 */
	uint64_t cause;
	uint64_t ctx, user_data;
	uint32_t opcode, flags; /* a submission's */
	int32_t res;            /* a completion's */
	uint32_t cflags;
};
int katra_writer_append_io_uring(struct katra_writer *w, const struct katra_io_uring_req *r);
/* The Payload of that Event (the general path's, e.g. with frames tagged) */
void katra_io_uring_payload(struct katra_payload *p, const struct katra_io_uring_req *r,
			    uint32_t kind);
/* Writes buffered bytes to the file (no fsync); returns once they are in it. */
int katra_writer_flush(struct katra_writer *w);
/* Hands buffered bytes to the output thread and returns without waiting for
 * them to reach the file (only for an earlier hand-over still in flight): a
 * capture's periodic flush, which must not hold the drain while the disk
 * works.  With KATRA_WRITER_GZIP it is katra_writer_flush.  0, or the
 * sticky error of an earlier write. */
int katra_writer_kick(struct katra_writer *w);
/* Appends the SessionSummary, flushes and fsyncs.  The writer stays open
 * until katra_writer_close. */
int katra_writer_finish(struct katra_writer *w, const struct katra_summary *s);
/* Flushes (if not finished) and frees; returns the first error seen. */
int katra_writer_close(struct katra_writer *w);
uint64_t katra_writer_records(const struct katra_writer *w);
/* Bytes of the Katra stream so far (uncompressed), buffered ones included. */
uint64_t katra_writer_bytes(const struct katra_writer *w);
/* Bytes in the file: the compressed size with KATRA_WRITER_GZIP (up to the
 * last flush), else the stream bytes already written. */
uint64_t katra_writer_file_bytes(const struct katra_writer *w);
/* Bytes the plain writer sent with O_DIRECT so far (up to the last flush),
 * and whether it still writes directly (false once the file system or the
 * device refused a direct write, or for a gzip or shared output). */
uint64_t katra_writer_direct_bytes(const struct katra_writer *w);
bool katra_writer_direct(const struct katra_writer *w);

/* ---- streaming reader (user/format/reader.c) ---- */
struct katra_reader;

enum katra_read_status {
	KATRA_READ_RECORD = 0,    /* *rec holds the next record */
	KATRA_READ_EOF = 1,       /* clean end after a complete record */
	KATRA_READ_TRUNCATED = 2, /* the file ends inside a record: see message */
	KATRA_READ_CORRUPT = 3,   /* a record does not decode: see message */
	KATRA_READ_IO_ERROR = 4,
};

/* Opens and checks magic, version and schema hash; on failure returns
 * -errno (I/O) or -EINVAL with a one-line reason in msg.  A gzip-compressed
 * trace (first bytes 1f 8b) is read the same way, decompressed on the fly;
 * corrupt gzip data is KATRA_READ_CORRUPT, a gzip stream cut short
 * KATRA_READ_TRUNCATED, each with its message. */
/* path "-" reads standard input. */
int katra_reader_open(struct katra_reader **out, const char *path, char *msg, size_t msg_cap);
int katra_reader_open_fd(struct katra_reader **out, int fd, char *msg, size_t msg_cap);
/* As open, from memory (the reader does not copy buf; keep it alive). */
int katra_reader_open_mem(struct katra_reader **out, const uint8_t *buf, size_t len,
			  char *msg, size_t msg_cap);
const struct katra_header *katra_reader_header(const struct katra_reader *r);
/* Next record; the record's strings/vectors stay valid until the next call. */
enum katra_read_status katra_reader_next(struct katra_reader *r, struct katra_record *rec);
/* Byte offset of the record last returned (its u32 length prefix). */
uint64_t katra_reader_record_offset(const struct katra_reader *r);
uint64_t katra_reader_records_read(const struct katra_reader *r);
/* The input is gzip-compressed (offsets are then in the decompressed stream). */
bool katra_reader_compressed(const struct katra_reader *r);
/* The reason after TRUNCATED / CORRUPT / IO_ERROR. */
const char *katra_reader_message(const struct katra_reader *r);
void katra_reader_close(struct katra_reader *r);

/* ---- verifier (user/format/verify.c) ---- */
struct katra_verify_report {
	uint64_t records;
	uint64_t events;
	uint64_t problems;
	/* SHOULD rules of SPEC section 7 broken (the SessionSummary's
	 * inferred_events, processes_seen, threads_seen as section 5.6 defines
	 * them): said through fn as lines beginning "note: ", not problems */
	uint64_t advisories;
	bool truncated;
	bool has_summary;
};

/* Called once per problem (and per advisory) with a one-line reason (no
 * trailing newline). */
typedef void (*katra_problem_fn)(void *ctx, const char *line);

/* Verifies a whole stream.  Returns 0 when valid, 1 when problems were
 * found (each reported through fn), -errno when the file cannot be read.
 * max_problems caps the callbacks (0 = unlimited); all are still counted.
 * Memory is bounded by the number of distinct open spans, threads and
 * processes. */
int katra_verify_reader(struct katra_reader *r, katra_problem_fn fn, void *ctx,
			uint64_t max_problems, struct katra_verify_report *out);
int katra_verify_path(const char *path, katra_problem_fn fn, void *ctx,
		      uint64_t max_problems, struct katra_verify_report *out);

#endif
