/* SPDX-License-Identifier: GPL-2.0-only */
/* Inside Wine session discovery (session.c: /proc, the maps way, the roster
 * and notes; session_sock.c: the socket-peer way): the session state they
 * share and the helpers they call. */
#ifndef KATRA_RECORD_SESSION_INT_H
#define KATRA_RECORD_SESSION_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session.h"
#include "record/table/table.h"

enum { PID_PENDING = 0, PID_SETTLED, PID_MEMBER };

struct pid_state {
	uint64_t start;          /* /proc/PID/stat start time, ticks */
	uint64_t pending_until;  /* CLOCK_BOOTTIME ns */
	uint64_t next_check;     /* a pending one's next maps read, at the latest */
	uint64_t interval;       /* ... doubling from RECHECK_NS */
	uint64_t gen;            /* last scan that saw it */
	struct katra_wine_key key;
	char comm[16];
	uint8_t state;
	uint8_t has_key;         /* maps a server directory (key) */
	uint8_t checked;         /* its maps were read at least once */
	uint8_t by;              /* found by: FOUND_DIR (maps), FOUND_SOCK (socket peer) */
	uint8_t sock_key;        /* FOUND_SOCK: the key whose wineserver it talks to */
};

enum { FOUND_DIR = 1, FOUND_SOCK = 2 };

struct katra_session {
	char proc[KATRA_SESSION_DIR_MAX];
	struct katra_wine_key keys[KATRA_SESSION_MAX_KEYS];
	char dirs[KATRA_SESSION_MAX_KEYS][KATRA_SESSION_DIR_MAX];
	uint32_t from[KATRA_SESSION_MAX_KEYS];
	/* the socket-peer way, at capture start: wineserver's pid, or the
	 * reason it found none (-errno) */
	uint32_t sock_server[KATRA_SESSION_MAX_KEYS];
	int sock_rc[KATRA_SESSION_MAX_KEYS];
	int (*sock_dump)(struct katra_unix_socks *out);
	size_t nkeys;
	struct ktable pids;      /* pid -> struct pid_state */
	uint64_t gen;
	uint64_t next_sweep;
	uint64_t tick_ns;
	struct katra_session_stats st;
};

struct stat;
/* stat of PATH (a file or directory PID's maps name) as PID sees it:
 * PROC/PID/root/PATH; for a chrooted PID, whose maps name it from our root
 * (ROOT/...), PROC/PID/root/... with ROOT stripped; the plain PATH only when
 * PID's root cannot be read.  0 or -errno. */
int sess_stat_as_seen_by(const char *proc, uint32_t pid, const char *path, struct stat *st);
/* Up to cap bytes of a small file (a /proc entry), or -errno. */
ssize_t sess_read_small(const char *path, char *buf, size_t cap);
/* From PROC/PID/stat: comm (between the first '(' and the last ')') and
 * the start time (field 22, clock ticks after boot). */
int sess_read_stat(const char *proc, uint32_t pid, char *comm, size_t ccap, uint64_t *start);

/* The socket-peer way (session_sock.c), at the scans of capture start: the
 * processes talking to each key's wineserver; those the maps missed (one
 * that connected but maps nothing under the directory yet) are members
 * too.  Returns how many it reported. */
int sess_sock_scan(struct katra_session *s, const struct katra_session_cb *cb);
/* How the members of key k were found at capture start (a header note). */
void sess_sock_note(const struct katra_session *s, size_t k, char *line, size_t len);
/* A member found by its socket to wineserver only (the maps said nothing) */
bool sess_by_socket_only(const struct katra_session *s, uint32_t pid);

#endif
