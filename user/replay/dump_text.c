/* `katra-replay dump`: the human-readable form.  The header is a few lines
 * starting with '#'; then one line per record, "key=value" words in schema
 * order.  Times are monotonic seconds.nanoseconds since capture start; None
 * prints as '-'; strings are JSON-quoted so control bytes cannot reach the
 * terminal.  Example:
 *   seq=12 ts=1.000000500 pid=100 tid=101 Linux FileRead Begin span=3 req=-
 *     causes=[10,11] res=File:3 FileIo{fd=3 count=4096 offset=- iov_count=1}
 *     cost=- conf=Measured            (one line in the output) */
#include <stdio.h>

#include "katra/replay.h"
#include "out.h"
#include "payload_fields.h"

static void sstr(FILE *f, struct katra_str s)
{
	katra_json_string(f, s.ptr, s.len);
}

static void opt(FILE *f, struct katra_opt_u64 v)
{
	if (v.present)
		kr_u64(f, v.value);
	else
		putc('-', f);
}

static void name(FILE *f, const char *n, uint32_t v)
{
	char buf[KR_NAME_BUF];

	kr_s(f, kr_enum(n, v, buf));
}

static void str_list(FILE *f, struct katra_str_vec v)
{
	putc('[', f);
	for (uint64_t i = 0; i < v.len; i++) {
		if (i)
			putc(',', f);
		sstr(f, v.items[i]);
	}
	putc(']', f);
}

void katra_dump_header_text(FILE *f, const struct katra_header *h)
{
	const struct katra_capture_options *o = &h->capture_options;

	kr_s(f, "# KATRATRC format_version=");
	kr_u64(f, h->format_version);
	kr_s(f, " schema_hash=");
	kr_hex64(f, h->schema_hash);
	kr_s(f, " tool_version=");
	sstr(f, h->tool_version);
	kr_s(f, "\n# workload=");
	sstr(f, h->workload);
	kr_s(f, " process_id=");
	kr_u64(f, h->process_id);
	kr_s(f, " start_wall_ns=");
	kr_u64(f, h->start_wall_ns);
	kr_s(f, " start_mono_ns=");
	kr_u64(f, h->start_mono_ns);
	kr_s(f, "\n# host hostname=");
	sstr(f, h->host.hostname);
	kr_s(f, " os=");
	sstr(f, h->host.os);
	kr_s(f, " kernel_release=");
	sstr(f, h->host.kernel_release);
	kr_s(f, " machine=");
	sstr(f, h->host.machine);
	kr_s(f, " cpu_count=");
	kr_u64(f, h->host.cpu_count);
	kr_s(f, " page_size=");
	kr_u64(f, h->host.page_size);
	kr_s(f, "\n# capture_options target_pids=[");
	for (uint64_t i = 0; i < o->target_pids.len; i++) {
		if (i)
			putc(',', f);
		kr_u64(f, o->target_pids.items[i]);
	}
	kr_s(f, "] follow_children=");
	kr_s(f, o->follow_children ? "true" : "false");
	kr_s(f, " record_paths=");
	kr_s(f, o->record_paths ? "true" : "false");
	kr_s(f, " buffer_size_bytes=");
	kr_u64(f, o->buffer_size_bytes);
	kr_s(f, " duration_limit_ns=");
	opt(f, o->duration_limit_ns);
	kr_s(f, " counter_interval_ns=");
	kr_u64(f, o->counter_interval_ns);
	kr_s(f, " reorder_window_ns=");
	kr_u64(f, o->reorder_window_ns);
	putc('\n', f);
	for (uint64_t i = 0; i < h->notes.len; i++) {
		kr_s(f, "# note ");
		sstr(f, h->notes.items[i]);
		putc('\n', f);
	}
}

static void payload(FILE *f, const struct katra_payload *p)
{
	const struct kr_payload_desc *d = kr_payload_desc(p->type);

	name(f, katra_payload_name(p->type), p->type);
	if (!d || !d->count)
		return;
	putc('{', f);
	for (unsigned i = 0; i < d->count; i++) {
		if (i)
			putc(' ', f);
		kr_s(f, d->fields[i].name);
		putc('=', f);
		kr_payload_field_value(f, p, &d->fields[i], false);
	}
	putc('}', f);
}

static void seq_ts(FILE *f, uint64_t seq, uint64_t ts)
{
	kr_s(f, "seq=");
	kr_u64(f, seq);
	kr_s(f, " ts=");
	kr_ts(f, ts);
}

static void event(FILE *f, const struct katra_event *e)
{
	seq_ts(f, e->seq, e->ts_mono_ns);
	kr_s(f, " pid=");
	kr_u64(f, e->process_id);
	kr_s(f, " tid=");
	kr_u64(f, e->thread_id);
	putc(' ', f);
	name(f, katra_scope_name(e->scope), e->scope);
	putc(' ', f);
	name(f, katra_kind_name(e->kind), e->kind);
	putc(' ', f);
	name(f, katra_phase_name(e->phase), e->phase);
	kr_s(f, " span=");
	opt(f, e->span_id);
	kr_s(f, " req=");
	opt(f, e->request_id);
	kr_s(f, " causes=[");
	for (uint64_t i = 0; i < e->causes.len; i++) {
		if (i)
			putc(',', f);
		kr_u64(f, e->causes.items[i]);
	}
	kr_s(f, "] res=");
	name(f, katra_resource_domain_name(e->resource.domain), e->resource.domain);
	putc(':', f);
	kr_u64(f, e->resource.id);
	putc(' ', f);
	payload(f, &e->payload);
	kr_s(f, " cost=");
	opt(f, e->cost_estimate_ns);
	kr_s(f, " conf=");
	name(f, katra_confidence_name(e->confidence), e->confidence);
	putc('\n', f);
}

static void summary(FILE *f, const struct katra_summary *s)
{
	kr_s(f, "SessionSummary event_count=");
	kr_u64(f, s->event_count);
	kr_s(f, " epoch_count=");
	kr_u64(f, s->epoch_count);
	kr_s(f, " counter_count=");
	kr_u64(f, s->counter_count);
	kr_s(f, " duration_ns=");
	kr_u64(f, s->duration_ns);
	kr_s(f, " events_by_kind={");
	for (uint64_t i = 0; i < s->events_by_kind_len; i++) {
		if (i)
			putc(' ', f);
		name(f, katra_kind_name(s->events_by_kind[i].kind), s->events_by_kind[i].kind);
		putc(':', f);
		kr_u64(f, s->events_by_kind[i].count);
	}
	kr_s(f, "} dropped_events=");
	kr_u64(f, s->dropped_events);
	kr_s(f, " drops={");
	for (uint64_t i = 0; i < s->drops_len; i++) {
		if (i)
			putc(' ', f);
		name(f, katra_drop_source_name(s->drops[i].source), s->drops[i].source);
		putc('/', f);
		kr_u64(f, s->drops[i].instance);
		putc(':', f);
		kr_u64(f, s->drops[i].count);
	}
	kr_s(f, "} inferred_events=");
	kr_u64(f, s->inferred_events);
	kr_s(f, " probes_attached=");
	str_list(f, s->probes_attached);
	kr_s(f, " probes_failed=");
	str_list(f, s->probes_failed);
	kr_s(f, " processes_seen=");
	kr_u64(f, s->processes_seen);
	kr_s(f, " threads_seen=");
	kr_u64(f, s->threads_seen);
	putc('\n', f);
}

void katra_dump_record_text(FILE *f, const struct katra_record *rec)
{
	switch (rec->type) {
	case KATRA_RECORD_EVENT:
		event(f, &rec->u.event);
		break;
	case KATRA_RECORD_EPOCH_MARKER:
		seq_ts(f, rec->u.epoch.seq, rec->u.epoch.ts_mono_ns);
		kr_s(f, " EpochMarker epoch=");
		kr_u64(f, rec->u.epoch.epoch);
		kr_s(f, " kind=");
		name(f, katra_epoch_kind_name(rec->u.epoch.kind), rec->u.epoch.kind);
		kr_s(f, " name=");
		sstr(f, rec->u.epoch.name);
		putc('\n', f);
		break;
	case KATRA_RECORD_COUNTER:
		seq_ts(f, rec->u.counter.seq, rec->u.counter.ts_mono_ns);
		kr_s(f, " Counter kind=");
		name(f, katra_counter_kind_name(rec->u.counter.kind), rec->u.counter.kind);
		kr_s(f, " instance=");
		kr_u64(f, rec->u.counter.instance);
		kr_s(f, " value=");
		kr_u64(f, rec->u.counter.value);
		putc('\n', f);
		break;
	case KATRA_RECORD_SESSION_SUMMARY:
		summary(f, &rec->u.summary);
		break;
	default:
		kr_s(f, "Unknown(");
		kr_u64(f, rec->type);
		kr_s(f, ")\n");
		break;
	}
}
