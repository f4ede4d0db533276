/* `katra-replay dump --jsonl`: one JSON object per line.
 *
 * Shape (field names and order exactly as format/schema.txt; enum values
 * are their variant names as strings; an Option that is None is null; u64
 * values are exact JSON integers; strings as in katra_json_string):
 *
 * line 1, the header:
 *   {"record":"Header","format_version":1,"schema_hash":N,"tool_version":"..",
 *    "capture_options":{"target_pids":[N,..],"follow_children":B,
 *      "record_paths":B,"buffer_size_bytes":N,"duration_limit_ns":N|null,
 *      "counter_interval_ns":N,"reorder_window_ns":N},
 *    "start_wall_ns":N,"start_mono_ns":N,"process_id":N,"workload":"..",
 *    "host":{"hostname":"..","os":"..","kernel_release":"..","machine":"..",
 *      "cpu_count":N,"page_size":N},
 *    "notes":[".."]}
 * then one line per TraceRecord, "record" naming the variant and the
 * variant's struct fields following at the top level (serde's internally
 * tagged form):
 *   {"record":"Event","seq":N,"ts_mono_ns":N,"ts_wall_ns":N,"thread_id":N,
 *    "process_id":N,"scope":"Linux","kind":"FileRead","phase":"Begin",
 *    "span_id":N|null,"request_id":N|null,"causes":[N,..],
 *    "resource":{"domain":"File","id":N},
 *    "payload":{"type":"FileIo","fd":3,"count":N,"offset":N|null,"iov_count":N},
 *    "cost_estimate_ns":N|null,"confidence":"Measured"}
 *   (payload None is {"type":"None"}; every payload's fields follow "type"
 *    in schema order, a DropSource as its variant name)
 *   {"record":"EpochMarker","seq":N,"ts_mono_ns":N,"ts_wall_ns":N,"epoch":N,
 *    "kind":"CaptureStart","name":".."}
 *   {"record":"Counter","seq":N,"ts_mono_ns":N,"ts_wall_ns":N,
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
#include "out.h"
#include "payload_fields.h"

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
	ku64(f, "schema_hash", h->schema_hash);
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
	ku64(f, "start_wall_ns", h->start_wall_ns);
	ku64(f, "start_mono_ns", h->start_mono_ns);
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

static void event(FILE *f, const struct katra_event *e)
{
	kr_s(f, "{\"record\":\"Event\"");
	ku64(f, "seq", e->seq);
	ku64(f, "ts_mono_ns", e->ts_mono_ns);
	ku64(f, "ts_wall_ns", e->ts_wall_ns);
	ku64(f, "thread_id", e->thread_id);
	ku64(f, "process_id", e->process_id);
	kenum(f, "scope", katra_scope_name(e->scope), e->scope);
	kenum(f, "kind", katra_kind_name(e->kind), e->kind);
	kenum(f, "phase", katra_phase_name(e->phase), e->phase);
	kopt(f, "span_id", e->span_id);
	kopt(f, "request_id", e->request_id);
	key(f, "causes");
	u64_array(f, e->causes.items, e->causes.len);
	key(f, "resource");
	kr_s(f, "{\"domain\":");
	enum_val(f, katra_resource_domain_name(e->resource.domain), e->resource.domain);
	ku64(f, "id", e->resource.id);
	putc('}', f);
	key(f, "payload");
	payload(f, &e->payload);
	kopt(f, "cost_estimate_ns", e->cost_estimate_ns);
	kenum(f, "confidence", katra_confidence_name(e->confidence), e->confidence);
	kr_s(f, "}\n");
}

static void epoch(FILE *f, const struct katra_epoch_marker *m)
{
	kr_s(f, "{\"record\":\"EpochMarker\"");
	ku64(f, "seq", m->seq);
	ku64(f, "ts_mono_ns", m->ts_mono_ns);
	ku64(f, "ts_wall_ns", m->ts_wall_ns);
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
	ku64(f, "ts_wall_ns", c->ts_wall_ns);
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

void katra_jsonl_record(FILE *f, const struct katra_record *rec)
{
	switch (rec->type) {
	case KATRA_RECORD_EVENT:
		event(f, &rec->u.event);
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
	default:
		kr_s(f, "{\"record\":\"Unknown(");
		kr_u64(f, rec->type);
		kr_s(f, ")\"}\n");
		break;
	}
}
