/* SPDX-License-Identifier: GPL-2.0-only */
/* The stats views that answer everyday questions (stats --syscalls, --files,
 * --off-cpu, --top N): fed one record at a time after the overview's
 * accumulator, bounded like it (every table has a cap; what does not fit is
 * counted, never allocated).
 *
 * A span is a Begin and an End on one thread with the same span_id.  A
 * syscall span is one of the syscall kinds (Syscall .. Clone) in the Linux
 * scope; its name comes from the End's SyscallReturn.nr (the recorder puts
 * the number there for every syscall kind), else from a Begin's Syscall
 * payload, else only the kind is known (an End inferred at capture end or
 * thread exit) and the row is named "(Kind)".  ret in [-4095, -1] is an
 * error.  Off-CPU spans are OffCpu spans: the Begin's Switch.prev_state
 * says runnable (preempted) or blocked, and a blocked span is charged to the
 * syscall open on that thread when it switched out (its name known at the
 * syscall's End) and to that syscall's resource (a row per thread, reason,
 * state and syscall names the resource of its longest span, and says when
 * there were several).  An OffCpu End with confidence Inferred (the
 * switch-in was not seen; it ends at the next switch-out) does not measure
 * off-CPU time: such spans are counted and left out. */
#ifndef KATRA_REPLAY_VIEWS_H
#define KATRA_REPLAY_VIEWS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "katra/format.h"
#include "replay/names/procnames.h"
#include "replay/util/histo.h"
#include "replay/util/out.h"
#include "replay/util/xmap.h"

#define KR_SYSKEY_KIND (1ull << 32) /* syskey = KR_SYSKEY_KIND | kind: number unknown */
#define KR_NR_NONE 0xfffffffeu      /* no number known yet */
#define KR_SYSKEY_NONE UINT64_MAX   /* no syscall at all */
#define KR_MAX_SYSCALL_ROWS (1u << 16)
#define KR_MAX_FILES (1u << 16)
#define KR_MAX_OFFCPU_ROWS (1u << 16)
#define KR_MAX_TOP 10000
#define KR_PATH_BUDGET (64u << 20) /* bytes of file paths kept, in all */
#define KR_NSTATES 9                 /* R S D T t X Z P I */
#define KR_MAX_CALL_ROWS 2048        /* (process, layer call) rows: a histogram each */
#define KR_MAX_CALL_LIBS 255 /* WinToUnix libraries told apart (kr_call_number) */
#define KR_MAX_CALL_NAMES 4096

enum kr_offcpu_reason {
	KR_OFF_PREEMPTED = 0, /* runnable when it left the CPU */
	KR_OFF_SYSCALL,       /* blocked inside a syscall */
	KR_OFF_FAULT,         /* blocked inside a page fault */
	KR_OFF_OTHER,         /* blocked outside both */
};

struct kr_sysagg {
	uint64_t calls, errors, total_ns, max_ns;
};

/* A layer call's row (stats_calls.c): the histogram holds count and total. */
struct kr_callagg {
	uint64_t errors, max_ns;
	struct kr_histo h;
};

/* An NT call number's name, from the first Begin that named it. */
struct kr_callname {
	char name[56];
};

struct kr_file_key {
	uint64_t domain, id;
};

struct kr_fileagg {
	uint64_t opens, reads, read_bytes, read_ns, writes, write_bytes, write_ns;
	char *path; /* from the FileOpen that produced this identity (NUL-terminated) */
	uint64_t path_len;
};

struct kr_off_key {
	uint64_t tid;
	uint64_t why;    /* reason << 8 | state letter */
	uint64_t syskey; /* KR_OFF_SYSCALL: the syscall */
};

struct kr_offagg {
	uint64_t pid, count, total_ns, max_ns;
	uint64_t res_domain, res_id; /* the resource of the longest span */
	uint64_t first_domain, first_id;
	bool several;                /* more than one resource */
};

struct kr_top_entry {
	uint64_t dur_ns, begin_ts, tid, pid;
	uint64_t syskey;   /* a syscall span's own syscall; an OffCpu span's blocking one;
			    * KR_SYSKEY_NONE */
	uint64_t res_domain, res_id;
	uint64_t sc_span;  /* OffCpu in a syscall: that syscall's span_id (fixed up at its End) */
	uint32_t kind;
	char state;        /* OffCpu: the state letter; else 0 */
	bool in_syscall;   /* syskey still to be fixed at the syscall's End */
};

/* A paired span as the views saw it at its End (kr_views.on_span). */
struct kr_span_done {
	const struct katra_event *end;
	uint64_t begin_ts, begin_seq, pid, dur;
	uint64_t res_domain, res_id; /* the End's resource, else the Begin's */
	uint32_t kind, scope;        /* the Begin's */
	uint64_t syskey;             /* a syscall span's key (kr_syskey_name); else
				      * KR_SYSKEY_NONE */
	uint64_t call;               /* a layer call's kind << 32 | number
				      * (kr_call_label); else 0 */
	bool call_failed;
	/* a measured OffCpu span: why (enum kr_offcpu_reason), the state letter
	 * and, blocked in a syscall, that syscall's span_id on the thread */
	bool offcpu;
	unsigned off_reason;
	char off_state;
	uint64_t off_syscall_span;
};

struct kr_fsides;

struct kr_views {
	/* called at every paired span's End, before the tables take it; NULL:
	 * none (export --parquet writes a row per span from it) */
	void (*on_span)(void *ctx, const struct kr_span_done *d);
	void *span_ctx;
	const struct kr_procnames *names; /* the overview's: names known by the end */
	struct kr_xmap open;        /* (tid, span_id) -> struct kr_open_span */
	struct kr_xmap threads;     /* tid -> struct kr_thread */
	struct kr_xmap sys;         /* syskey -> struct kr_sysagg */
	struct kr_xmap sys_by_pid;  /* (pid, syskey) -> struct kr_sysagg */
	struct kr_xmap files;       /* struct kr_file_key -> struct kr_fileagg */
	struct kr_xmap offcpu;      /* struct kr_off_key -> struct kr_offagg */
	struct kr_xmap calls;       /* (pid or 0, kind << 32 | number) -> struct kr_callagg */
	bool calls_by_process;      /* the pid rows too (--per-process): else the 0 rows only */
	struct kr_xmap nt_names;    /* NT call number -> struct kr_callname */
	struct { uint64_t pid, handle; } call_libs[KR_MAX_CALL_LIBS]; /* WinToUnix libraries */
	unsigned ncall_libs;
	struct kr_perframe *pf;     /* --per-frame (perframe.h), else NULL */
	const struct kr_fsides *sides; /* --per-frame: every frame's sides, else NULL */
	struct kr_gpu *gpu;         /* --gpu (stats_gpu.c), else NULL */
	struct kr_top_entry *top;   /* min-heap by dur_ns, top_cap entries */
	unsigned top_len, top_cap;
	uint64_t path_bytes;
	bool paths_recorded;        /* the capture was made with --paths (its header) */
	/* --from/--to as given, or NULL without a window (the messages for an
	 * empty view name the window) */
	const struct katra_dump_when *from, *to;
	/* what did not fit or could not be paired */
	uint64_t unmatched_ends, untimed_syscalls, open_overflow, thread_overflow,
		sys_overflow, file_overflow, offcpu_overflow, paths_dropped, call_overflow;
	uint64_t offcpu_inferred; /* OffCpu spans with an inferred End: left out */
	bool oom;
};

void kr_views_init(struct kr_views *v, const struct kr_procnames *names, unsigned top_n);
/* --per-frame: count the calls (and the syscalls) per frame too. */
void kr_views_per_frame(struct kr_views *v, bool calls, bool syscalls);
void kr_views_add(struct kr_views *v, const struct katra_record *rec);
/* After the last record: charges what is still open (syscalls that never
 * returned keep their kind as their name). */
void kr_views_finish(struct kr_views *v);
void kr_views_free(struct kr_views *v);

/* ---- inside the views (stats_*.c) ---- */
void kr_sys_add(struct kr_views *v, uint64_t pid, uint64_t syskey, uint64_t dur, bool error);
void kr_file_io(struct kr_views *v, const struct katra_resource *r, uint32_t kind,
		uint64_t dur, int64_t ret);
void kr_file_opened(struct kr_views *v, const struct katra_resource *r, const char *path,
		    uint64_t len);
void kr_off_add(struct kr_views *v, uint64_t tid, uint64_t pid, unsigned reason, char state,
		uint64_t syskey, uint64_t res_domain, uint64_t res_id, uint64_t count,
		uint64_t total, uint64_t max);
void kr_top_push(struct kr_views *v, const struct kr_top_entry *e);
/* The syscall (tid, span) ended as syskey: fix the OffCpu entries inside it. */
void kr_top_fix(struct kr_views *v, uint64_t tid, uint64_t span, uint64_t syskey);
/* Would an entry of dur_ns enter the heap now? */
bool kr_top_wants(const struct kr_views *v, uint64_t dur_ns);

/* ---- the layers' calls (stats_calls.c) ---- */
/* A kind stats --calls counts (NT calls, wineserver and Unix calls, Vulkan). */
bool kr_call_kind(uint32_t kind);
/* The number naming a call within its kind (its Begin's payload), or 0; a
 * WinToUnix call's: its library (its (process, handle), numbered 1.. in the
 * order first called, 0 beyond KR_MAX_CALL_LIBS) << 16 | its function
 * index (cut to 16 bits: Wine's tables are far shorter). */
uint32_t kr_call_number(struct kr_views *v, const struct katra_event *e);
/* The number a call row shows (a WinToUnix row's function index). */
uint32_t kr_call_index(uint64_t what);
/* A WinToUnix row's library handle (0: unknown, or another kind); JSON
 * writes it as "handle" beside "number": two libraries' rows may share an
 * index. */
uint64_t kr_call_handle(const struct kr_views *v, uint64_t what);
/* Whether a call's End reports an error. */
bool kr_call_failed(const struct katra_event *end);
void kr_call_named(struct kr_views *v, uint32_t number, const struct katra_str *name);
void kr_call_add(struct kr_views *v, uint64_t pid, uint32_t kind, uint32_t number,
		 uint64_t dur, bool error);
/* A call row's name ("NtReadFile", "WineServerCall get_handle_fd", "NtSyscall
 * 213", "WinToUnix vkQueueSubmit", "WinToUnix 100 (lib 0x7f3a2c1e0b40)") and
 * layer ("nt", "wine", "vulkan"); what = kind << 32 | number. */
const char *kr_call_label(const struct kr_views *v, uint64_t what, char *buf, size_t cap);
const char *kr_call_layer(uint64_t what);
void kr_calls_text(FILE *f, const struct kr_views *v, bool per_process);
void kr_calls_json(FILE *f, const struct kr_views *v, bool per_process);

/* ---- the GPU layer's fences (stats_gpu.c) ---- */
struct kr_gpu;
/* NULL when out of memory. */
struct kr_gpu *kr_gpu_new(void);
void kr_gpu_free(struct kr_gpu *g);
/* An event of scope Gpu. */
void kr_gpu_add(struct kr_gpu *g, const struct katra_event *e);
/* A GPU layer's Counter (GpuOther*, Gpu*BusyNs); IN_WINDOW false for one
 * outside stats' --from/--to window (its value before the window is the
 * base the window's are counted from). */
void kr_gpu_counter(struct kr_gpu *g, const struct katra_counter *c, bool in_window);
void kr_gpu_text(FILE *f, const struct kr_views *v);
void kr_gpu_json(FILE *f, const struct kr_views *v);

/* ---- per frame (stats_frames_out.c; perframe.h) ---- */
/* 0, or -ENOMEM (the output is cut short; the JSON stays well-formed);
 * windowed: --from/--to were given (the message for no frames says so). */
int kr_perframe_text(FILE *f, const struct kr_views *v, bool windowed);
int kr_perframe_json(FILE *f, const struct kr_views *v);
/* --per-frame's every frame's CPU and GPU time, present to flip and bound
 * (stats_frames_sides.c) */
void kr_fsides_text(FILE *f, const struct kr_views *v);
void kr_fsides_json(FILE *f, const struct kr_views *v);

/* ---- text and JSON (stats_syscalls.c, stats_files.c, stats_offcpu.c,
 * stats_top.c); per_process: one syscall table per process ---- */
void kr_syscalls_text(FILE *f, const struct kr_views *v, bool per_process);
void kr_syscalls_json(FILE *f, const struct kr_views *v, bool per_process);
void kr_files_text(FILE *f, const struct kr_views *v);
void kr_files_json(FILE *f, const struct kr_views *v);
void kr_offcpu_text(FILE *f, const struct kr_views *v);
void kr_offcpu_json(FILE *f, const struct kr_views *v);
void kr_top_text(FILE *f, const struct kr_views *v);
/* After the views: one line saying files are named only with --paths, when
 * the capture has no paths and some file identity was seen. */
void kr_files_unnamed_note(FILE *f, const struct kr_views *v);
void kr_top_json(FILE *f, const struct kr_views *v);

/* ---- shared formatting (stats_fmt.c) ---- */
/* "read", "i386:read", "(FileRead)" for a kind-only key. */
const char *kr_syskey_name(uint64_t syskey, char buf[32]);
/* A resource for people: the file's path when captured (JSON-quoted when it
 * needs it), "futex 0x7f..", "File:123..", nothing for None. */
void kr_put_resource(FILE *f, const struct kr_views *v, uint64_t domain, uint64_t id);
/* " in this trace", or " in this window (--from X --to Y)" with a window. */
void kr_put_scope(FILE *f, const struct kr_views *v);
/* JSON: {"domain":"File","id":"123","name":"File:123","path":".."} (name as
 * names/resnames.h spells it; path only when known) or null. */
void kr_json_resource(FILE *f, const struct kr_views *v, uint64_t domain, uint64_t id);
/* JSON string of the process name, or null. */
void kr_json_pname(FILE *f, const struct kr_views *v, uint64_t pid);
const struct kr_fileagg *kr_file_find(const struct kr_views *v, uint64_t domain, uint64_t id);

#endif
