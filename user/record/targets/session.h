/* SPDX-License-Identifier: GPL-2.0-only */
/* Wine session discovery, from /proc only (no libbpf: unit-tested against a
 * fake /proc tree given as `proc`).
 *
 * A Wine session is every process connected to one wineserver.  Its key is
 * the wineserver's directory, `.../server-<dev>-<ino>/` (Debian's Wine 8:
 * /tmp/wine-XXXXXX/server-fe00-a721f7; upstream: /tmp/.wine-UID/server-...):
 * every member, wineserver included, maps a (deleted) tmpmap-* file under it
 * (KUSER_SHARED_DATA at 0x7ffe0000 in the clients).  The directory is
 * compared by device and inode, stat'ed as the process sees it (through
 * PROC/PID/root, procfs/procpath.h: a process in another mount namespace,
 * e.g. the Steam Runtime's bubblewrap container or a chroot under unshare -m,
 * may name it by a path that means something else here), never by its path
 * text.
 *
 * PIDs are the ones `proc` shows: the host's when it is the host's /proc
 * (what the BPF probes see too); nothing here reads NSpid or assumes that a
 * process's own PID namespace matches ours.
 *
 * Functions return 0 or -errno. */
#ifndef KATRA_RECORD_SESSION_H
#define KATRA_RECORD_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KATRA_SESSION_MAX_KEYS 8
#define KATRA_SESSION_DIR_MAX 256
/* a pid born (or exec'ing) this recently is checked again: a new `wine`
 * process connects to its wineserver some time after it starts.  Its maps are
 * read when it is first seen, after each exec (its comm changed), and at
 * intervals doubling from RECHECK_NS (150, 300, 600 ms, ...) */
#define KATRA_SESSION_PENDING_NS 5000000000ull
#define KATRA_SESSION_RECHECK_NS 150000000ull
/* settled processes are re-read (start time, comm) this often: a pid reused,
 * or an old process that exec'd Wine, is checked again */
#define KATRA_SESSION_SWEEP_NS 1000000000ull
/* maps files read per periodic scan at most (the rest waits for the next) */
#define KATRA_SESSION_SCAN_BUDGET 256

struct katra_wine_key {
	uint64_t dev, ino; /* st_dev, st_ino of the server directory */
};

/* ---- parsing (exported for the unit tests) ---- */

/* The server directory in one /proc/PID/maps line: the path up to and
 * including its `server-<hex>-<hex>` component, when the mapped file lies
 * under it (" (deleted)" is ignored).  0, or -ENOENT. */
int katra_wine_maps_dir(const char *line, char *dir, size_t cap);

/* The Windows image name in a NUL-separated command line (/proc/PID/cmdline,
 * len bytes): Wine's loaders and preloader are skipped (`/bin/sh
 * /usr/bin/wine`, `wine64`, `wine64-preloader /usr/lib/wine/wine64`, ...),
 * and what follows is the image, cut after its last '\\' or '/'
 * (`C:\windows\system32\services.exe` -> "services.exe"; a name without an
 * extension gets ".exe", as CreateProcess looks it up).  Without a loader in
 * front, argv[0] is taken only when wine_process (the process maps a server
 * directory, or argv[0] is a drive path `X:\...`).  wineserver has none.
 * 0, or -ENOENT. */
int katra_wine_image_from_argv(const char *buf, size_t len, bool wine_process, char *out,
			       size_t cap);

/* ---- one process ---- */

/* The server directory PID maps and its identity: 0 (dir may be NULL),
 * -ENOENT (not a Wine process, or not yet connected), -ESRCH (no such
 * process), -errno. */
int katra_wine_server_key(const char *proc, uint32_t pid, struct katra_wine_key *key, char *dir,
			  size_t dircap);
/* PID's Windows image name from PROC/PID/cmdline (see above): 0 or -ENOENT. */
int katra_wine_image(const char *proc, uint32_t pid, bool wine_process, char *out, size_t cap);
/* Whether PROC/PID/exe is one of Wine's loaders (wine64, wine64-preloader,
 * ...): every Wine process runs one. */
bool katra_wine_exe_is_loader(const char *proc, uint32_t pid);
/* PROC/PID/comm into buf ("" when unknown). */
void katra_proc_comm(const char *proc, uint32_t pid, char *buf, size_t cap);

/* ---- the other way (session_sock.c): unix-socket peers of wineserver ---- */

/* One unix socket as sock_diag reports it: its inode, its peer's (0: none),
 * its state (10: listening) and, when bound to a file, that file's device
 * (as stat() gives st_dev) and inode. */
struct katra_unix_sock {
	uint64_t vfs_dev, vfs_ino;
	uint32_t ino, peer;
	uint8_t state, has_vfs;
};

struct katra_unix_socks {
	struct katra_unix_sock *v;
	size_t n, cap;
};

/* Appends the sockets of one netlink reply (SOCK_DIAG_BY_FAMILY messages
 * with UNIX_DIAG_PEER / UNIX_DIAG_VFS attributes) to out: 1 at NLMSG_DONE,
 * 0 when more is to come, -errno (NLMSG_ERROR's, or -EBADMSG). */
int katra_unix_diag_parse(const void *buf, size_t len, struct katra_unix_socks *out);
/* Every unix socket of our network namespace (NETLINK_SOCK_DIAG): 0 or
 * -errno.  Free out->v. */
int katra_unix_diag_dump(struct katra_unix_socks *out);
/* The inode of a "socket:[INODE]" fd link: 0 or -ENOENT. */
int katra_socket_inode(const char *link, uint32_t *ino);
/* The processes (PROC/PID/fd) at the other end of the wineserver of DIR's
 * connections, wineserver first (*server): the one holding the socket that
 * listens on DIR/socket (by device and inode, stat'ed as from_pid sees it).
 * A connection is a socket wineserver alone holds, bound to no file but
 * DIR/socket, whose peer is bound to none: not the copies of its clients'
 * own sockets it also holds (their X connections, whose peer is the X
 * server).
 * 0 (*pids malloc'ed), -ENOENT (no such listener in socks, or nobody we can
 * see holds it), -errno. */
int katra_wine_sock_members(const char *proc, uint32_t from_pid, const char *dir,
			    const struct katra_unix_socks *socks, uint32_t **pids, size_t *npids,
			    uint32_t *server);

/* ---- the sessions of a capture ---- */

struct katra_session;

/* What a scan reports. */
struct katra_session_cb {
	void *ctx;
	/* pid maps the directory of session key `key`: reported once per process
	 * (again only if its pid is reused).  joined: it was found by a periodic
	 * scan, after its session was known (origin WineJoined); else it was
	 * there when the session was found (WineSession). */
	void (*member)(void *ctx, uint32_t pid, unsigned key, bool joined);
	/* pid maps a server directory that is no session key: true adds that
	 * key (e.g. a traced command that connected to a wineserver); its known
	 * processes are then reported as members.  NULL: never. */
	bool (*adopt)(void *ctx, uint32_t pid);
};

int katra_session_new(const char *proc, struct katra_session **out);
void katra_session_free(struct katra_session *s);
/* Adds PID's session: 0 (also when its key is already there), -ENOENT when
 * PID is not a Wine process, -ENOSPC with KATRA_SESSION_MAX_KEYS keys. */
int katra_session_add_pid(struct katra_session *s, uint32_t pid);
size_t katra_session_nkeys(const struct katra_session *s);
/* Key i: its identity and its directory path as the process that gave it
 * names it; the pid it came from. */
const struct katra_wine_key *katra_session_key(const struct katra_session *s, unsigned i,
					       const char **dir, uint32_t *from_pid);
/* One look at PROC: processes new since the last scan (and those still
 * young: PENDING_NS) have their maps read; members are reported through cb.
 * now_ns: CLOCK_BOOTTIME (the clock of /proc/PID/stat's start time).
 * initial: the scans at capture start (every process, no budget; members
 * are not "joined").  Returns the number of members reported, or -errno. */
int katra_session_scan(struct katra_session *s, uint64_t now_ns, bool initial,
		       const struct katra_session_cb *cb);
/* Tests: the sock_diag dump the socket-peer way uses (default:
 * katra_unix_diag_dump). */
void katra_session_set_sock_dump(struct katra_session *s,
				 int (*dump)(struct katra_unix_socks *out));
/* Work done so far (for -v and the tests). */
struct katra_session_stats {
	uint64_t scans, maps_read, stats_read, members;
};
void katra_session_get_stats(const struct katra_session *s, struct katra_session_stats *st);

/* ---- the roster: who was traced, by which name and origin ---- */

struct katra_proc_entry {
	uint32_t pid;
	uint32_t origin;         /* enum katra_process_origin */
	char comm[32];
	char image[64];          /* Windows image name, "" when none */
};

struct katra_roster {
	struct katra_proc_entry *v;
	size_t n, cap, max;      /* max: entries kept at most */
	uint64_t total;          /* processes named, kept or not */
	void *index;             /* pid -> position */
};

int katra_roster_init(struct katra_roster *r, size_t max);
void katra_roster_free(struct katra_roster *r);
/* A ProcessInfo was written for pid: keeps its latest names; its origin is
 * the first one given. */
void katra_roster_note(struct katra_roster *r, uint32_t pid, uint32_t origin, const char *comm,
		       size_t comm_len, const char *image);

/* ---- header notes ---- */

/* Lines "how each process traced from the start was found", each shorter
 * than note_len: the session keys, then "traced from the start: ORIGIN: PID
 * (NAME), ..." per origin, split to fit (at most cap lines; the last one
 * says how many more the ProcessInfo events name).  Returns the count. */
size_t katra_session_notes(const struct katra_roster *start, const struct katra_session *s,
			   char *notes, size_t note_len, size_t cap);

/* ---- the capture's side (session_rec.c): discovery driven by the
 * recorder, members tracked and named; no libbpf (the probes are reached
 * through katra_wine_ops) ---- */

struct emitter;

enum katra_session_mode {
	KATRA_SESSION_AUTO = 0,  /* a Wine target (or a traced process that
				  * starts Wine) brings its whole session */
	KATRA_SESSION_OFF,       /* --no-session: the process tree only */
	KATRA_SESSION_FORCE,     /* --session: every -p must be a Wine process */
};

struct katra_wine_ops {
	void *ctx;
	int (*track)(void *ctx, uint32_t pid);
	bool (*is_tracked)(void *ctx, uint32_t pid);
	/* the sessions' wineserver sockets (the kernel's device number, MAJOR
	 * << 20 | MINOR, and inode of each DIR/socket): a process connecting to
	 * one is tracked by the probes at once.  NULL: none. */
	int (*join_socks)(void *ctx, const uint64_t (*socks)[2], size_t n);
};

/* how often the capture looks for processes joining a session */
#define KATRA_SESSION_SCAN_NS 150000000ull
#define KATRA_ROSTER_MAX 4096

struct katra_wine_names;

/* Before the probes load: the sessions of the -p targets (pids[npids]).
 * FORCE and a target that is no Wine process: a message on err and
 * -EINVAL.  proc: "/proc" (tests: a fake tree).  quiet: no line on err when
 * a traced process brings a session in during the capture. */
int katra_wine_names_open(struct katra_wine_names **out, const char *proc,
			  enum katra_session_mode mode, const uint32_t *pids, size_t npids,
			  FILE *err, bool quiet);
void katra_wine_names_free(struct katra_wine_names *n);
/* Once the probes are live: finds the sessions' members (twice, for a
 * process starting in between) and tracks those not tracked yet, and with
 * follow the processes below them (origin Descendant).  Their names are read
 * now (for the header notes). */
int katra_wine_names_start(struct katra_wine_names *n, const struct katra_wine_ops *ops,
			   bool follow);
/* Header notes (see katra_session_notes) for the processes traced from the
 * start: targets, descendants (kids), the command, session members. */
size_t katra_wine_names_notes(struct katra_wine_names *n, const uint32_t *targets, size_t nt,
			      const uint32_t *kids, size_t nk, char *notes, size_t note_len,
			      size_t cap);
/* Hooks the emitter: a Windows image name after each exec, every
 * ProcessInfo into the roster. */
void katra_wine_names_attach(struct katra_wine_names *n, struct emitter *e);
/* ProcessInfo of the members found at start (origin WineSession) at key. */
int katra_wine_names_emit_start(struct katra_wine_names *n, uint64_t key, bool record_paths);
/* The Windows image of a -p target or descendant named at start (NULL when
 * none): valid until the next call. */
const char *katra_wine_names_image(struct katra_wine_names *n, uint32_t pid);
/* From the capture loop (now: CLOCK_MONOTONIC): every SCAN_NS, processes
 * that joined are tracked and named (origin WineJoined).  0 or the
 * emitter's write error. */
int katra_wine_names_tick(struct katra_wine_names *n, uint64_t now);
/* The roster of every process named, moved out (free() it); its length and
 * how many processes were named in all (more than kept: KATRA_ROSTER_MAX). */
struct katra_proc_entry *katra_wine_names_take_roster(struct katra_wine_names *n, size_t *len,
						      uint64_t *total);

#endif
