/* SPDX-License-Identifier: GPL-2.0-only */
/* Inside the uprobes layer (uprobes.c: files, ELF, attaching, scans;
 * uprobes_wine.c: Wine's ntdll.so and wineserver; uprobes_vk.c: the Vulkan
 * driver): the state they share and the helpers they call. */
#ifndef KATRA_RECORD_UPROBES_INT_H
#define KATRA_RECORD_UPROBES_INT_H

#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "katra/format.h"
#include "katra/wire.h"
#include "record/procfs/procpath.h"
#include "uprobes.h"

#define NAME_MAX_LIST 256

/* The files (inodes) one capture probes at most: ntdll.so, the Vulkan
 * loaders and drivers, the DLLs holding vkd3d; a real session has a few. */
#define UP_FILES_MAX 64
#define SEEN_MAX 8192   /* distinct mapped files remembered (then: rescan anyway) */
#define PENDING_MAX 64
#define REFUSED_MAX 8   /* refused files named in the notes (then counted) */
/* katra-vkresolve gets this long (a driver that hangs in vkCreateDevice) */
#define VKRESOLVE_TIMEOUT_MS 10000

/* Work for the worker thread (uprobes_worker.c) */
enum up_job_kind { JOB_SCAN = 1, JOB_COMMAND, JOB_UNIX_NAMES };
struct up_job {
	uint32_t kind, pid;
	char *path;            /* JOB_COMMAND: the command's resolved path (malloc'ed) */
	uint64_t handle;       /* JOB_UNIX_NAMES: the unix library's table address */
};

/* Unix libraries' call names (uprobes_unix.c): asked for by the drain once
 * per (process, handle), at most UNIX_ASK_MAX of them */
#define UNIX_ASK_MAX 256
#define UNIX_ASK_SLOTS 1024 /* the drain's open-addressed set of those asked */
#define UNIX_LIBS_MAX 16    /* library files read */

struct probed_file {
	uint64_t dev, ino;     /* stat() identity */
	char path[PATH_MAX];   /* the path it was attached through */
	unsigned nprobes;
	unsigned what;         /* FILE_* */
	uint32_t vk_functions; /* FILE_VK_DRIVER: the entry points probed (bit: vk_functions[]) */
	const char *why;       /* FILE_D3D12 | FILE_SKIPPED: why no probe (a static string) */
};

/* An ntdll.so's syscall frame layout (uprobes_frames.c), published to the
 * drain (nwf, release): processes that map it get it in wine_frames */
#define UP_WINE_FRAMES_MAX 8
struct up_wine_frame {
	uint64_t kdev, ino;  /* the kernel's dev_t (major << 20 | minor), inode */
	struct katra_wine_frame_offs offs; /* teb_frame 0: not read (why) */
	const char *why;     /* static */
	char path[160];      /* as its process names it */
};

/* An attach queued for a uprobe_multi link (uprobes_multi.c) */
struct up_pending {
	char *label, *path;    /* malloc'ed; path: the file as its process names it */
	int fd;                /* the file read (a dup, closed at the flush; -1: an
				* earlier entry's of the same path) */
	char prog[64];         /* the program's name; its twin NAME_multi is loaded */
	uint64_t offset, cookie;
	bool ret, done;
};

#define UP_RELEASERS_MAX 16 /* threads that close uprobe_multi links at the end */

enum { FILE_NTDLL = 1, FILE_VK_LOADER = 2, FILE_VK_DRIVER = 4, FILE_SKIPPED = 8,
       FILE_D3D12 = 16 };

struct katra_uprobes {
	struct katra_probes *probes;
	struct katra_uprobes_opts o;
	char vkresolve[PATH_MAX];
	struct bpf_link **links;
	size_t nlinks, cap_links;
	/* uprobe_multi links (uprobes_multi.c): their fds; the attaches of a
	 * file queued while batching; the links being released and by whom */
	int *mlinks;
	size_t nmlinks, cap_mlinks;
	struct up_pending *batch;
	size_t nbatch, cap_batch;
	bool batching;
	uint64_t batch_start_ns; /* measurements (KATRA_TEST_LINK_TIMES) */
	size_t batch_links0;
	int *releasing;
	size_t nreleasing;
	uint64_t release_start_ns;
	struct up_releaser {
		pthread_t t;
		struct katra_uprobes *u;
		unsigned first;
		bool started;
	} rel[UP_RELEASERS_MAX];
	unsigned nreleasers;
	struct probed_file *files;
	size_t nfiles, cap_files;
	size_t files_max;       /* UP_FILES_MAX (KATRA_TEST_UP_FILES_MAX in tests) */
	bool files_capped;      /* files_max reached (said once) */
	char *attached[NAME_MAX_LIST];
	size_t nattached;
	char *failed[NAME_MAX_LIST];
	size_t nfailed;
	uint64_t *seen;        /* (dev, ino) hashes of mapped files already looked at */
	/* the file being probed: attaches to path go through /proc/self/fd/N of
	 * fd, the file that was read (up_via) */
	int via_fd;
	const char *via_path;
	/* files a traced process named that were refused (up_open_mapped):
	 * "PATH (pid N): why", the first REFUSED_MAX of them, then a count */
	char *refused[REFUSED_MAX];
	unsigned nrefused, refused_more;
	size_t nseen;
	/* the worker (uprobes_worker.c): every scan, ELF read, attach and
	 * katra-vkresolve run happens there once it runs, never on the drain */
	pthread_t worker;
	bool worker_on;
	pthread_mutex_t qlock;  /* jobs, njobs, busy, stopping */
	pthread_cond_t qcond;   /* news for the worker */
	pthread_cond_t qdone;   /* the queue is empty and the worker idle */
	struct up_job jobs[PENDING_MAX];
	size_t njobs;
	uint64_t jobs_lost;     /* scans asked for while the queue was full */
	bool busy, stopping;
	bool worker_done;       /* the worker has returned (qlock) */
	bool abandoned;         /* still busy at the stop's deadline: left running,
				 * u and the probes kept for it (katra_uprobes_free) */
	char settle_note[KATRA_NOTE_MAX]; /* the start did not wait for it all */
	struct up_wine_frame wf[UP_WINE_FRAMES_MAX];
	unsigned nwf;           /* published (release): the drain reads wf[0..nwf) */
	unsigned test_stall_ms; /* tests: each job takes this long first */
	pid_t vk_child;         /* katra-vkresolve running now (atomic; 0: none) */
	/* katra-vkresolve started with a command, before the probes load
	 * (katra_uprobes_command_early): its output taken by the command's
	 * job on the worker */
	struct up_vk_run {
		pid_t child;    /* 0: none */
		int fd;         /* its output */
		int errfd;      /* why it could not run as the process (closed at its exec) */
		uint32_t pid;   /* the process whose environment it runs with */
		struct timespec t0;
		long long started; /* CLOCK_REALTIME s, for the cache (vkcache.h) */
	} vk_early;
	/* a kept answer found for the command, or for a -p target that maps
	 * the Vulkan loader (vk_cached_scan), before the probes load
	 * (vkcache.h): taken by katra_uprobes_early, or by the command's job,
	 * instead of a run */
	char *vk_cached;
	uint32_t vk_cached_pid;
	bool vk_cached_scan;
	bool vk_cache_said;     /* the cache's refusal said once */
	unsigned vk_timeouts;   /* katra-vkresolve runs killed at VKRESOLVE_TIMEOUT_MS */
	/* the roots whose drivers the helper resolved (whatever it found): one
	 * run per root a traced process sees (ours, a container's) */
	struct { uint64_t dev, ino; } vk_roots[8];
	unsigned vk_nroots;
	uint64_t next_sweep;   /* CLOCK_MONOTONIC ns of the next sweep of ucall_states */
	char vk_note[KATRA_NOTE_MAX];
	char vk_why[128];      /* why the last katra-vkresolve run failed */
	/* generic NT calls: per probed dispatcher (slot = attach cookie), the
	 * names by number */
	struct nt_slot {
		char **names;
		uint32_t count;
		char **names1; /* win32u's table (1), from win32u.dll */
		uint32_t count1;
		char note[KATRA_NOTE_MAX];
	} nt[KATRA_NT_FILES];
	unsigned nnt;          /* slots filled (atomic: the drain's emitter reads names) */
	/* wineserver request names, per binary (dev, ino), and the wineservers
	 * whose table was handed out */
	struct req_table {
		uint64_t dev, ino;
		char **names;
		uint32_t count;
		struct katra_str *strs;
	} req[8];
	unsigned nreq; /* tables filled (atomic: written by the worker only, the
			* drain's emitter reads them) */
	uint32_t req_given[64];
	unsigned nreq_given;
	/* wineservers named before their binary's table was read (the drain's) */
	struct req_wait {
		uint32_t tgid;
		uint64_t dev, ino;
	} req_wait[8];
	unsigned nreq_wait;
	/* unix libraries' call names: the files read (the worker's, each
	 * published by the unix_done entry that first names it), the answers
	 * to the drain's asks (written by the worker, nunix_done atomic), the
	 * drain's asks and the answers it has handed out */
	struct unix_lib {
		uint64_t dev, ino;
		uint64_t table_off;      /* the file offset of __wine_unix_call_funcs */
		char **names;            /* NULL: the file names none */
		uint32_t count;
		struct katra_str *strs;  /* names as written ("" for none) */
	} unix_libs[UNIX_LIBS_MAX];
	unsigned nunix_libs;
	struct unix_done {
		uint32_t tgid;
		uint64_t handle;
		int lib;                 /* -1: no names for it */
	} unix_done[UNIX_ASK_MAX];
	unsigned nunix_done;
	struct unix_ask {
		uint32_t tgid;
		uint64_t handle;
	} unix_asked[UNIX_ASK_SLOTS];
	unsigned nunix_asked, nunix_given;
};

/* The worker's: the call names of the unix library process pid maps at
 * handle, read (once per file) and answered (unix_done). */
void up_unix_names(struct katra_uprobes *u, uint32_t pid, uint64_t handle);
void up_unix_libs_free(struct katra_uprobes *u);
/* The drain's: the worker asked for that (false: its queue is full). */
bool up_request_unix_names(struct katra_uprobes *u, uint32_t pid, uint64_t handle);
/* path as pid names it (its maps; dev, ino: the maps line's, or
 * KATRA_PROC_ANY_DEV, 0), opened inside pid's root (procfs/procpath.h:
 * never blocking, a regular file, the file mapped; pid 0: our root): *fd
 * and its fstat, or -errno; a refusal is named (up_refused). */
int up_open_mapped(struct katra_uprobes *u, uint32_t pid, const char *path, unsigned flags,
		   uint64_t dev, uint64_t ino, int *fd, struct stat *st);
/* A file refused: on stderr (unless quiet) and in the notes, bounded. */
void up_refused(struct katra_uprobes *u, uint32_t pid, const char *path, int rc);
/* Attaches to path go through fd (/proc/self/fd/N) until up_via_end. */
void up_via(struct katra_uprobes *u, int fd, const char *path);
void up_via_end(struct katra_uprobes *u);
/* The kernel's name of path to attach at (/proc/self/fd/N of the fd it
 * was read from); -EBADF (named by up_failed) when it was not opened so. */
int up_via_name(struct katra_uprobes *u, const char *label, const char *path, char *out,
		size_t cap);

/* The worker's: the request names of a wineserver binary that a scanned
 * process maps (itself: its exe), read once per (dev, ino). */
void up_load_wineserver(struct katra_uprobes *u, int fd, const struct stat *st);

struct elf_file {
	int fd;
	Elf *e;
};

/* A name into a bounded list (taken over; freed when the list is full). */
void up_add_name(char **list, size_t *n, char *s);
/* A probe that could not attach: on stderr (unless quiet) and in the notes. */
void up_failed(struct katra_uprobes *u, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *up_base_name(const char *path);

/* ELF (libelf): read from fd (a dup of it, closed by up_elf_close),
 * symbols, virtual addresses as file offsets. */
int up_elf_open(int fd, struct elf_file *ef, const char **why);
void up_elf_close(struct elf_file *ef);
int up_elf_vaddr_to_offset(Elf *e, uint64_t vaddr, uint64_t *off);
int up_elf_symbol(Elf *e, const char *name, uint64_t *value);

/* Attaching: program prog_name at path+offset (ret: as a uretprobe), once
 * per file for every process; a failure is named (up_failed). */
int up_keep_link(struct katra_uprobes *u, struct bpf_link *l);
int up_attach_cookie(struct katra_uprobes *u, const char *label, const char *prog_name,
		     const char *path, uint64_t offset, bool ret, uint64_t cookie);
int up_attach_at(struct katra_uprobes *u, const char *label, const char *prog_name,
		 const char *path, uint64_t offset, bool ret);
/* A function's entry (and return, when ret_prog); the probes attached. */
int up_attach_function(struct katra_uprobes *u, Elf *e, const char *path, const char *sym,
		       const char *entry_prog, const char *ret_prog);

/* uprobe_multi links (where katra_probes_uprobe_multi): the attaches made
 * between begin and end are queued and made at the end, one link per
 * program and file, in the order of each one's first attach; end returns
 * the attaches that failed (named by up_failed; counted off their file's
 * nprobes).  up_attach_multi (by up_attach_cookie) queues one, or outside a
 * batch makes its link now.  At the capture's end: release_start closes
 * the links from threads of their own, release_wait waits for them. */
void up_batch_begin(struct katra_uprobes *u);
unsigned up_batch_end(struct katra_uprobes *u);
int up_attach_multi(struct katra_uprobes *u, const char *label, const char *prog_name,
		    const char *path, uint64_t offset, bool ret, uint64_t cookie);
void up_release_start(struct katra_uprobes *u);
void up_release_wait(struct katra_uprobes *u);

struct probed_file *up_find_file(struct katra_uprobes *u, uint64_t dev, uint64_t ino);
struct probed_file *up_add_file(struct katra_uprobes *u, const struct stat *st,
				const char *path, unsigned what);

/* Wine's syscall frame (uprobes_frames.c, --stacks): ntdll.so (fd, st)
 * read for it once (the worker's); the entry of wine_frames for pid (0:
 * none) from the file (dev, ino of st), the worker's; the same for a
 * mapping the drain sees (kdev: the kernel's), once the file was read;
 * the header's notes. */
void up_wine_frame_read(struct katra_uprobes *u, const char *path, int fd, const struct stat *st);
void up_wine_frame_set(struct katra_uprobes *u, uint32_t pid, const struct stat *st);
void up_wine_frame_mapped(struct katra_uprobes *u, uint32_t pid, uint64_t kdev, uint64_t ino);
size_t up_wine_frame_notes(const struct katra_uprobes *u, char (*out)[KATRA_NOTE_MAX], size_t cap);

/* The layers: the probes attached (< 0: out of memory). */
/* path: as pid names it (pid 0: ours), fd: that file opened
 * (up_open_mapped), st: its fstat. */
int up_probe_ntdll(struct katra_uprobes *u, uint32_t pid, const char *path, int fd,
		   const struct stat *st);
int up_probe_vulkan(struct katra_uprobes *u, uint32_t pid, const char *loader, int fd,
		    const struct stat *st);
/* The DLL that holds vkd3d (uprobes_d3d12.c): by its name; its D3D12
 * methods probed (pid: a process that maps it, for the message). */
bool up_is_d3d12_dll(const char *path);
int up_probe_d3d12(struct katra_uprobes *u, uint32_t pid, const char *path, int fd,
		   const struct stat *st);
/* A command about to run (pid: stopped before its exec): the drivers the
 * Vulkan loader would pick with its environment, probed before it runs. */
int up_prepare_vulkan(struct katra_uprobes *u, uint32_t pid);
/* The early katra-vkresolve, if still unclaimed: killed and reaped. */
void up_vk_early_drop(struct katra_uprobes *u);
/* A Wine launcher about to run: its wineserver's request names read now. */
void up_prepare_wineserver(struct katra_uprobes *u, const char *launcher);

/* The worker's jobs (uprobes.c): a process's maps; a command's launcher
 * ntdll.so; the ucall_states sweep. */
int up_scan_pid(struct katra_uprobes *u, uint32_t pid);
int up_scan_command(struct katra_uprobes *u, const char *path);
void up_sweep_states(struct katra_uprobes *u);

#endif
