// SPDX-License-Identifier: GPL-2.0-only
/* stats --calls: the calls of the layers above the kernel, by name, like the
 * syscall table: Wine's NT calls (the NtReadFile .. NtCreateUserProcess
 * kinds, and every other NT call by its own name, win32u's NtUser* and
 * NtGdi* too), its
 * wineserver requests (by the request names of the session's wineserver) and
 * Unix calls, and the Vulkan driver's submits, presents and waits.  Count,
 * errors, wall time from entry to return, p50, p99 and max, overall and per
 * process.  An error is an NTSTATUS of error severity (0xC0000000 and up:
 * STATUS_PENDING and warnings are not; win32u's calls return none) or a
 * negative VkResult. */
#include <stdlib.h>
#include <string.h>

#include "katra/plural.h"
#include "katra/replay.h"
#include "replay/util/out.h"
#include "views.h"

bool kr_call_kind(uint32_t kind)
{
	return (kind >= KATRA_KIND_NT_READ_FILE && kind <= KATRA_KIND_VULKAN_FENCE_WAIT) ||
	       kind == KATRA_KIND_NT_SYSCALL ||
	       (kind >= KATRA_KIND_D3D12_EXECUTE_COMMAND_LISTS &&
		kind <= KATRA_KIND_VULKAN_ACQUIRE_NEXT_IMAGE);
}

/* A WinToUnix call's library: 1.. by (process, handle), 0 when the list
 * is full. */
static uint32_t call_lib(struct kr_views *v, uint64_t pid, uint64_t handle)
{
	for (unsigned i = 0; i < v->ncall_libs; i++)
		if (v->call_libs[i].pid == pid && v->call_libs[i].handle == handle)
			return i + 1;
	if (v->ncall_libs >= KR_MAX_CALL_LIBS)
		return 0;
	v->call_libs[v->ncall_libs].pid = pid;
	v->call_libs[v->ncall_libs].handle = handle;
	return ++v->ncall_libs;
}

/* The number that names a call within its kind: an NT call's number, a
 * wineserver request, a Unix call's library and function index; 0 for the
 * rest. */
uint32_t kr_call_number(struct kr_views *v, const struct katra_event *e)
{
	if (e->payload.type == KATRA_PAYLOAD_NT_SYSCALL)
		return e->payload.u.nt_syscall.number;
	if (e->payload.type == KATRA_PAYLOAD_WINE_SERVER_CALL && e->kind == KATRA_KIND_WIN_TO_UNIX)
		return call_lib(v, e->process_id, e->resource.id) << 16 |
		       (e->payload.u.wine_server_call.request & 0xffff);
	if (e->payload.type == KATRA_PAYLOAD_WINE_SERVER_CALL)
		return e->payload.u.wine_server_call.request;
	return 0;
}

uint64_t kr_call_handle(const struct kr_views *v, uint64_t what)
{
	uint32_t lib = (uint32_t)what >> 16;

	if ((uint32_t)(what >> 32) != KATRA_KIND_WIN_TO_UNIX || !lib || lib > v->ncall_libs)
		return 0;
	return v->call_libs[lib - 1].handle;
}

uint32_t kr_call_index(uint64_t what)
{
	return (uint32_t)(what >> 32) == KATRA_KIND_WIN_TO_UNIX ? (uint32_t)what & 0xffff :
								   (uint32_t)what;
}

bool kr_call_failed(const struct katra_event *end)
{
	const struct katra_payload *p = &end->payload;
	const struct katra_opt_u32 *st = NULL;

	switch (p->type) {
	case KATRA_PAYLOAD_NT_CALL:
		st = &p->u.nt_call.status;
		break;
	case KATRA_PAYLOAD_NT_SYSCALL:
		if (p->u.nt_syscall.number >> 12)
			return false; /* win32u's: a BOOL, handle or count, no NTSTATUS */
		st = &p->u.nt_syscall.status;
		break;
	case KATRA_PAYLOAD_WINE_SERVER_CALL:
		st = &p->u.wine_server_call.status;
		break;
	case KATRA_PAYLOAD_VULKAN:
		return p->u.vulkan.result.present && p->u.vulkan.result.value < 0;
	case KATRA_PAYLOAD_D3D12: /* a failed HRESULT */
		return p->u.d3d12.result.present && p->u.d3d12.result.value < 0;
	default:
		return false;
	}
	return st->present && st->value >= 0xC0000000u;
}

void kr_call_named(struct kr_views *v, uint32_t number, const struct katra_str *name)
{
	uint64_t k = number;
	bool created;
	struct kr_callname *n = kr_xmap_get(&v->nt_names, &k, &created);

	if (n && created) {
		size_t len = name->len < sizeof(n->name) - 1 ? name->len : sizeof(n->name) - 1;
		memcpy(n->name, name->ptr, len);
		n->name[len] = 0;
	}
}

void kr_call_add(struct kr_views *v, uint64_t pid, uint32_t kind, uint32_t number,
		 uint64_t dur, bool error)
{
	uint64_t what = (uint64_t)kind << 32 | number;
	uint64_t k[2][2] = { { 0, what }, { pid, what } };
	bool created;

	/* a row per process only when asked: the rows are capped (a histogram
	 * each), and a Wine session's processes would crowd out the overall ones */
	for (int i = 0; i < (v->calls_by_process ? 2 : 1); i++) {
		struct kr_callagg *a = kr_xmap_get(&v->calls, k[i], &created);
		if (!a) {
			v->call_overflow++;
			continue;
		}
		a->errors += error;
		if (dur > a->max_ns)
			a->max_ns = dur;
		kr_histo_add(&a->h, dur);
	}
}

struct call_row {
	uint64_t pid, what;
	const struct kr_callagg *a;
};

static int by_pid_time(const void *x, const void *y)
{
	const struct call_row *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->a->h.total != b->a->h.total)
		return a->a->h.total > b->a->h.total ? -1 : 1;
	return a->what < b->what ? -1 : a->what > b->what;
}

static struct call_row *call_rows(const struct kr_views *v, size_t *n)
{
	struct call_row *r = malloc((v->calls.len ? v->calls.len : 1) * sizeof(*r));
	const struct kr_callagg *a;
	size_t it = 0;

	*n = 0;
	if (!r)
		return NULL;
	while ((a = kr_xmap_next(&v->calls, &it))) {
		const uint64_t *k = kr_xmap_key(&v->calls, a);
		r[(*n)++] = (struct call_row){ k[0], k[1], a };
	}
	qsort(r, *n, sizeof(*r), by_pid_time);
	return r;
}

/* "NtReadFile", "NtQueryInformationProcess", "WineServerCall get_handle_fd",
 * "NtSyscall 213" when the number has no name. */
const char *kr_call_label(const struct kr_views *v, uint64_t what, char *buf, size_t cap)
{
	uint32_t kind = (uint32_t)(what >> 32), number = (uint32_t)what;
	const char *kn = katra_kind_name(kind) ? katra_kind_name(kind) : "?";

	if (kind == KATRA_KIND_NT_SYSCALL) {
		uint64_t k = number;
		const struct kr_callname *n = kr_xmap_find(&v->nt_names, &k);
		if (n && n->name[0])
			return n->name;
		snprintf(buf, cap, "%s %u", kn, number);
	} else if (kind == KATRA_KIND_WINE_SERVER_CALL) {
		const char *rn = kr_procnames_request(v->names, number);
		if (rn)
			snprintf(buf, cap, "%s %s", kn, rn);
		else
			snprintf(buf, cap, "%s %u", kn, number);
	} else if (kind == KATRA_KIND_WIN_TO_UNIX) {
		/* the names of its library in its process (WineUnixCallNames) */
		uint32_t lib = number >> 16, index = number & 0xffff;
		if (lib && lib <= v->ncall_libs)
			kr_unix_call_label(v->names, v->call_libs[lib - 1].pid,
					   v->call_libs[lib - 1].handle, index, buf, cap);
		else
			snprintf(buf, cap, "%s %u", kn, index);
	} else {
		return kn;
	}
	return buf;
}

const char *kr_call_layer(uint64_t what)
{
	uint32_t kind = (uint32_t)(what >> 32);

	if ((kind >= KATRA_KIND_VULKAN_QUEUE_SUBMIT && kind <= KATRA_KIND_VULKAN_FENCE_WAIT) ||
	    kind == KATRA_KIND_VULKAN_SEMAPHORE_WAIT || kind == KATRA_KIND_VULKAN_ACQUIRE_NEXT_IMAGE)
		return "vulkan";
	if (kind >= KATRA_KIND_D3D12_EXECUTE_COMMAND_LISTS && kind <= KATRA_KIND_D3D12_FENCE_SIGNAL)
		return "d3d12";
	if (kind == KATRA_KIND_WINE_SERVER_CALL || kind == KATRA_KIND_WIN_TO_UNIX)
		return "wine";
	return "nt";
}

static const char rule[] =
	"------ --------- --------- ----------- ----------- ----------- ----------- ----------------\n";

static void table(FILE *f, const struct kr_views *v, const struct call_row *r, size_t n)
{
	char buf[96];

	fprintf(f, "layer      calls    errors     seconds     p50 usecs   p99 usecs   max usecs name\n%s",
		rule);
	for (size_t i = 0; i < n; i++) {
		const struct kr_callagg *a = r[i].a;
		fprintf(f, "%-6s %9llu ", kr_call_layer(r[i].what), (unsigned long long)a->h.count);
		if (a->errors)
			fprintf(f, "%9llu", (unsigned long long)a->errors);
		else
			fprintf(f, "%9s", "");
		fprintf(f, " %11.6f %11.3f %11.3f %11.3f %s\n", (double)a->h.total / 1e9,
			(double)kr_histo_percentile(&a->h, 500) / 1e3,
			(double)kr_histo_percentile(&a->h, 990) / 1e3, (double)a->max_ns / 1e3,
			kr_call_label(v, r[i].what, buf, sizeof(buf)));
	}
}

static void notes(FILE *f, const struct kr_views *v)
{
	if (v->call_overflow)
		fprintf(f, "  (%llu %s beyond the %u-row table %s not counted)\n",
			(unsigned long long)v->call_overflow,
			katra_plural(v->call_overflow, "call", "calls"), KR_MAX_CALL_ROWS,
			katra_plural(v->call_overflow, "is", "are"));
}

void kr_calls_text(FILE *f, const struct kr_views *v, bool per_process)
{
	size_t n, first = 0;
	struct call_row *r = call_rows(v, &n);

	kr_s(f, "\ncalls of the Wine and Vulkan layers (wall time from entry to return; "
		"p50/p99 within 1/32)\n");
	if (!r)
		return;
	while (first < n && r[first].pid == 0)
		first++;
	if (!first) {
		kr_s(f, "(no Wine or Vulkan calls");
		kr_put_scope(f, v);
		kr_s(f, ")\n");
	} else {
		table(f, v, r, first);
	}
	for (size_t i = first; per_process && i < n;) {
		size_t j = i;
		while (j < n && r[j].pid == r[i].pid)
			j++;
		kr_s(f, "\nprocess ");
		kr_put_pid(f, v->names, r[i].pid);
		kr_s(f, "\n");
		table(f, v, r + i, j - i);
		i = j;
	}
	notes(f, v);
	free(r);
}

static void json_rows(FILE *f, const struct kr_views *v, const struct call_row *r, size_t n)
{
	char buf[96];

	kr_s(f, "[");
	for (size_t i = 0; i < n; i++) {
		const struct kr_callagg *a = r[i].a;
		uint32_t kind = (uint32_t)(r[i].what >> 32);
		const char *name = kr_call_label(v, r[i].what, buf, sizeof(buf));

		fprintf(f, "%s{\"layer\":\"%s\",\"kind\":\"%s\",\"number\":%u,\"name\":", i ? "," : "",
			kr_call_layer(r[i].what), katra_kind_name(kind) ? katra_kind_name(kind) : "?",
			kr_call_index(r[i].what));
		katra_json_string(f, name, strlen(name));
		if (kind == KATRA_KIND_WIN_TO_UNIX)
			fprintf(f, ",\"handle\":%llu",
				(unsigned long long)kr_call_handle(v, r[i].what));
		fprintf(f, ",\"calls\":%llu,\"errors\":%llu,\"total_ns\":%llu,\"p50_ns\":%llu,"
			"\"p99_ns\":%llu,\"max_ns\":%llu}",
			(unsigned long long)a->h.count, (unsigned long long)a->errors,
			(unsigned long long)a->h.total,
			(unsigned long long)kr_histo_percentile(&a->h, 500),
			(unsigned long long)kr_histo_percentile(&a->h, 990),
			(unsigned long long)a->max_ns);
	}
	kr_s(f, "]");
}

/* "calls":{"rows":[{"layer":"nt","kind":"NtSyscall","number":N,"name":"..",
 *   "calls":N,"errors":N,"total_ns":N,"p50_ns":N,"p99_ns":N,"max_ns":N},..],
 *   "overflow":N}, and with per_process "calls_by_process":[{"process_id":N,
 *   "process_name":".."|null,"rows":[..]},..] (by process id) */
void kr_calls_json(FILE *f, const struct kr_views *v, bool per_process)
{
	size_t n, first = 0;
	struct call_row *r = call_rows(v, &n);

	if (!r)
		n = 0;
	while (first < n && r[first].pid == 0)
		first++;
	kr_s(f, ",\"calls\":{\"rows\":");
	json_rows(f, v, r, first);
	fprintf(f, ",\"overflow\":%llu}", (unsigned long long)v->call_overflow);
	if (per_process) {
		kr_s(f, ",\"calls_by_process\":[");
		for (size_t i = first; i < n;) {
			size_t j = i;
			while (j < n && r[j].pid == r[i].pid)
				j++;
			fprintf(f, "%s{\"process_id\":%llu,\"process_name\":", i > first ? "," : "",
				(unsigned long long)r[i].pid);
			kr_json_pname(f, v, r[i].pid);
			kr_s(f, ",\"rows\":");
			json_rows(f, v, r + i, j - i);
			kr_s(f, "}");
			i = j;
		}
		kr_s(f, "]");
	}
	free(r);
}
