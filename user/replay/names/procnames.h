/* SPDX-License-Identifier: GPL-2.0-only */
/* Process names from the trace's ProcessInfo events (EventKind 43): pid ->
 * the latest name seen, windows_image when present, else comm; and thread
 * names from its TaskRename events (EventKind 46): tid -> the latest name
 * given to that thread.  Bounded (KR_MAX_NAMED_PROCESSES pids and as many
 * tids, names cut at KR_PROCNAME_MAX bytes), fed one event at a time: a
 * streaming dump shows the name known so far, stats the names known by the
 * end. */
#ifndef KATRA_REPLAY_PROCNAMES_H
#define KATRA_REPLAY_PROCNAMES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "katra/format.h"
#include "replay/util/xmap.h"

#define KR_MAX_NAMED_PROCESSES (1u << 16)
#define KR_PROCNAME_MAX 64

#define KR_MAX_REQUEST_NAMES 4096
#define KR_MAX_UNIX_LIBS 256 /* WineUnixCallNames tables kept */

/* A unix library's call names in one process (a WineUnixCallNames event,
 * EventKind 47): names[i] names function index i (NULL when none). */
struct kr_unix_names {
	uint64_t pid, handle;
	char **names;
	uint32_t count;
};

struct kr_procnames {
	struct kr_xmap map; /* pid -> struct kr_procname */
	struct kr_xmap threads; /* tid -> struct kr_procname (origin unused) */
	/* the wineserver request names of the latest WineServerRequests event
	 * (EventKind 45): requests[i] names request i (NULL when none) */
	char **requests;
	uint32_t nrequests;
	struct kr_unix_names *unix_libs; /* KR_MAX_UNIX_LIBS of them */
	uint32_t nunix;
	bool looked_ahead;               /* kr_procnames_look_ahead ran */
};

struct kr_procname {
	uint32_t len; /* bytes in name */
	uint32_t origin; /* enum katra_process_origin */
	char name[KR_PROCNAME_MAX + 1]; /* NUL-terminated */
};

void kr_procnames_init(struct kr_procnames *p);
void kr_procnames_free(struct kr_procnames *p);
/* Takes the name from a ProcessInfo event, a thread's from a TaskRename,
 * the request names from a WineServerRequests event and a unix library's
 * call names from a WineUnixCallNames event; ignores every other event. */
void kr_procnames_see(struct kr_procnames *p, const struct katra_event *e);
/* The name of wineserver request `request` from the latest table seen, or
 * NULL (p may be NULL). */
const char *kr_procnames_request(const struct kr_procnames *p, uint32_t request);
/* The name of function index `index` of the unix library whose handle (its
 * table's address) in process pid is handle, from the latest
 * WineUnixCallNames of that (pid, handle), or NULL (p may be NULL). */
const char *kr_procnames_unix_call(const struct kr_procnames *p, uint64_t pid, uint64_t handle,
				   uint32_t index);
/* A unix call as every command names it (stats, export, report): "WinToUnix
 * NAME" from its library's table in process pid, else "WinToUnix INDEX (lib
 * 0xHANDLE)", the library by its handle (the address of its table).
 * Returns buf (cut to cap - 1 bytes). */
const char *kr_unix_call_label(const struct kr_procnames *p, uint64_t pid, uint64_t handle,
			       uint32_t index, char *buf, size_t cap);
/* The WineUnixCallNames tables of the whole trace at path, read once (a
 * regular file only: a pipe can be read only once): a streaming reader
 * (dump, export) calls it at the first WinToUnix call it meets, since a
 * library's table follows its first calls (the recorder reads the library
 * off its hot path). */
void kr_procnames_look_ahead(struct kr_procnames *p, const char *path);
/* The name of pid, or NULL (p may be NULL). */
const struct kr_procname *kr_procnames_get(const struct kr_procnames *p, uint64_t pid);
/* The latest name given to thread tid (a TaskRename), or NULL when it was
 * never renamed (p may be NULL). */
const struct kr_procname *kr_procnames_thread(const struct kr_procnames *p, uint64_t tid);
/* The name thread tid goes by: its own (kr_procnames_thread), else its
 * process's, or NULL. */
const struct kr_procname *kr_procnames_thread_or_process(const struct kr_procnames *p,
							 uint64_t tid, uint64_t pid);

/* Text forms.  A name made only of letters, digits and "._+-:~@#%=,/" is
 * written bare, anything else JSON-quoted, so a line still splits on spaces:
 *   kr_put_pid:  "1234(tar)", "1234(\"Game Launcher.exe\")", or "1234" when
 *                the name is unknown;
 *   kr_put_name: "tar", "\"Game Launcher.exe\"", or "-". */
void kr_put_pid(FILE *f, const struct kr_procnames *p, uint64_t pid);
void kr_put_name(FILE *f, const struct kr_procnames *p, uint64_t pid);
/*   kr_put_tid:  "1235(render)" for a renamed thread, else "1235" (dump,
 *                beside the pid and its name);
 *   kr_put_thread: a thread as report, stats and export name it on its own:
 *                its name, else its process's, "1235(render)",
 *                "18547(prog.exe)", or "18547". */
void kr_put_tid(FILE *f, const struct kr_procnames *p, uint64_t tid);
void kr_put_thread(FILE *f, const struct kr_procnames *p, uint64_t tid, uint64_t pid);
/* kr_put_pid's text in buf (cut to cap - 1 bytes); returns buf. */
const char *kr_pid_label(const struct kr_procnames *p, uint64_t pid, char *buf, size_t cap);
/* kr_put_tid's text in buf (cut to cap - 1 bytes); returns buf. */
const char *kr_tid_label(const struct kr_procnames *p, uint64_t tid, char *buf, size_t cap);
/* A thread's name alone, as kr_put_thread writes it without the id: its own
 * name, else its process's ("render", "gzip", "\"Game Launcher.exe\""), or
 * "" when neither is known (compare: ids differ between runs, names do
 * not). */
const char *kr_thread_name_label(const struct kr_procnames *p, uint64_t tid, uint64_t pid,
				 char *buf, size_t cap);

#endif
