// SPDX-License-Identifier: GPL-2.0-only
/* Wine session discovery from /proc (session.h): the maps way, the roster,
 * the header notes; the socket-peer way is in session_sock.c. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "katra/format.h"
#include "session_int.h"

/* ---- parsing ---- */

static bool is_hex_run(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* "server-<hex>-<hex>", exactly n bytes. */
static bool is_server_component(const char *c, size_t n)
{
	if (n < 10 || strncmp(c, "server-", 7))
		return false;
	const char *a = c + 7, *end = c + n, *dash = memchr(a, '-', (size_t)(end - a));
	return dash && is_hex_run(a, (size_t)(dash - a)) &&
	       is_hex_run(dash + 1, (size_t)(end - dash - 1));
}

int katra_wine_maps_dir(const char *line, char *dir, size_t cap)
{
	const char *p = line;
	size_t len;

	/* start-end perms offset dev inode, then spaces, then the path */
	for (int f = 0; f < 5; f++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			return -ENOENT;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '/')
		return -ENOENT;
	len = strcspn(p, "\n");
	static const char deleted[] = " (deleted)";
	if (len >= sizeof(deleted) - 1 &&
	    !memcmp(p + len - (sizeof(deleted) - 1), deleted, sizeof(deleted) - 1))
		len -= sizeof(deleted) - 1;
	/* the component must have something below it: a file in the directory */
	for (size_t i = 0; i < len;) {
		while (i < len && p[i] == '/')
			i++;
		size_t start = i;
		while (i < len && p[i] != '/')
			i++;
		if (i < len && is_server_component(p + start, i - start)) {
			if (i + 1 > cap)
				return -ENAMETOOLONG;
			memcpy(dir, p, i);
			dir[i] = '\0';
			return 0;
		}
	}
	return -ENOENT;
}

static const char *base_of(const char *s, size_t len, size_t *blen)
{
	size_t i = len;

	while (i > 0 && s[i - 1] != '/' && s[i - 1] != '\\')
		i--;
	*blen = len - i;
	return s + i;
}

static bool base_is(const char *s, size_t len, const char *name)
{
	size_t blen;
	const char *b = base_of(s, len, &blen);

	return blen == strlen(name) && !memcmp(b, name, blen);
}

/* Wine's own launchers: Debian's script and loader, upstream's and Proton's
 * preloaders, the distributions' suffixed names. */
static bool is_wine_loader(const char *s, size_t len)
{
	static const char *const names[] = {
		"wine", "wine64", "wine-preloader", "wine64-preloader", "wine-stable",
		"wine64-stable", "wine-development", "wine64-development", "wine-staging",
		"wine64-staging", "wineloader",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (base_is(s, len, names[i]))
			return true;
	return false;
}

static bool is_drive_path(const char *s, size_t len)
{
	return len >= 3 && isalpha((unsigned char)s[0]) && s[1] == ':' &&
	       (s[2] == '\\' || s[2] == '/');
}

int katra_wine_image_from_argv(const char *buf, size_t len, bool wine_process, char *out,
			       size_t cap)
{
	const char *argv[8];
	size_t alen[8], argc = 0, i = 0;

	for (size_t pos = 0; pos < len && argc < 8;) {
		size_t n = strnlen(buf + pos, len - pos);
		if (n) { /* Wine pads a rewritten command line with NULs */
			argv[argc] = buf + pos;
			alen[argc++] = n;
		}
		pos += n + 1;
	}
	if (!argc)
		return -ENOENT;
	/* `/bin/sh /usr/bin/wine prog.exe` while the script runs */
	if (argc > 1 && (base_is(argv[0], alen[0], "sh") || base_is(argv[0], alen[0], "dash") ||
			 base_is(argv[0], alen[0], "bash")) && is_wine_loader(argv[1], alen[1]))
		i = 1;
	bool loader = false;
	while (i < argc && is_wine_loader(argv[i], alen[i])) {
		loader = true;
		i++;
	}
	if (i >= argc)
		return -ENOENT;
	if (!loader && !wine_process && !is_drive_path(argv[i], alen[i]))
		return -ENOENT;
	size_t blen;
	const char *b = base_of(argv[i], alen[i], &blen);
	if (!blen || (blen >= 10 && !strncmp(b, "wineserver", 10)))
		return -ENOENT;
	bool ext = memchr(b, '.', blen) != NULL;
	if (blen + (ext ? 0 : 4) + 1 > cap)
		return -ENAMETOOLONG;
	memcpy(out, b, blen);
	strcpy(out + blen, ext ? "" : ".exe");
	return 0;
}

/* ---- one process ---- */

/* The directory as PID sees it: PROC/PID/root/DIR; the plain path only when
 * that root cannot be read (a fake /proc without it, or no permission).  A
 * chrooted process's maps name its files from our root (the kernel writes
 * them relative to the reader's root): ROOT/tmp/... where ROOT is where its
 * root lies (PROC/PID/root's link), a path that may exist only in its mount
 * namespace (a private /tmp: pressure-vessel): PROC/PID/root/tmp/... is it. */
int sess_stat_as_seen_by(const char *proc, uint32_t pid, const char *dir, struct stat *st)
{
	char path[KATRA_SESSION_DIR_MAX + 128], rootdir[KATRA_SESSION_DIR_MAX];
	struct stat rst;
	ssize_t n;
	int rc;

	snprintf(path, sizeof(path), "%s/%u/root", proc, pid);
	if (lstat(path, &rst) == 0) {
		n = readlink(path, rootdir, sizeof(rootdir) - 1);
		snprintf(path, sizeof(path), "%s/%u/root%s", proc, pid, dir);
		if (stat(path, st) == 0)
			return 0;
		rc = -errno;
		if (n > 1) {
			rootdir[n] = '\0';
			if (!strncmp(dir, rootdir, (size_t)n) && dir[n] == '/') {
				snprintf(path, sizeof(path), "%s/%u/root%s", proc, pid, dir + n);
				if (stat(path, st) == 0)
					return 0;
			}
		}
		if (rc != -EACCES)
			return rc;
	}
	return stat(dir, st) ? -errno : 0;
}

int katra_wine_server_key(const char *proc, uint32_t pid, struct katra_wine_key *key, char *dir,
			  size_t dircap)
{
	char path[128], d[KATRA_SESSION_DIR_MAX];
	char *line = NULL;
	size_t lcap = 0;
	int rc = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u/maps", proc, pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (getline(&line, &lcap, f) > 0) {
		struct stat st;
		if (!strstr(line, "/server-") || katra_wine_maps_dir(line, d, sizeof(d)))
			continue;
		rc = sess_stat_as_seen_by(proc, pid, d, &st);
		if (rc)
			continue;
		if (!S_ISDIR(st.st_mode)) {
			rc = -ENOTDIR;
			continue;
		}
		key->dev = st.st_dev;
		key->ino = st.st_ino;
		if (dir)
			snprintf(dir, dircap, "%s", d);
		break;
	}
	free(line);
	fclose(f);
	return rc == -ENOTDIR ? -ENOENT : rc;
}

int katra_wine_image(const char *proc, uint32_t pid, bool wine_process, char *out, size_t cap)
{
	char path[128], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%u/cmdline", proc, pid);
	n = sess_read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return n < 0 ? (int)n : -ENOENT;
	return katra_wine_image_from_argv(buf, (size_t)n, wine_process, out, cap);
}

bool katra_wine_exe_is_loader(const char *proc, uint32_t pid)
{
	char path[128], exe[512];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%u/exe", proc, pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	static const char deleted[] = " (deleted)";
	if ((size_t)n > sizeof(deleted) && !strcmp(exe + n - (sizeof(deleted) - 1), deleted))
		n -= sizeof(deleted) - 1;
	return is_wine_loader(exe, (size_t)n);
}

void katra_proc_comm(const char *proc, uint32_t pid, char *buf, size_t cap)
{
	char path[128];
	ssize_t n;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%u/comm", proc, pid);
	n = sess_read_small(path, buf, cap - 1);
	if (n <= 0) {
		buf[0] = '\0';
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* ---- the sessions ---- */

#define PIDS_MAX 65536

int katra_session_new(const char *proc, struct katra_session **out)
{
	struct katra_session *s = calloc(1, sizeof(*s));
	long hz = sysconf(_SC_CLK_TCK);
	int rc;

	if (!s)
		return -ENOMEM;
	snprintf(s->proc, sizeof(s->proc), "%s", proc);
	s->sock_dump = katra_unix_diag_dump;
	s->tick_ns = hz > 0 ? 1000000000ull / (uint64_t)hz : 10000000ull;
	rc = ktable_init(&s->pids, PIDS_MAX, sizeof(struct pid_state));
	if (rc) {
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void katra_session_free(struct katra_session *s)
{
	if (!s)
		return;
	ktable_free(&s->pids);
	free(s);
}

static int key_index(const struct katra_session *s, const struct katra_wine_key *k)
{
	for (size_t i = 0; i < s->nkeys; i++)
		if (s->keys[i].dev == k->dev && s->keys[i].ino == k->ino)
			return (int)i;
	return -1;
}

static int add_key(struct katra_session *s, const struct katra_wine_key *k, const char *dir,
		   uint32_t pid)
{
	if (key_index(s, k) >= 0)
		return 0;
	if (s->nkeys == KATRA_SESSION_MAX_KEYS)
		return -ENOSPC;
	s->keys[s->nkeys] = *k;
	snprintf(s->dirs[s->nkeys], sizeof(s->dirs[0]), "%s", dir);
	s->from[s->nkeys] = pid;
	s->sock_rc[s->nkeys] = -EAGAIN; /* not looked at yet */
	s->nkeys++;
	return 0;
}

int katra_session_add_pid(struct katra_session *s, uint32_t pid)
{
	struct katra_wine_key k;
	char dir[KATRA_SESSION_DIR_MAX];
	int rc = katra_wine_server_key(s->proc, pid, &k, dir, sizeof(dir));

	return rc ? rc : add_key(s, &k, dir, pid);
}

size_t katra_session_nkeys(const struct katra_session *s)
{
	return s->nkeys;
}

const struct katra_wine_key *katra_session_key(const struct katra_session *s, unsigned i,
					       const char **dir, uint32_t *from_pid)
{
	if (i >= s->nkeys)
		return NULL;
	if (dir)
		*dir = s->dirs[i];
	if (from_pid)
		*from_pid = s->from[i];
	return &s->keys[i];
}

void katra_session_get_stats(const struct katra_session *s, struct katra_session_stats *st)
{
	*st = s->st;
}

/* Reads pid's maps; reports it when it is a member (and, when it brings its
 * session in, the processes already seen in it).  Returns how many were
 * reported. */
static int check_pid(struct katra_session *s, uint32_t pid, struct pid_state *ps, bool joined,
		     const struct katra_session_cb *cb)
{
	struct katra_wine_key k;
	char dir[KATRA_SESSION_DIR_MAX];
	int rc, idx, reported = 0;

	s->st.maps_read++;
	rc = katra_wine_server_key(s->proc, pid, &k, dir, sizeof(dir));
	if (ps)
		ps->checked = 1;
	if (rc)
		return 0;
	if (ps) {
		ps->has_key = 1;
		ps->key = k;
	}
	idx = key_index(s, &k);
	if (idx < 0 && cb->adopt && cb->adopt(cb->ctx, pid) && !add_key(s, &k, dir, pid)) {
		idx = key_index(s, &k);
		/* the processes already seen with that key: there before it was known */
		ktable_each(&s->pids, i) {
			struct pid_state *o = ktable_value_at(&s->pids, i);
			uint32_t opid = (uint32_t)ktable_key_at(&s->pids, i);
			if (o != ps && !o->checked && o->state != PID_MEMBER) {
				/* not read yet: read it now, or it would count as joined later */
				struct katra_wine_key ok;
				char odir[KATRA_SESSION_DIR_MAX];
				s->st.maps_read++;
				o->checked = 1;
				if (!katra_wine_server_key(s->proc, opid, &ok, odir, sizeof(odir))) {
					o->has_key = 1;
					o->key = ok;
				}
			}
			if (o == ps || o->state == PID_MEMBER || !o->has_key ||
			    o->key.dev != k.dev || o->key.ino != k.ino)
				continue;
			o->state = PID_MEMBER;
			o->by |= FOUND_DIR;
			s->st.members++;
			reported++;
			cb->member(cb->ctx, opid, (unsigned)idx, false);
		}
		joined = false;
	}
	if (idx < 0)
		return reported;
	if (ps) {
		ps->state = PID_MEMBER;
		ps->by |= FOUND_DIR;
	}
	s->st.members++;
	cb->member(cb->ctx, pid, (unsigned)idx, joined);
	return reported + 1;
}

int katra_session_scan(struct katra_session *s, uint64_t now_ns, bool initial,
		       const struct katra_session_cb *cb)
{
	DIR *d = opendir(s->proc);
	struct dirent *de;
	unsigned budget = initial ? UINT32_MAX : KATRA_SESSION_SCAN_BUDGET;
	bool sweep = initial || now_ns >= s->next_sweep;
	int found = 0;

	if (!d)
		return -errno;
	s->gen++;
	s->st.scans++;
	if (sweep)
		s->next_sweep = now_ns + KATRA_SESSION_SWEEP_NS;
	while ((de = readdir(d))) {
		char *end, comm[16];
		uint64_t start;
		bool created;
		unsigned long v = strtoul(de->d_name, &end, 10);
		if (*end || !v || v > UINT32_MAX)
			continue;
		uint32_t pid = (uint32_t)v;
		struct pid_state *ps = ktable_get(&s->pids, pid);
		if (ps && ps->state != PID_PENDING && !sweep) {
			ps->gen = s->gen;
			continue;
		}
		if (!ps || sweep) {
			s->st.stats_read++;
			if (sess_read_stat(s->proc, pid, comm, sizeof(comm), &start))
				continue; /* gone */
			if (ps && ps->start != start) {
				ktable_remove(&s->pids, pid); /* pid reused: a new process */
				ps = NULL;
			}
		}
		if (!ps) {
			if (!budget)
				continue; /* next time */
			ps = ktable_upsert(&s->pids, pid, &created);
			if (ps) {
				memset(ps, 0, sizeof(*ps));
				ps->start = start;
				memcpy(ps->comm, comm, sizeof(ps->comm));
				ps->pending_until = start * s->tick_ns + KATRA_SESSION_PENDING_NS;
			}
		} else if (ps->state == PID_SETTLED && strncmp(ps->comm, comm, sizeof(ps->comm))) {
			/* it exec'd something else: maybe Wine */
			memcpy(ps->comm, comm, sizeof(ps->comm));
			ps->state = PID_PENDING;
			ps->pending_until = now_ns + KATRA_SESSION_PENDING_NS;
			ps->checked = 0;
			ps->interval = 0;
		}
		if (ps)
			ps->gen = s->gen;
		if (ps && ps->state != PID_PENDING)
			continue;
		/* a young one not connected yet: its maps again when it exec'd
		 * (comm changed) or its next check is due (backing off) */
		if (ps && ps->checked && now_ns < ps->pending_until) {
			char now_comm[16];
			katra_proc_comm(s->proc, pid, now_comm, sizeof(now_comm));
			if (now_comm[0] && strncmp(now_comm, ps->comm, sizeof(ps->comm))) {
				memcpy(ps->comm, now_comm, sizeof(ps->comm));
				ps->interval = 0;
			} else if (now_ns < ps->next_check) {
				continue;
			}
		}
		if (!budget)
			continue;
		budget--;
		found += check_pid(s, pid, ps, !initial, cb);
		if (!ps || ps->state != PID_PENDING)
			continue;
		if (now_ns >= ps->pending_until) {
			ps->state = PID_SETTLED;
			continue;
		}
		ps->interval = ps->interval ? ps->interval * 2 : KATRA_SESSION_RECHECK_NS;
		ps->next_check = now_ns + ps->interval;
	}
	closedir(d);
	/* forget the pids that are gone */
	ktable_each(&s->pids, i) {
		struct pid_state *ps = ktable_value_at(&s->pids, i);
		if (ps->gen != s->gen)
			ktable_remove(&s->pids, ktable_key_at(&s->pids, i));
	}
	if (initial && s->nkeys)
		found += sess_sock_scan(s, cb);
	return found;
}

/* ---- the roster ---- */

int katra_roster_init(struct katra_roster *r, size_t max)
{
	struct ktable *t = calloc(1, sizeof(*t));
	int rc;

	memset(r, 0, sizeof(*r));
	if (!t)
		return -ENOMEM;
	rc = ktable_init(t, max, sizeof(uint32_t));
	if (rc) {
		free(t);
		return rc;
	}
	r->index = t;
	r->max = max;
	return 0;
}

void katra_roster_free(struct katra_roster *r)
{
	if (r->index) {
		ktable_free(r->index);
		free(r->index);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

void katra_roster_note(struct katra_roster *r, uint32_t pid, uint32_t origin, const char *comm,
		       size_t comm_len, const char *image)
{
	struct katra_proc_entry *e;
	bool created;
	uint32_t *pos;

	if (!r->index)
		return;
	pos = ktable_get(r->index, pid);
	if (pos) {
		e = &r->v[*pos];
	} else {
		r->total++;
		if (r->n == r->max || !(pos = ktable_upsert(r->index, pid, &created)))
			return;
		if (r->n == r->cap) {
			size_t cap = r->cap ? r->cap * 2 : 64;
			struct katra_proc_entry *v = realloc(r->v, cap * sizeof(*v));
			if (!v) {
				ktable_remove(r->index, pid);
				return;
			}
			r->v = v;
			r->cap = cap;
		}
		*pos = (uint32_t)r->n;
		e = &r->v[r->n++];
		memset(e, 0, sizeof(*e));
		e->pid = pid;
		e->origin = origin;
	}
	if (comm_len >= sizeof(e->comm))
		comm_len = sizeof(e->comm) - 1;
	memcpy(e->comm, comm, comm_len);
	e->comm[comm_len] = '\0';
	snprintf(e->image, sizeof(e->image), "%s", image ? image : "");
}

/* ---- header notes ---- */

static const char *origin_words(uint32_t origin)
{
	switch (origin) {
	case KATRA_ORIGIN_TARGET: return "target (-p)";
	case KATRA_ORIGIN_COMMAND: return "command (--)";
	case KATRA_ORIGIN_DESCENDANT: return "descendant of a target";
	case KATRA_ORIGIN_WINE_SESSION: return "wine session (same server dir)";
	case KATRA_ORIGIN_WINE_JOINED: return "joined the wine session";
	default: return katra_process_origin_name(origin);
	}
}

size_t katra_session_notes(const struct katra_roster *start, const struct katra_session *s,
			   char *notes, size_t note_len, size_t cap)
{
	size_t nn = 0, left = 0;

	for (size_t i = 0; s && i < s->nkeys && nn < cap; i++) {
		snprintf(notes + nn++ * note_len, note_len,
			 "wine session: server dir %s (device %u:%u, inode %llu), of PID %u; "
			 "processes connecting later: origin WineJoined",
			 s->dirs[i], major(s->keys[i].dev), minor(s->keys[i].dev),
			 (unsigned long long)s->keys[i].ino, s->from[i]);
		if (nn < cap && s->sock_rc[i] != -EAGAIN)
			sess_sock_note(s, i, notes + nn++ * note_len, note_len);
	}
	/* per origin; WineSession members found by their socket only are a
	 * group of their own (o == KATRA_ORIGIN_COUNT) */
	for (uint32_t o = 0; o <= KATRA_ORIGIN_COUNT; o++) {
		char *line = NULL;
		size_t used = 0;
		for (size_t i = 0; i < start->n; i++) {
			const struct katra_proc_entry *e = &start->v[i];
			char item[128];
			bool sock = e->origin == KATRA_ORIGIN_WINE_SESSION &&
				    sess_by_socket_only(s, e->pid);
			if (sock ? o != KATRA_ORIGIN_COUNT : e->origin != o)
				continue;
			size_t n = (size_t)snprintf(item, sizeof(item), "%u (%s)", e->pid,
						    e->image[0] ? e->image : e->comm);
			if (line && used + 2 + n < note_len) {
				used += (size_t)snprintf(line + used, note_len - used, ", %s", item);
				continue;
			}
			if (nn + 1 >= cap) { /* the last line says how many more */
				left++;
				continue;
			}
			line = notes + nn++ * note_len;
			snprintf(line, note_len, "traced from the start, %s: %s",
				 o == KATRA_ORIGIN_COUNT ? "wine session (wineserver socket peer)" :
				 origin_words(o), item);
			used = strlen(line);
		}
	}
	if (left && nn < cap)
		snprintf(notes + nn++ * note_len, note_len,
			 "traced from the start: %zu more processes (their ProcessInfo events "
			 "name them)", left);
	return nn;
}
