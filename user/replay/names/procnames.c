// SPDX-License-Identifier: GPL-2.0-only
/* The pid -> process name table (see procnames.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "katra/replay.h"
#include "replay/util/out.h"
#include "procnames.h"

void kr_procnames_init(struct kr_procnames *p)
{
	kr_xmap_init(&p->map, sizeof(uint64_t), sizeof(struct kr_procname),
		     KR_MAX_NAMED_PROCESSES);
	kr_xmap_init(&p->threads, sizeof(uint64_t), sizeof(struct kr_procname),
		     KR_MAX_NAMED_PROCESSES);
	p->requests = NULL;
	p->nrequests = 0;
	p->unix_libs = NULL;
	p->nunix = 0;
	p->looked_ahead = false;
}

static void free_requests(struct kr_procnames *p)
{
	for (uint32_t i = 0; i < p->nrequests; i++)
		free(p->requests[i]);
	free(p->requests);
	p->requests = NULL;
	p->nrequests = 0;
}

static void free_names(char **names, uint32_t n)
{
	for (uint32_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

void kr_procnames_free(struct kr_procnames *p)
{
	kr_xmap_free(&p->map);
	kr_xmap_free(&p->threads);
	free_requests(p);
	for (uint32_t i = 0; i < p->nunix; i++)
		free_names(p->unix_libs[i].names, p->unix_libs[i].count);
	free(p->unix_libs);
	p->unix_libs = NULL;
	p->nunix = 0;
}

/* A WineUnixCallNames table replaces the one before for its (pid, handle);
 * beyond KR_MAX_UNIX_LIBS (or out of memory) it is left out. */
static void see_unix(struct kr_procnames *p, uint64_t pid, uint64_t handle,
		     const struct katra_str_vec *v)
{
	uint32_t n = v->len < KR_MAX_REQUEST_NAMES ? (uint32_t)v->len : KR_MAX_REQUEST_NAMES, i;
	struct kr_unix_names *u = NULL;

	for (i = 0; i < p->nunix && !u; i++)
		if (p->unix_libs[i].pid == pid && p->unix_libs[i].handle == handle)
			u = &p->unix_libs[i];
	if (!u && !p->unix_libs && !(p->unix_libs = calloc(KR_MAX_UNIX_LIBS, sizeof(*u))))
		return;
	if (!u && p->nunix >= KR_MAX_UNIX_LIBS)
		return;
	if (!u)
		u = &p->unix_libs[p->nunix++];
	free_names(u->names, u->count);
	*u = (struct kr_unix_names){ pid, handle, calloc(n ? n : 1, sizeof(char *)), 0 };
	if (!u->names)
		return;
	u->count = n;
	for (i = 0; i < n; i++)
		if (v->items[i].len)
			u->names[i] = strndup(v->items[i].ptr, v->items[i].len);
}

void kr_procnames_look_ahead(struct kr_procnames *p, const char *path)
{
	struct katra_reader *r;
	struct katra_record rec;
	struct stat st;
	char msg[256];

	if (p->looked_ahead || !path)
		return;
	p->looked_ahead = true;
	if (stat(path, &st) || !S_ISREG(st.st_mode) || katra_reader_open(&r, path, msg, sizeof(msg)))
		return;
	while (katra_reader_next(r, &rec) == KATRA_READ_RECORD)
		if (rec.type == KATRA_RECORD_EVENT &&
		    rec.u.event.kind == KATRA_KIND_WINE_UNIX_CALL_NAMES)
			kr_procnames_see(p, &rec.u.event);
	katra_reader_close(r);
}

const char *kr_procnames_unix_call(const struct kr_procnames *p, uint64_t pid, uint64_t handle,
				   uint32_t index)
{
	for (uint32_t i = 0; p && i < p->nunix; i++)
		if (p->unix_libs[i].pid == pid && p->unix_libs[i].handle == handle)
			return index < p->unix_libs[i].count ? p->unix_libs[i].names[index] : NULL;
	return NULL;
}

const char *kr_unix_call_label(const struct kr_procnames *p, uint64_t pid, uint64_t handle,
			       uint32_t index, char *buf, size_t cap)
{
	const char *name = kr_procnames_unix_call(p, pid, handle, index);

	if (name)
		snprintf(buf, cap, "WinToUnix %s", name);
	else /* the library by its handle: every library has an index 0 */
		snprintf(buf, cap, "WinToUnix %u (lib 0x%" PRIx64 ")", index, handle);
	return buf;
}

/* A WineServerRequests table replaces the one before (out of memory: none). */
static void see_requests(struct kr_procnames *p, const struct katra_str_vec *v)
{
	uint32_t n = v->len < KR_MAX_REQUEST_NAMES ? (uint32_t)v->len : KR_MAX_REQUEST_NAMES;

	free_requests(p);
	p->requests = calloc(n ? n : 1, sizeof(*p->requests));
	if (!p->requests)
		return;
	p->nrequests = n;
	for (uint32_t i = 0; i < n; i++)
		p->requests[i] = strndup(v->items[i].ptr, v->items[i].len);
}

const char *kr_procnames_request(const struct kr_procnames *p, uint32_t request)
{
	if (!p || request >= p->nrequests || !p->requests[request] || !p->requests[request][0])
		return NULL;
	return p->requests[request];
}

static void set_name(struct kr_procname *n, const struct katra_str *s, uint32_t origin)
{
	n->len = s->len < KR_PROCNAME_MAX ? (uint32_t)s->len : KR_PROCNAME_MAX;
	if (n->len)
		memcpy(n->name, s->ptr, n->len);
	n->name[n->len] = 0;
	n->origin = origin;
}

void kr_procnames_see(struct kr_procnames *p, const struct katra_event *e)
{
	const struct katra_str *s;
	struct kr_procname *n;
	uint64_t pid = e->process_id, tid = e->resource.id;
	bool created;

	if (e->payload.type == KATRA_PAYLOAD_WINE_SERVER_REQUESTS &&
	    e->kind == KATRA_KIND_WINE_UNIX_CALL_NAMES) {
		if (e->resource.domain == KATRA_RES_WIN_HANDLE)
			see_unix(p, pid, e->resource.id, &e->payload.u.wine_server_requests.names);
		return;
	}
	if (e->payload.type == KATRA_PAYLOAD_WINE_SERVER_REQUESTS) {
		see_requests(p, &e->payload.u.wine_server_requests.names);
		return;
	}
	if (e->payload.type == KATRA_PAYLOAD_TASK_RENAME && e->resource.domain == KATRA_RES_THREAD) {
		n = kr_xmap_get(&p->threads, &tid, &created);
		if (n) /* else the table is full: this tid stays unnamed */
			set_name(n, &e->payload.u.task_rename.comm, 0);
		return;
	}
	if (e->payload.type != KATRA_PAYLOAD_PROCESS_INFO)
		return;
	s = e->payload.u.process_info.windows_image.present ?
		    &e->payload.u.process_info.windows_image.value :
		    &e->payload.u.process_info.comm;
	n = kr_xmap_get(&p->map, &pid, &created);
	if (!n)
		return; /* table full: this pid stays unnamed */
	set_name(n, s, e->payload.u.process_info.origin);
}

const struct kr_procname *kr_procnames_thread(const struct kr_procnames *p, uint64_t tid)
{
	return p ? kr_xmap_find(&p->threads, &tid) : NULL;
}

const struct kr_procname *kr_procnames_thread_or_process(const struct kr_procnames *p,
							 uint64_t tid, uint64_t pid)
{
	const struct kr_procname *n = kr_procnames_thread(p, tid);

	return n ? n : kr_procnames_get(p, pid);
}

const struct kr_procname *kr_procnames_get(const struct kr_procnames *p, uint64_t pid)
{
	return p ? kr_xmap_find(&p->map, &pid) : NULL;
}

static bool bare(const struct kr_procname *n)
{
	if (!n->len)
		return false;
	for (uint32_t i = 0; i < n->len; i++) {
		char c = n->name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      (c && strchr("._+-:~@#%=,/", c))))
			return false;
	}
	return true;
}

static void put(FILE *f, const struct kr_procname *n)
{
	if (bare(n))
		fwrite(n->name, 1, n->len, f);
	else
		katra_json_string(f, n->name, n->len);
}

/* "ID(NAME)", or "ID" when n is NULL */
static void put_id(FILE *f, uint64_t id, const struct kr_procname *n)
{
	kr_u64(f, id);
	if (!n)
		return;
	putc('(', f);
	put(f, n);
	putc(')', f);
}

void kr_put_pid(FILE *f, const struct kr_procnames *p, uint64_t pid)
{
	put_id(f, pid, kr_procnames_get(p, pid));
}

void kr_put_tid(FILE *f, const struct kr_procnames *p, uint64_t tid)
{
	put_id(f, tid, kr_procnames_thread(p, tid));
}

void kr_put_thread(FILE *f, const struct kr_procnames *p, uint64_t tid, uint64_t pid)
{
	put_id(f, tid, kr_procnames_thread_or_process(p, tid, pid));
}

void kr_put_name(FILE *f, const struct kr_procnames *p, uint64_t pid)
{
	const struct kr_procname *n = kr_procnames_get(p, pid);

	if (n)
		put(f, n);
	else
		putc('-', f);
}

/* what: 0 a pid's label, 1 a tid's, 2 a thread's name alone (id = tid,
 * pid its process) */
static const char *label(const struct kr_procnames *p, uint64_t id, uint64_t pid, int what,
			 char *buf, size_t cap)
{
	FILE *f = fmemopen(buf, cap, "w");
	const struct kr_procname *n;

	buf[0] = 0;
	if (!f)
		return buf;
	setvbuf(f, NULL, _IONBF, 0);
	if (what == 1) {
		kr_put_tid(f, p, id);
	} else if (what == 0) {
		kr_put_pid(f, p, id);
	} else {
		n = kr_procnames_thread_or_process(p, id, pid);
		if (n)
			put(f, n);
	}
	fclose(f);
	buf[cap - 1] = 0;
	return buf;
}

const char *kr_pid_label(const struct kr_procnames *p, uint64_t pid, char *buf, size_t cap)
{
	return label(p, pid, 0, 0, buf, cap);
}

const char *kr_tid_label(const struct kr_procnames *p, uint64_t tid, char *buf, size_t cap)
{
	return label(p, tid, 0, 1, buf, cap);
}

const char *kr_thread_name_label(const struct kr_procnames *p, uint64_t tid, uint64_t pid,
				 char *buf, size_t cap)
{
	return label(p, tid, pid, 2, buf, cap);
}
