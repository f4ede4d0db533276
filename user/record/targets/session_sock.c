// SPDX-License-Identifier: GPL-2.0-only
/* A Wine session's members by the other reliable way (session.h): the
 * processes holding a unix socket whose peer wineserver holds.  Every Wine
 * process talks to its wineserver over one: the first `wine` connects to
 * DIR/socket (wineserver's listening socket), and a process Wine creates
 * gets one end of a socketpair whose other end its parent hands wineserver.
 * wineserver alone holds its ends of both; the copies of its clients' other
 * sockets that it keeps (X connections) are held by the clients too, and
 * lead to no Wine process (katra_wine_sock_members).
 * The sockets' peers come from the kernel (sock_diag, NETLINK_SOCK_DIAG with
 * UNIX_DIAG_PEER; the listener by UNIX_DIAG_VFS, the device and inode of its
 * DIR/socket file), their holders from PROC/PID/fd ("socket:[INODE]").
 * The initial scans of a session (session.c) add the members found this way
 * and say in the header notes which way found whom. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "session_int.h"

#define TCP_LISTEN_ 10

static int push_sock(struct katra_unix_socks *t, const struct katra_unix_sock *u)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct katra_unix_sock *v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = *u;
	return 0;
}

int katra_unix_diag_parse(const void *buf, size_t len, struct katra_unix_socks *out)
{
	const char *p = buf;

	while (len >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *h = (const void *)p;
		if (h->nlmsg_len < sizeof(*h) || h->nlmsg_len > len)
			return -EBADMSG;
		if (h->nlmsg_type == NLMSG_DONE)
			return 1;
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
				return -EBADMSG;
			return e->error ? e->error : -EBADMSG;
		}
		if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY &&
		    h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct unix_diag_msg))) {
			const struct unix_diag_msg *m = NLMSG_DATA(h);
			struct katra_unix_sock u = { .ino = m->udiag_ino, .state = m->udiag_state };
			const char *a = (const char *)(m + 1);
			size_t alen = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
			while (alen >= sizeof(struct nlattr)) {
				const struct nlattr *at = (const void *)a;
				size_t step = NLA_ALIGN(at->nla_len);
				if (at->nla_len < sizeof(*at) || at->nla_len > alen)
					break;
				const void *d = a + NLA_HDRLEN;
				size_t dlen = at->nla_len - NLA_HDRLEN;
				if (at->nla_type == UNIX_DIAG_PEER && dlen >= sizeof(uint32_t)) {
					memcpy(&u.peer, d, sizeof(uint32_t));
				} else if (at->nla_type == UNIX_DIAG_VFS &&
					   dlen >= sizeof(struct unix_diag_vfs)) {
					struct unix_diag_vfs vfs;
					memcpy(&vfs, d, sizeof(vfs));
					/* the kernel's own dev_t (major << 20 | minor) */
					u.vfs_dev = makedev(vfs.udiag_vfs_dev >> 20,
							    vfs.udiag_vfs_dev & 0xfffff);
					u.vfs_ino = vfs.udiag_vfs_ino;
					u.has_vfs = 1;
				}
				if (step >= alen)
					break;
				a += step;
				alen -= step;
			}
			int rc = push_sock(out, &u);
			if (rc)
				return rc;
		}
		size_t step = NLMSG_ALIGN(h->nlmsg_len);
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return 0;
}

int katra_unix_diag_dump(struct katra_unix_socks *out)
{
	struct {
		struct nlmsghdr h;
		struct unix_diag_req r;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.r = { .sdiag_family = AF_UNIX, .udiag_states = ~0u,
		       .udiag_show = UDIAG_SHOW_VFS | UDIAG_SHOW_PEER },
	};
	static char buf[32768] __attribute__((aligned(8)));
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (send(fd, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		rc = -errno;
	while (!rc) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -EBADMSG;
			break;
		}
		rc = katra_unix_diag_parse(buf, (size_t)n, out);
	}
	close(fd);
	return rc < 0 ? rc : 0;
}

int katra_socket_inode(const char *link, uint32_t *ino)
{
	char *end;
	unsigned long v;

	if (strncmp(link, "socket:[", 8))
		return -ENOENT;
	v = strtoul(link + 8, &end, 10);
	if (end == link + 8 || strcmp(end, "]") || v > UINT32_MAX)
		return -ENOENT;
	*ino = (uint32_t)v;
	return 0;
}

/* (pid, socket inode) for every unix socket some process holds */
struct holder {
	uint32_t pid, ino;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static bool has_u32(const uint32_t *v, size_t n, uint32_t x)
{
	return n && bsearch(&x, v, n, sizeof(*v), cmp_u32);
}

/* Every PROC/PID/fd entry that is one of the unix sockets inos[n] (sorted). */
static int walk_holders(const char *proc, const uint32_t *inos, size_t n, struct holder **out,
			size_t *nout)
{
	DIR *d = opendir(proc);
	struct dirent *de;
	struct holder *v = NULL;
	size_t cnt = 0, cap = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[256 + 64], link[64];
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);
		if (*end || !pid || pid > UINT32_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/%lu/fd", proc, pid);
		DIR *fds = opendir(path);
		if (!fds)
			continue; /* gone, or not ours to read */
		struct dirent *fe;
		while ((fe = readdir(fds))) {
			uint32_t ino;
			if (fe->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%lu/fd/%s", proc, pid, fe->d_name);
			ssize_t l = readlink(path, link, sizeof(link) - 1);
			if (l <= 0)
				continue;
			link[l] = '\0';
			if (katra_socket_inode(link, &ino) || !has_u32(inos, n, ino))
				continue;
			if (cnt == cap) {
				size_t nc = cap ? cap * 2 : 256;
				struct holder *nv = realloc(v, nc * sizeof(*nv));
				if (!nv) {
					closedir(fds);
					closedir(d);
					free(v);
					return -ENOMEM;
				}
				v = nv;
				cap = nc;
			}
			v[cnt++] = (struct holder){ (uint32_t)pid, ino };
		}
		closedir(fds);
	}
	closedir(d);
	*out = v;
	*nout = cnt;
	return 0;
}

static int add_pid(uint32_t **v, size_t *n, size_t *cap, uint32_t pid)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i] == pid)
			return 0;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 32;
		uint32_t *nv = realloc(*v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = pid;
	return 0;
}

int katra_wine_sock_members(const char *proc, uint32_t from_pid, const char *dir,
			    const struct katra_unix_socks *socks, uint32_t **pids, size_t *npids,
			    uint32_t *server)
{
	char path[2 * KATRA_SESSION_DIR_MAX];
	struct stat st;
	uint32_t listener = 0, *inos = NULL, *peers = NULL, *bound = NULL, *conn = NULL, *v = NULL;
	size_t ninos = 0, npeers = 0, nbound = 0, nh = 0, n = 0, cap = 0;
	struct holder *h = NULL;
	int rc = 0;

	*pids = NULL;
	*npids = 0;
	*server = 0;
	/* the listener: bound to DIR/socket, as the process that gave DIR sees it */
	snprintf(path, sizeof(path), "%s/socket", dir);
	rc = sess_stat_as_seen_by(proc, from_pid, path, &st);
	if (rc)
		return rc;
	for (size_t i = 0; i < socks->n; i++) {
		const struct katra_unix_sock *u = &socks->v[i];
		if (u->has_vfs && u->state == TCP_LISTEN_ && u->vfs_dev == st.st_dev &&
		    u->vfs_ino == st.st_ino)
			listener = u->ino;
	}
	if (!listener)
		return -ENOENT;
	inos = malloc((socks->n ? socks->n : 1) * sizeof(*inos));
	if (!inos) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < socks->n; i++)
		inos[ninos++] = socks->v[i].ino;
	qsort(inos, ninos, sizeof(*inos), cmp_u32);
	rc = walk_holders(proc, inos, ninos, &h, &nh);
	if (rc)
		goto out;
	/* one entry per fd: a socket may have many */
	size_t most = (nh > socks->n ? nh : socks->n) + 1;
	uint32_t *more = realloc(inos, most * sizeof(*inos));
	if (more)
		inos = more;
	peers = malloc(most * sizeof(*peers));
	conn = malloc(most * sizeof(*conn));
	if (!more || !peers || !conn) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nh && !*server; i++)
		if (h[i].ino == listener)
			*server = h[i].pid;
	if (!*server) {
		rc = -ENOENT;
		goto out;
	}
	/* wineserver's connections to its clients: the sockets that it alone
	 * holds (the accepted ends of DIR/socket, its ends of the socketpairs
	 * parents hand it for their children) and whose peer is bound to no
	 * file.  It also holds copies of its clients' other sockets (an X
	 * connection, polled for a thread's message queue): the client holds
	 * them too, and their peers (the X server's accepted ends) are no Wine
	 * processes. */
	for (size_t i = 0; i < nh; i++)
		if (h[i].pid != *server)
			peers[npeers++] = h[i].ino; /* held by someone else */
	qsort(peers, npeers, sizeof(*peers), cmp_u32);
	ninos = 0;
	for (size_t i = 0; i < nh; i++)
		if (h[i].pid == *server && !has_u32(peers, npeers, h[i].ino))
			inos[ninos++] = h[i].ino; /* inos is free again: wineserver's own */
	qsort(inos, ninos, sizeof(*inos), cmp_u32);
	npeers = 0;
	for (size_t j = 0; j < socks->n; j++)
		if (socks->v[j].has_vfs)
			peers[npeers++] = socks->v[j].ino; /* bound to a file */
	qsort(peers, npeers, sizeof(*peers), cmp_u32);
	bound = peers;
	nbound = npeers;
	npeers = 0;
	for (size_t j = 0; j < socks->n; j++) {
		const struct katra_unix_sock *u = &socks->v[j];
		if (!u->peer || !has_u32(inos, ninos, u->ino) || has_u32(bound, nbound, u->peer))
			continue;
		if (u->has_vfs && (u->state == TCP_LISTEN_ || u->vfs_dev != st.st_dev ||
				   u->vfs_ino != st.st_ino))
			continue; /* bound to another file than DIR/socket */
		conn[npeers++] = u->peer;
	}
	qsort(conn, npeers, sizeof(*conn), cmp_u32);
	rc = add_pid(&v, &n, &cap, *server);
	for (size_t i = 0; i < nh && !rc; i++)
		if (h[i].pid != *server && has_u32(conn, npeers, h[i].ino))
			rc = add_pid(&v, &n, &cap, h[i].pid);
out:
	free(inos);
	free(peers);
	free(conn);
	free(h);
	if (rc) {
		free(v);
		return rc;
	}
	*pids = v;
	*npids = n;
	return 0;
}

/* ---- the session's side: members at capture start, their notes ---- */

int sess_sock_scan(struct katra_session *s, const struct katra_session_cb *cb)
{
	struct katra_unix_socks socks = { 0 };
	int found = 0, rc = s->sock_dump(&socks);

	for (size_t k = 0; k < s->nkeys; k++) {
		uint32_t *pids = NULL, server = 0;
		size_t n = 0;
		int krc = rc ? rc : katra_wine_sock_members(s->proc, s->from[k], s->dirs[k], &socks,
							   &pids, &n, &server);
		if (s->sock_rc[k] != 0 || !krc) { /* a later scan's failure keeps a success */
			s->sock_rc[k] = krc;
			s->sock_server[k] = server;
		}
		for (size_t i = 0; i < n; i++) {
			bool created;
			struct pid_state *ps = ktable_upsert(&s->pids, pids[i], &created);
			if (!ps)
				continue;
			if (created) {
				char comm[16];
				uint64_t start = 0;
				memset(ps, 0, sizeof(*ps));
				if (sess_read_stat(s->proc, pids[i], comm, sizeof(comm), &start)) {
					ktable_remove(&s->pids, pids[i]);
					continue;
				}
				ps->start = start;
				memcpy(ps->comm, comm, sizeof(ps->comm));
				ps->gen = s->gen;
				ps->state = PID_SETTLED;
			}
			ps->by |= FOUND_SOCK;
			ps->sock_key = (uint8_t)k;
			if (ps->state == PID_MEMBER)
				continue;
			ps->state = PID_MEMBER;
			s->st.members++;
			found++;
			cb->member(cb->ctx, pids[i], (unsigned)k, false);
		}
		free(pids);
	}
	free(socks.v);
	return found;
}

void katra_session_set_sock_dump(struct katra_session *s,
				 int (*dump)(struct katra_unix_socks *out))
{
	s->sock_dump = dump;
}

void sess_sock_note(const struct katra_session *s, size_t k, char *line, size_t len)
{
	size_t by_dir = 0, by_sock = 0, both = 0;
	struct ktable *t = (struct ktable *)&s->pids;

	if (s->sock_rc[k]) {
		snprintf(line, len, "wine session: server dir %s: wineserver socket peers not "
			 "found: %s", s->dirs[k], s->sock_rc[k] == -ENOENT ?
			 "no process we can see holds the socket listening on DIR/socket" :
			 strerror(-s->sock_rc[k]));
		return;
	}
	ktable_each(t, i) {
		const struct pid_state *ps = ktable_value_at(t, i);
		bool d = (ps->by & FOUND_DIR) && ps->has_key && ps->key.dev == s->keys[k].dev &&
			 ps->key.ino == s->keys[k].ino;
		bool k2 = (ps->by & FOUND_SOCK) && ps->sock_key == k;
		by_dir += d;
		by_sock += k2;
		both += d && k2;
	}
	snprintf(line, len, "wine session: server dir %s: at start %zu processes by server dir, "
		 "%zu by wineserver socket peer (wineserver PID %u), %zu by both", s->dirs[k],
		 by_dir, by_sock, s->sock_server[k], both);
}

bool sess_by_socket_only(const struct katra_session *s, uint32_t pid)
{
	const struct pid_state *ps = s ? ktable_get((struct ktable *)&s->pids, pid) : NULL;

	return ps && ps->by == FOUND_SOCK;
}
