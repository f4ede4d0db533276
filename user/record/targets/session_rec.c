// SPDX-License-Identifier: GPL-2.0-only
/* The capture's side of Wine session discovery (session.h): which sessions
 * the targets belong to, their members tracked and named at start, the
 * processes that join during the capture found by a periodic /proc scan,
 * and the roster of every process named (for --summary-json). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "record/emit/emit.h"
#include "katra/format.h"
#include "session.h"
#include "record/procfs/procpath.h"
#include "record/table/table.h"
#include "targets.h"

struct katra_wine_names {
	uint64_t start_boot_ns;      /* CLOCK_BOOTTIME when the capture started */
	struct katra_session *s;
	enum katra_session_mode mode;
	char proc[KATRA_SESSION_DIR_MAX];
	struct katra_wine_ops ops;
	struct katra_roster start;   /* members found at start (and the processes
				      * below them), names read then */
	struct katra_roster roster;  /* every ProcessInfo written */
	struct emitter *em;
	FILE *err;
	bool quiet;
	bool live;                   /* the capture runs: members are named at once */
	bool wine_exec_seen;         /* a traced process exec'd Wine's loader */
	bool follow;                 /* processes below the members are traced */
	uint32_t adopted_from;       /* the traced process that brought a session in */
	uint32_t targets[64];        /* the -p PIDs */
	size_t ntargets;
	int error;                   /* the emitter's, sticky */
	uint64_t next_scan;
	char image[128];
	/* the keys whose wineserver socket the probes watch (ops.join_socks) */
	size_t join_keys;
	uint64_t join_socks[KATRA_SESSION_MAX_KEYS][2];
	size_t njoin;
};

static uint64_t boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int katra_wine_names_open(struct katra_wine_names **out, const char *proc,
			  enum katra_session_mode mode, const uint32_t *pids, size_t npids,
			  FILE *err, bool quiet)
{
	struct katra_wine_names *n = calloc(1, sizeof(*n));
	int rc;

	*out = NULL;
	if (!n)
		return -ENOMEM;
	snprintf(n->proc, sizeof(n->proc), "%s", proc);
	n->mode = mode;
	n->err = err;
	n->quiet = quiet;
	rc = katra_session_new(proc, &n->s);
	if (!rc)
		rc = katra_roster_init(&n->start, KATRA_ROSTER_MAX);
	if (!rc)
		rc = katra_roster_init(&n->roster, KATRA_ROSTER_MAX);
	for (size_t i = 0; i < npids && n->ntargets < 64; i++)
		n->targets[n->ntargets++] = pids[i];
	for (size_t i = 0; i < npids && !rc; i++) {
		int krc = katra_session_add_pid(n->s, pids[i]);
		if (!krc || mode != KATRA_SESSION_FORCE)
			continue;
		char comm[64];
		katra_proc_comm(proc, pids[i], comm, sizeof(comm));
		if (krc == -ENOENT)
			fprintf(err, "katra-record: --session: PID %u (%s) is not a Wine process: it "
				"maps no file under a wineserver directory (.../server-DEV-INO/); "
				"without --session its process tree is traced\n", pids[i],
				comm[0] ? comm : "?");
		else
			fprintf(err, "katra-record: --session: cannot read the memory map of PID %u "
				"(%s): %s (hint: run as root)\n", pids[i], comm[0] ? comm : "?",
				strerror(-krc));
		rc = -EINVAL;
	}
	if (rc) {
		katra_wine_names_free(n);
		return rc;
	}
	*out = n;
	return 0;
}

void katra_wine_names_free(struct katra_wine_names *n)
{
	if (!n)
		return;
	katra_session_free(n->s);
	katra_roster_free(&n->start);
	katra_roster_free(&n->roster);
	free(n);
}

static void name_member(struct katra_wine_names *n, uint32_t pid, uint32_t origin)
{
	char comm[64], exe[KATRA_PATH_MAX], image[128];
	bool has_image = !katra_wine_image(n->proc, pid, true, image, sizeof(image));
	bool has_exe = n->em->record_paths && !katra_target_exe(pid, exe, sizeof(exe));

	katra_proc_comm(n->proc, pid, comm, sizeof(comm));
	if (!n->error)
		n->error = emit_process_info(n->em, n->em->st.last_key, pid, origin, comm,
					     has_exe ? exe : NULL, has_image ? image : NULL);
}

/* A process traced from the start: its names now (for the header). */
static void note_start(struct katra_wine_names *n, uint32_t pid, uint32_t origin, bool wine)
{
	char comm[64], image[128];
	bool has_image = !katra_wine_image(n->proc, pid, wine, image, sizeof(image));

	katra_proc_comm(n->proc, pid, comm, sizeof(comm));
	katra_roster_note(&n->start, pid, origin, comm, strlen(comm), has_image ? image : NULL);
}

/* Whether pid was started before the capture (its start time, in clock ticks
 * since boot, is field 22 of /proc/PID/stat). */
static bool started_before(uint32_t pid, uint64_t boot_ns)
{
	char path[64], buf[512];
	unsigned long long start = 0;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return false;
	buf[len] = '\0';
	const char *p = strrchr(buf, ')');
	/* after the comm: state is field 3, starttime field 22 */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			 "%*d %*d %*d %*d %llu", &start) != 1)
		return false;
	long hz = sysconf(_SC_CLK_TCK);
	return hz > 0 && start * (1000000000ull / (unsigned long long)hz) < boot_ns;
}

/* A member found by a scan during the capture: what it forked before it was
 * tracked (a program it started) is tracked and named too; its later forks
 * are followed by the probes. */
static void track_below(struct katra_wine_names *n, uint32_t pid)
{
	uint32_t kids[64];
	int nk = n->follow ? katra_target_descendants(&pid, 1, kids, 64) : 0;

	for (int i = 0; i < nk && i < 64; i++) {
		if (kids[i] == (uint32_t)getpid() || n->ops.is_tracked(n->ops.ctx, kids[i]) ||
		    n->ops.track(n->ops.ctx, kids[i]))
			continue;
		name_member(n, kids[i], KATRA_ORIGIN_DESCENDANT);
	}
}

static void on_member(void *ctx, uint32_t pid, unsigned key, bool joined)
{
	struct katra_wine_names *n = ctx;

	/* a process already running when the capture started is a member of the
	 * session, not one that joined it, whenever the scan reaches it */
	if (joined && n->start_boot_ns && started_before(pid, n->start_boot_ns))
		joined = false;
	(void)key;
	if (pid == (uint32_t)getpid() || n->ops.is_tracked(n->ops.ctx, pid))
		return; /* traced already: a target, or forked by a traced process */
	if (n->ops.track(n->ops.ctx, pid))
		return;
	if (n->live) {
		if (!joined && !n->quiet && n->err) /* its session came in during the capture */
			fprintf(n->err, "katra-record: tracing PID %u too: in the Wine session of "
				"traced PID %u (--no-session: not)\n", pid, n->adopted_from);
		name_member(n, pid, joined ? KATRA_ORIGIN_WINE_JOINED : KATRA_ORIGIN_WINE_SESSION);
		track_below(n, pid);
		return;
	}
	if (n->start.n == n->start.max)
		return; /* traced, named by its next exec only */
	note_start(n, pid, KATRA_ORIGIN_WINE_SESSION, true);
}

/* A traced process connected to a wineserver no session key names: its
 * session comes in (unless --no-session). */
static bool on_adopt(void *ctx, uint32_t pid)
{
	struct katra_wine_names *n = ctx;

	if (n->mode == KATRA_SESSION_OFF || !n->ops.is_tracked(n->ops.ctx, pid))
		return false;
	n->adopted_from = pid;
	return true;
}

/* The keys added since the last call: their wineserver's listening socket
 * (DIR/socket, as the process that gave the key sees it) to the probes, so
 * that a process connecting to it is tracked from its connect on. */
static void watch_sockets(struct katra_wine_names *n)
{
	size_t nkeys = katra_session_nkeys(n->s);
	bool grew = false;

	for (; n->join_keys < nkeys; n->join_keys++) {
		char path[KATRA_SESSION_DIR_MAX + 16];
		const char *dir;
		uint32_t from;
		struct stat st;

		katra_session_key(n->s, (unsigned)n->join_keys, &dir, &from);
		snprintf(path, sizeof(path), "%s/socket", dir);
		if (katra_proc_stat(n->proc, from, path, &st) || !S_ISSOCK(st.st_mode))
			continue; /* its members are still found by the scans */
		n->join_socks[n->njoin][0] = ((uint64_t)major(st.st_dev) << 20) | minor(st.st_dev);
		n->join_socks[n->njoin][1] = st.st_ino;
		n->njoin++;
		grew = true;
	}
	if (grew && n->ops.join_socks)
		n->ops.join_socks(n->ops.ctx, (const uint64_t (*)[2])n->join_socks, n->njoin);
}

static int scan(struct katra_wine_names *n, bool initial)
{
	const struct katra_session_cb cb = { n, on_member, on_adopt };
	int rc = katra_session_scan(n->s, boottime_ns(), initial, &cb);

	watch_sockets(n);
	return rc;
}

int katra_wine_names_start(struct katra_wine_names *n, const struct katra_wine_ops *ops,
			   bool follow)
{
	uint32_t members[256], kids[256];
	size_t nm = 0;
	int rc = 0;

	n->ops = *ops;
	n->start_boot_ns = boottime_ns();
	n->follow = follow;
	if (n->mode == KATRA_SESSION_OFF)
		return 0;
	/* a Wine program below a target (a launcher script's child) brings its
	 * session too */
	int nk = follow ? katra_target_descendants(n->targets, n->ntargets, kids, 256) : 0;
	for (int i = 0; i < nk && i < 256; i++)
		katra_session_add_pid(n->s, kids[i]);
	if (!katra_session_nkeys(n->s))
		return 0;
	/* first: a process connecting from now on is tracked by the kernel */
	watch_sockets(n);
	for (int pass = 0; pass < 2 && rc >= 0; pass++)
		rc = scan(n, true);
	if (rc < 0) {
		if (n->err)
			fprintf(n->err, "katra-record: cannot look for the Wine session's processes "
				"in %s: %s\n", n->proc, strerror(-rc));
		return rc;
	}
	/* what the members run below them (Wine's own children are members) */
	for (size_t i = 0; i < n->start.n && nm < 256; i++)
		members[nm++] = n->start.v[i].pid;
	nk = follow && nm ? katra_target_descendants(members, nm, kids, 256) : 0;
	for (int i = 0; i < nk && i < 256; i++) {
		if (kids[i] == (uint32_t)getpid() || n->ops.is_tracked(n->ops.ctx, kids[i]) ||
		    n->ops.track(n->ops.ctx, kids[i]))
			continue;
		note_start(n, kids[i], KATRA_ORIGIN_DESCENDANT,
			   katra_wine_exe_is_loader(n->proc, kids[i]));
	}
	return 0;
}

const char *katra_wine_names_image(struct katra_wine_names *n, uint32_t pid)
{
	struct katra_wine_key k;
	bool wine = !katra_wine_server_key(n->proc, pid, &k, NULL, 0);

	return katra_wine_image(n->proc, pid, wine, n->image, sizeof(n->image)) ? NULL : n->image;
}

size_t katra_wine_names_notes(struct katra_wine_names *n, const uint32_t *targets, size_t nt,
			      const uint32_t *kids, size_t nk, char *notes, size_t note_len,
			      size_t cap)
{
	struct katra_roster r;
	size_t nn = 0;

	if (katra_roster_init(&r, nt + nk + n->start.n + 1))
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		const uint32_t *v = pass ? kids : targets;
		for (size_t i = 0; i < (pass ? nk : nt); i++) {
			char comm[64];
			const char *image = katra_wine_names_image(n, v[i]);
			katra_proc_comm(n->proc, v[i], comm, sizeof(comm));
			katra_roster_note(&r, v[i], pass ? KATRA_ORIGIN_DESCENDANT : KATRA_ORIGIN_TARGET,
					  comm, strlen(comm), image);
		}
	}
	for (size_t i = 0; i < n->start.n; i++) {
		const struct katra_proc_entry *e = &n->start.v[i];
		katra_roster_note(&r, e->pid, e->origin, e->comm, strlen(e->comm),
				  e->image[0] ? e->image : NULL);
	}
	if (n->mode == KATRA_SESSION_OFF && cap) {
		for (size_t i = 0; i < nt && !nn; i++) {
			struct katra_wine_key k;
			char dir[KATRA_SESSION_DIR_MAX];
			if (!katra_wine_server_key(n->proc, targets[i], &k, dir, sizeof(dir)))
				snprintf(notes + nn++ * note_len, note_len,
					 "wine session: off (--no-session): PID %u is connected to "
					 "the wineserver of %s; only its process tree is traced",
					 targets[i], dir);
		}
	}
	nn += katra_session_notes(&r, n->mode == KATRA_SESSION_OFF ? NULL : n->s,
				  notes + nn * note_len, note_len, cap - nn);
	katra_roster_free(&r);
	return nn;
}

static int exec_image(void *ctx, uint32_t tgid, char *buf, size_t cap)
{
	struct katra_wine_names *n = ctx;
	int rc = katra_wine_image(n->proc, tgid, katra_wine_exe_is_loader(n->proc, tgid), buf,
				  cap);

	if (!rc)
		n->wine_exec_seen = true; /* from now on, look for sessions to adopt */
	return rc;
}

static void on_named(void *ctx, uint32_t tgid, uint32_t origin, const char *comm, size_t len,
		     const char *image)
{
	struct katra_wine_names *n = ctx;

	/* tracked by the kernel at its connect: what it mapped before (ntdll.so)
	 * is looked at now */
	if (origin == KATRA_ORIGIN_WINE_JOINED && n->ops.track &&
	    !(n->roster.index && ktable_get(n->roster.index, tgid)))
		n->ops.track(n->ops.ctx, tgid);
	katra_roster_note(&n->roster, tgid, origin, comm, len, image);
}

void katra_wine_names_attach(struct katra_wine_names *n, struct emitter *e)
{
	n->em = e;
	e->windows_image = exec_image;
	e->on_named = on_named;
	e->names_ctx = n;
}

int katra_wine_names_emit_start(struct katra_wine_names *n, uint64_t key, bool record_paths)
{
	struct emitter *e = n->em;
	char exe[KATRA_PATH_MAX];

	for (size_t i = 0; i < n->start.n && !n->error; i++) {
		const struct katra_proc_entry *m = &n->start.v[i];
		if (n->roster.index && ktable_get(n->roster.index, m->pid))
			continue; /* named already: also below a target */
		bool has_exe = record_paths && !katra_target_exe(m->pid, exe, sizeof(exe));
		n->error = emit_process_info(e, key, m->pid, m->origin, m->comm,
					     has_exe ? exe : NULL, m->image[0] ? m->image : NULL);
	}
	n->live = true;
	return n->error;
}

int katra_wine_names_tick(struct katra_wine_names *n, uint64_t now)
{
	if (!n->live || n->mode == KATRA_SESSION_OFF || now < n->next_scan)
		return n->error;
	n->next_scan = now + KATRA_SESSION_SCAN_NS;
	/* nothing Wine in sight: no scan (a traced process exec'ing Wine's
	 * loader starts them) */
	if (!katra_session_nkeys(n->s) && !n->wine_exec_seen)
		return n->error;
	scan(n, false);
	return n->error;
}

struct katra_proc_entry *katra_wine_names_take_roster(struct katra_wine_names *n, size_t *len,
						      uint64_t *total)
{
	struct katra_proc_entry *v = n->roster.v;

	*len = n->roster.n;
	*total = n->roster.total;
	n->roster.v = NULL;
	n->roster.n = n->roster.cap = 0;
	return v;
}
