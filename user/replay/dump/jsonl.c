// SPDX-License-Identifier: GPL-2.0-only
/* `katra-replay dump --jsonl`: one JSON object per line.
 *
 * Shape (field names and order exactly as format/schema.txt; enum values
 * are their variant names as strings; an Option that is None is null;
 * strings as in katra_json_string):
 *
 * Numbers and jq.  jq 1.6 (Debian 12) reads every number as a double and
 * silently rounds integers above 2^53.  So every u64 that is an identifier,
 * a hash, an address, a handle or an absolute clock reading, values that
 * routinely exceed 2^53, is written as a decimal string ("S" below):
 *   header: schema_hash, start_wall_ns, start_mono_ns;
 *   every record: ts_wall_ns;  events: span_id, request_id, resource.id;
 *   payloads: MemoryMap.addr, MemoryRange.addr, Futex.uaddr,
 *     PageFault.address and .ip, IoUringSubmit/Complete/Create.ctx,
 *     IoUringSubmit/Complete.user_data, NtCall.handle, Vulkan.handle.
 * Compare them as strings (select(.resource.id == "10106461514007918706"))
 * or convert with tonumber only where rounding does not matter.  Every other
 * integer (seq, ts_mono_ns, pids, tids, counts, sizes, durations, returns)
 * stays a JSON number: far below 2^53 in any real trace.
 *
 * Derived fields (not in the schema, computed by the dump):
 *   "resource_name" after resource, unless it is (None, 0): the resource as
 *     every command names it (pipe:[INO], socket:[INO], anon_inode:[eventfd],
 *     File:N, Thread:N, Futex:0x..; user/replay/names/resnames.h);
 *   "process_name" after process_id, when a ProcessInfo event has named the
 *     process (windows_image if present, else comm; the latest so far);
 *   "thread_name" after it, when a TaskRename event has named the thread
 *     (the latest so far);
 *   "dur_ns" after span_id on every End: End ts_mono_ns - Begin ts_mono_ns,
 *     null when the Begin was not seen;
 *   "syscall" after a Syscall or SyscallReturn payload: the name of its nr
 *     ("openat", "i386:open", "unknown", "syscall_N");
 *   "task_state" after the Switch payload of a switch-out (OffCpu Begin or
 *     Instant): prev_state as the task state letter (R S D T t X Z P I, see
 *     user/replay/sysnames.h);
 *   "unix_call" after the payload of a WinToUnix call whose library's
 *     WineUnixCallNames table (read ahead) names its index: the function's
 *     name, as the text dump shows it ("vkQueueSubmit").
 * The payload object itself holds exactly the schema's fields.
 *
 * line 1, the header:
 *   {"record":"Header","format_version":1,"schema_hash":S,"tool_version":"..",
 *    "capture_options":{"target_pids":[N,..],"follow_children":B,
 *      "record_paths":B,"buffer_size_bytes":N,"duration_limit_ns":N|null,
 *      "counter_interval_ns":N,"reorder_window_ns":N},
 *    "start_wall_ns":S,"start_mono_ns":S,"process_id":N,"workload":"..",
 *    "host":{"hostname":"..","os":"..","kernel_release":"..","machine":"..",
 *      "cpu_count":N,"page_size":N},
 *    "notes":[".."]}
 * then one line per TraceRecord, "record" naming the variant and the
 * variant's struct fields following at the top level (serde's internally
 * tagged form):
 *   {"record":"Event","seq":N,"ts_mono_ns":N,"ts_wall_ns":S,"thread_id":N,
 *    "process_id":N,["process_name":"..",]"scope":"Linux","kind":"FileRead",
 *    "phase":"End","span_id":S|null,["dur_ns":N|null,]"request_id":S|null,
 *    "causes":[N,..],"resource":{"domain":"File","id":S},["resource_name":"..",]
 *    "payload":{"type":"SyscallReturn","nr":0,"ret":N},["syscall":"read",]
 *    "cost_estimate_ns":N|null,"confidence":"Measured"}
 *   (payload None is {"type":"None"}; every payload's fields follow "type"
 *    in schema order, a DropSource or ProcessOrigin as its variant name)
 *   {"record":"EpochMarker","seq":N,"ts_mono_ns":N,"ts_wall_ns":S,"epoch":N,
 *    "kind":"CaptureStart","name":".."}
 *   {"record":"Counter","seq":N,"ts_mono_ns":N,"ts_wall_ns":S,
 *    "kind":"EventsRecorded","instance":N,"value":N}
 *   {"record":"SessionSummary","event_count":N,"epoch_count":N,
 *    "counter_count":N,"duration_ns":N,
 *    "events_by_kind":[{"kind":"FileRead","count":N},..],"dropped_events":N,
 *    "drops":[{"source":"RingReserve","instance":N,"count":N},..],
 *    "inferred_events":N,"probes_attached":[".."],"probes_failed":[".."],
 *    "processes_seen":N,"threads_seen":N}
 * An enum value without a name (never from a valid trace) is written as
 * the string "Unknown(N)". */
#include <stdio.h>

#include "katra/replay.h"
#include "dump_ctx.h"
#include "replay/util/out.h"
#include "replay/names/payload_fields.h"
#include "replay/names/resnames.h"
#include "replay/names/sysnames.h"

/* ,"key": */
static void key(FILE *f, const char *k)
{
	putc(',', f);
	putc('"', f);
	kr_s(f, k);
	putc('"', f);
	putc(':', f);
}

static void ku64(FILE *f, const char *k, uint64_t v)
{
	key(f, k);
	kr_u64(f, v);
}

/* a u64 as a decimal string: exact for jq (see the top of this file) */
static void kid(FILE *f, const char *k, uint64_t v)
{
	key(f, k);
	putc('"', f);
	kr_u64(f, v);
	putc('"', f);
}

static void kbool(FILE *f, const char *k, bool v)
{
	key(f, k);
	kr_s(f, v ? "true" : "false");
}

static void kopt(FILE *f, const char *k, struct katra_opt_u64 v)
{
	key(f, k);
	if (v.present)
		kr_u64(f, v.value);
	else
		kr_s(f, "null");
}

static void kopt_id(FILE *f, const char *k, struct katra_opt_u64 v)
{
	if (v.present)
		kid(f, k, v.value);
	else
		kopt(f, k, v);
}

static void kstr(FILE *f, const char *k, struct katra_str s)
{
	key(f, k);
	katra_json_string(f, s.ptr, s.len);
}

/* an enum value as its quoted variant name */
static void enum_val(FILE *f, const char *name, uint32_t v)
{
	char buf[KR_NAME_BUF];

	name = kr_enum(name, v, buf);
	katra_json_string(f, name, katra_cstr(name).len);
}

static void kenum(FILE *f, const char *k, const char *name, uint32_t v)
{
	key(f, k);
	enum_val(f, name, v);
}

static void u64_array(FILE *f, const uint64_t *v, uint64_t n)
{
	putc('[', f);
	for (uint64_t i = 0; i < n; i++) {
		if (i)
			putc(',', f);
		kr_u64(f, v[i]);
	}
	putc(']', f);
}

static void str_array(FILE *f, struct katra_str_vec v)
{
	putc('[', f);
	for (uint64_t i = 0; i < v.len; i++) {
		if (i)
			putc(',', f);
		katra_json_string(f, v.items[i].ptr, v.items[i].len);
	}
	putc(']', f);
}

void katra_jsonl_header(FILE *f, const struct katra_header *h)
{
	const struct katra_capture_options *o = &h->capture_options;

	kr_s(f, "{\"record\":\"Header\"");
	ku64(f, "format_version", h->format_version);
	kid(f, "schema_hash", h->schema_hash);
	kstr(f, "tool_version", h->tool_version);
	key(f, "capture_options");
	kr_s(f, "{\"target_pids\":");
	u64_array(f, o->target_pids.items, o->target_pids.len);
	kbool(f, "follow_children", o->follow_children);
	kbool(f, "record_paths", o->record_paths);
	ku64(f, "buffer_size_bytes", o->buffer_size_bytes);
	kopt(f, "duration_limit_ns", o->duration_limit_ns);
	ku64(f, "counter_interval_ns", o->counter_interval_ns);
	ku64(f, "reorder_window_ns", o->reorder_window_ns);
	putc('}', f);
	kid(f, "start_wall_ns", h->start_wall_ns);
	kid(f, "start_mono_ns", h->start_mono_ns);
	ku64(f, "process_id", h->process_id);
	kstr(f, "workload", h->workload);
	key(f, "host");
	kr_s(f, "{\"hostname\":");
	katra_json_string(f, h->host.hostname.ptr, h->host.hostname.len);
	kstr(f, "os", h->host.os);
	kstr(f, "kernel_release", h->host.kernel_release);
	kstr(f, "machine", h->host.machine);
	ku64(f, "cpu_count", h->host.cpu_count);
	ku64(f, "page_size", h->host.page_size);
	putc('}', f);
	key(f, "notes");
	str_array(f, h->notes);
	kr_s(f, "}\n");
}

static void payload(FILE *f, const struct katra_payload *p)
{
	const struct kr_payload_desc *d = kr_payload_desc(p->type);

	kr_s(f, "{\"type\":");
	enum_val(f, katra_payload_name(p->type), p->type);
	for (unsigned i = 0; d && i < d->count; i++) {
		key(f, d->fields[i].name);
		kr_payload_field_value(f, p, &d->fields[i], true);
	}
	putc('}', f);
}

/* The derived keys that follow the payload: "syscall" for a payload with a
 * syscall number, "task_state" for the Switch of a switch-out (not of an
 * OffCpu End: a switch-in has no state of its own), "unix_call" for a unix
 * call its library's table names. */
static void derived(FILE *f, const struct katra_event *e, const struct kr_dump_ctx *c)
{
	const struct katra_payload *p = &e->payload;
	char buf[KR_SYSNAME_BUF];
	const char *n;

	switch (p->type) {
	case KATRA_PAYLOAD_SYSCALL:
	case KATRA_PAYLOAD_SYSCALL_RETURN:
		n = kr_syscall_name(p->type == KATRA_PAYLOAD_SYSCALL ? p->u.syscall.nr :
								       p->u.syscall_return.nr,
				    buf);
		key(f, "syscall");
		katra_json_string(f, n, katra_cstr(n).len);
		break;
	case KATRA_PAYLOAD_SWITCH:
		if (e->phase == KATRA_PHASE_END)
			break;
		key(f, "task_state");
		fprintf(f, "\"%c\"", kr_task_state(p->u.sched_switch.prev_state));
		break;
	case KATRA_PAYLOAD_WINE_SERVER_CALL:
		n = e->kind == KATRA_KIND_WIN_TO_UNIX && c ?
			    kr_procnames_unix_call(&c->names, e->process_id, e->resource.id,
						   p->u.wine_server_call.request) : NULL;
		if (!n)
			break;
		key(f, "unix_call");
		katra_json_string(f, n, katra_cstr(n).len);
		break;
	}
}

static void event(FILE *f, const struct katra_event *e, const struct kr_dump_ctx *c)
{
	const struct kr_procname *pn = c ? kr_procnames_get(&c->names, e->process_id) : NULL;

	kr_s(f, "{\"record\":\"Event\"");
	ku64(f, "seq", e->seq);
	ku64(f, "ts_mono_ns", e->ts_mono_ns);
	kid(f, "ts_wall_ns", e->ts_wall_ns);
	ku64(f, "thread_id", e->thread_id);
	ku64(f, "process_id", e->process_id);
	if (pn) {
		key(f, "process_name");
		katra_json_string(f, pn->name, pn->len);
	}
	const struct kr_procname *tn = c ? kr_procnames_thread(&c->names, e->thread_id) : NULL;
	if (tn) {
		key(f, "thread_name");
		katra_json_string(f, tn->name, tn->len);
	}
	kenum(f, "scope", katra_scope_name(e->scope), e->scope);
	kenum(f, "kind", katra_kind_name(e->kind), e->kind);
	kenum(f, "phase", katra_phase_name(e->phase), e->phase);
	kopt_id(f, "span_id", e->span_id);
	if (e->phase == KATRA_PHASE_END) {
		key(f, "dur_ns");
		if (c && c->have_dur)
			kr_u64(f, c->dur_ns);
		else
			kr_s(f, "null");
	}
	kopt_id(f, "request_id", e->request_id);
	key(f, "causes");
	u64_array(f, e->causes.items, e->causes.len);
	key(f, "resource");
	kr_s(f, "{\"domain\":");
	enum_val(f, katra_resource_domain_name(e->resource.domain), e->resource.domain);
	kid(f, "id", e->resource.id);
	putc('}', f);
	if (e->resource.domain != KATRA_RES_NONE || e->resource.id) {
		key(f, "resource_name");
		putc('"', f);
		kr_res_put(f, e->resource.domain, e->resource.id);
		putc('"', f);
	}
	key(f, "payload");
	payload(f, &e->payload);
	derived(f, e, c);
	kopt(f, "cost_estimate_ns", e->cost_estimate_ns);
	kenum(f, "confidence", katra_confidence_name(e->confidence), e->confidence);
	kr_s(f, "}\n");
}

static void epoch(FILE *f, const struct katra_epoch_marker *m)
{
	kr_s(f, "{\"record\":\"EpochMarker\"");
	ku64(f, "seq", m->seq);
	ku64(f, "ts_mono_ns", m->ts_mono_ns);
	kid(f, "ts_wall_ns", m->ts_wall_ns);
	ku64(f, "epoch", m->epoch);
	kenum(f, "kind", katra_epoch_kind_name(m->kind), m->kind);
	kstr(f, "name", m->name);
	kr_s(f, "}\n");
}

static void counter(FILE *f, const struct katra_counter *c)
{
	kr_s(f, "{\"record\":\"Counter\"");
	ku64(f, "seq", c->seq);
	ku64(f, "ts_mono_ns", c->ts_mono_ns);
	kid(f, "ts_wall_ns", c->ts_wall_ns);
	kenum(f, "kind", katra_counter_kind_name(c->kind), c->kind);
	ku64(f, "instance", c->instance);
	ku64(f, "value", c->value);
	kr_s(f, "}\n");
}

static void summary(FILE *f, const struct katra_summary *s)
{
	kr_s(f, "{\"record\":\"SessionSummary\"");
	ku64(f, "event_count", s->event_count);
	ku64(f, "epoch_count", s->epoch_count);
	ku64(f, "counter_count", s->counter_count);
	ku64(f, "duration_ns", s->duration_ns);
	key(f, "events_by_kind");
	putc('[', f);
	for (uint64_t i = 0; i < s->events_by_kind_len; i++) {
		const struct katra_kind_count *k = &s->events_by_kind[i];

		if (i)
			putc(',', f);
		kr_s(f, "{\"kind\":");
		enum_val(f, katra_kind_name(k->kind), k->kind);
		ku64(f, "count", k->count);
		putc('}', f);
	}
	putc(']', f);
	ku64(f, "dropped_events", s->dropped_events);
	key(f, "drops");
	putc('[', f);
	for (uint64_t i = 0; i < s->drops_len; i++) {
		const struct katra_drop_count *d = &s->drops[i];

		if (i)
			putc(',', f);
		kr_s(f, "{\"source\":");
		enum_val(f, katra_drop_source_name(d->source), d->source);
		ku64(f, "instance", d->instance);
		ku64(f, "count", d->count);
		putc('}', f);
	}
	putc(']', f);
	ku64(f, "inferred_events", s->inferred_events);
	key(f, "probes_attached");
	str_array(f, s->probes_attached);
	key(f, "probes_failed");
	str_array(f, s->probes_failed);
	ku64(f, "processes_seen", s->processes_seen);
	ku64(f, "threads_seen", s->threads_seen);
	kr_s(f, "}\n");
}

/* {"record":"Module","id":N,"name":"..","build_id":"..","pe":null|
 *  {"time_date_stamp":N,"size_of_image":N,"pdb_guid":"..","pdb_age":N,"pdb_name":".."}},
 * {"record":"Stack","id":N,"frames":[[module,address],..],"kernel":[".."],"truncated":B},
 * {"record":"StackOf","stack_id":N,"thread_id":N,"process_id":N,"begin_ns":N,
 *  "duration_ns":N,"site":"OffCpu"},
 * {"record":"Symbols","module":N,"names":[[address,"name",offset],..]} */
static void stack_records(FILE *f, const struct katra_record *rec)
{
	if (rec->type == KATRA_RECORD_MODULE) {
		const struct katra_module *m = &rec->u.module;
		kr_s(f, "{\"record\":\"Module\"");
		ku64(f, "id", m->id);
		kstr(f, "name", m->name);
		kstr(f, "build_id", m->build_id);
		key(f, "pe");
		if (!m->has_pe) {
			kr_s(f, "null}\n");
			return;
		}
		kr_s(f, "{\"time_date_stamp\":");
		kr_u64(f, m->pe.time_date_stamp);
		ku64(f, "size_of_image", m->pe.size_of_image);
		kstr(f, "pdb_guid", m->pe.pdb_guid);
		ku64(f, "pdb_age", m->pe.pdb_age);
		kstr(f, "pdb_name", m->pe.pdb_name);
		kr_s(f, "}}\n");
	} else if (rec->type == KATRA_RECORD_STACK) {
		const struct katra_stack *st = &rec->u.stack;
		kr_s(f, "{\"record\":\"Stack\"");
		ku64(f, "id", st->id);
		key(f, "frames");
		putc('[', f);
		for (uint64_t i = 0; i < st->frames_len; i++) {
			kr_s(f, i ? ",[" : "[");
			kr_u64(f, st->frames[i].module);
			putc(',', f);
			kr_u64(f, st->frames[i].address);
			putc(']', f);
		}
		putc(']', f);
		key(f, "kernel");
		str_array(f, st->kernel);
		kbool(f, "truncated", st->truncated);
		kr_s(f, "}\n");
	} else if (rec->type == KATRA_RECORD_SYMBOLS) {
		const struct katra_symbols *sy = &rec->u.symbols;
		kr_s(f, "{\"record\":\"Symbols\"");
		ku64(f, "module", sy->module);
		key(f, "names");
		putc('[', f);
		for (uint64_t i = 0; i < sy->names_len; i++) {
			kr_s(f, i ? ",[" : "[");
			kr_u64(f, sy->names[i].address);
			putc(',', f);
			katra_json_string(f, sy->names[i].name.ptr, sy->names[i].name.len);
			putc(',', f);
			kr_u64(f, sy->names[i].offset);
			putc(']', f);
		}
		kr_s(f, "]}\n");
	} else {
		const struct katra_stack_of *so = &rec->u.stack_of;
		kr_s(f, "{\"record\":\"StackOf\"");
		ku64(f, "stack_id", so->stack_id);
		ku64(f, "thread_id", so->thread_id);
		ku64(f, "process_id", so->process_id);
		ku64(f, "begin_ns", so->begin_ns);
		ku64(f, "duration_ns", so->duration_ns);
		kenum(f, "site", katra_stack_site_name(so->site), so->site);
		kr_s(f, "}\n");
	}
}

void katra_jsonl_record(FILE *f, const struct katra_record *rec)
{
	kr_jsonl_record(f, rec, NULL);
}

void kr_jsonl_record(FILE *f, const struct katra_record *rec, const struct kr_dump_ctx *c)
{
	switch (rec->type) {
	case KATRA_RECORD_EVENT:
		event(f, &rec->u.event, c);
		break;
	case KATRA_RECORD_EPOCH_MARKER:
		epoch(f, &rec->u.epoch);
		break;
	case KATRA_RECORD_COUNTER:
		counter(f, &rec->u.counter);
		break;
	case KATRA_RECORD_SESSION_SUMMARY:
		summary(f, &rec->u.summary);
		break;
	case KATRA_RECORD_MODULE:
	case KATRA_RECORD_STACK:
	case KATRA_RECORD_STACK_OF:
	case KATRA_RECORD_SYMBOLS:
		stack_records(f, rec);
		break;
	default:
		kr_s(f, "{\"record\":\"Unknown(");
		kr_u64(f, rec->type);
		kr_s(f, ")\"}\n");
		break;
	}
}
