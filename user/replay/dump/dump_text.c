// SPDX-License-Identifier: GPL-2.0-only
/* `katra-replay dump`: the human-readable form.  The header is a few lines
 * starting with '#'; then one line per record, "key=value" words in schema
 * order.  Times are monotonic seconds.nanoseconds since capture start;
 * strings are JSON-quoted so control bytes cannot reach the terminal.
 *
 * An event line is compact: what is absent is left out (a None, empty
 * causes, resource None, a payload field that is None, the default
 * confidence Measured); an End whose Begin was seen gets dur_ns; a pid shows
 * its process name once a ProcessInfo event named it; payload numbers are
 * decoded (payload_text.c).  Examples (one line each in the output):
 *   seq=53 ts=0.004630449 pid=15768(tar) tid=15768 Linux FileOpen Begin span=15
 *     res=File:6897367716417050071 FileOpen{dirfd=AT_FDCWD
 *     flags=O_RDONLY|O_CLOEXEC mode=0 path="/etc/ld.so.cache"}
 *   seq=54 ts=0.004633414 pid=15768(tar) tid=15768 Linux FileOpen End span=15
 *     dur_ns=2965 causes=[53] res=File:6897367716417050071
 *     SyscallReturn{nr=257(openat) ret=3} */
#include <stdbool.h>
#include <stdio.h>

#include "katra/replay.h"
#include "dump_ctx.h"
#include "replay/util/out.h"
#include "replay/names/payload_fields.h"
#include "replay/names/resnames.h"

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

/* Module id=N name=".." build_id=".." [pe={..}] / Stack id=N frames=[M:0xADDR ..]
 * kernel=[".."] truncated=B / StackOf stack=N thread=T process=P begin=TS
 * duration_ns=N site=S / Symbols module=M names=[0xADDR:"name"+0xOFF ..] */
static void stack_record(FILE *f, const struct katra_record *rec)
{
	if (rec->type == KATRA_RECORD_MODULE) {
		kr_s(f, "Module id=");
		kr_u64(f, rec->u.module.id);
		kr_s(f, " name=");
		sstr(f, rec->u.module.name);
		kr_s(f, " build_id=");
		sstr(f, rec->u.module.build_id);
		if (rec->u.module.has_pe) {
			const struct katra_pe_identity *pe = &rec->u.module.pe;
			kr_s(f, " pe={time_date_stamp=");
			kr_hex(f, pe->time_date_stamp);
			kr_s(f, " size_of_image=");
			kr_hex(f, pe->size_of_image);
			kr_s(f, " pdb_guid=");
			sstr(f, pe->pdb_guid);
			kr_s(f, " pdb_age=");
			kr_u64(f, pe->pdb_age);
			kr_s(f, " pdb_name=");
			sstr(f, pe->pdb_name);
			putc('}', f);
		}
	} else if (rec->type == KATRA_RECORD_STACK) {
		const struct katra_stack *st = &rec->u.stack;
		kr_s(f, "Stack id=");
		kr_u64(f, st->id);
		kr_s(f, " frames=[");
		for (uint64_t i = 0; i < st->frames_len; i++) {
			if (i)
				putc(' ', f);
			kr_u64(f, st->frames[i].module);
			putc(':', f);
			kr_hex(f, st->frames[i].address);
		}
		kr_s(f, "] kernel=");
		str_list(f, st->kernel);
		kr_s(f, st->truncated ? " truncated=true" : " truncated=false");
	} else if (rec->type == KATRA_RECORD_SYMBOLS) {
		const struct katra_symbols *sy = &rec->u.symbols;
		kr_s(f, "Symbols module=");
		kr_u64(f, sy->module);
		kr_s(f, " names=[");
		for (uint64_t i = 0; i < sy->names_len; i++) {
			if (i)
				putc(' ', f);
			kr_hex(f, sy->names[i].address);
			putc(':', f);
			sstr(f, sy->names[i].name);
			putc('+', f);
			kr_hex(f, sy->names[i].offset);
		}
		putc(']', f);
	} else {
		const struct katra_stack_of *so = &rec->u.stack_of;
		kr_s(f, "StackOf stack=");
		kr_u64(f, so->stack_id);
		kr_s(f, " thread=");
		kr_u64(f, so->thread_id);
		kr_s(f, " process=");
		kr_u64(f, so->process_id);
		kr_s(f, " begin=");
		kr_ts(f, so->begin_ns);
		kr_s(f, " duration_ns=");
		kr_u64(f, so->duration_ns);
		kr_s(f, " site=");
		name(f, katra_stack_site_name(so->site), so->site);
	}
	putc('\n', f);
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

static bool opt_absent(const struct katra_payload *p, const struct kr_field *fd)
{
	const void *v = (const char *)p + fd->off;

	switch (fd->type) {
	case KR_OPT_U32:
		return !((const struct katra_opt_u32 *)v)->present;
	case KR_OPT_I32:
		return !((const struct katra_opt_i32 *)v)->present;
	case KR_OPT_U64:
		return !((const struct katra_opt_u64 *)v)->present;
	case KR_OPT_STR:
		return !((const struct katra_opt_str *)v)->present;
	default:
		return false;
	}
}

/* Name{field=value ...}: fields that are None are left out; a payload with
 * no field left is its name alone; None is nothing at all. */
static void payload(FILE *f, const struct katra_event *e, const struct kr_procnames *names)
{
	const struct katra_payload *p = &e->payload;
	const struct kr_payload_desc *d = kr_payload_desc(p->type);
	bool open = false;

	if (p->type == KATRA_PAYLOAD_NONE)
		return;
	putc(' ', f);
	name(f, katra_payload_name(p->type), p->type);
	for (unsigned i = 0; d && i < d->count; i++) {
		if (opt_absent(p, &d->fields[i]))
			continue;
		putc(open ? ' ' : '{', f);
		open = true;
		kr_s(f, d->fields[i].name);
		putc('=', f);
		kr_payload_text_value(f, e, &d->fields[i], names);
	}
	if (open)
		putc('}', f);
}

static void seq_ts(FILE *f, uint64_t seq, uint64_t ts)
{
	kr_s(f, "seq=");
	kr_u64(f, seq);
	kr_s(f, " ts=");
	kr_ts(f, ts);
}

/* The resource as every command spells it (names/resnames.h), a process
 * with its name. */
static void resource(FILE *f, const struct katra_resource *r, const struct kr_procnames *names)
{
	if (r->domain == KATRA_RES_NONE && !r->id)
		return;
	kr_s(f, " res=");
	kr_res_put(f, r->domain, r->id);
	if (r->domain == KATRA_RES_PROCESS && kr_procnames_get(names, r->id)) {
		putc('(', f);
		kr_put_name(f, names, r->id);
		putc(')', f);
	}
}

/* The compact event line: what is absent (None, empty causes, resource
 * None, the default Measured confidence) is left out. */
static void event(FILE *f, const struct katra_event *e, const struct kr_dump_ctx *c)
{
	const struct kr_procnames *names = c ? &c->names : NULL;

	seq_ts(f, e->seq, e->ts_mono_ns);
	kr_s(f, " pid=");
	kr_put_pid(f, names, e->process_id);
	kr_s(f, " tid=");
	kr_put_tid(f, names, e->thread_id);
	putc(' ', f);
	name(f, katra_scope_name(e->scope), e->scope);
	putc(' ', f);
	name(f, katra_kind_name(e->kind), e->kind);
	putc(' ', f);
	name(f, katra_phase_name(e->phase), e->phase);
	if (e->span_id.present) {
		kr_s(f, " span=");
		kr_u64(f, e->span_id.value);
	}
	if (c && c->have_dur) {
		kr_s(f, " dur_ns=");
		kr_u64(f, c->dur_ns);
	}
	if (e->request_id.present) {
		kr_s(f, " req=");
		kr_u64(f, e->request_id.value);
	}
	if (e->causes.len) {
		kr_s(f, " causes=[");
		for (uint64_t i = 0; i < e->causes.len; i++) {
			if (i)
				putc(',', f);
			kr_u64(f, e->causes.items[i]);
		}
		putc(']', f);
	}
	resource(f, &e->resource, names);
	payload(f, e, names);
	if (e->cost_estimate_ns.present) {
		kr_s(f, " cost=");
		kr_u64(f, e->cost_estimate_ns.value);
	}
	if (e->confidence != KATRA_CONFIDENCE_MEASURED) {
		kr_s(f, " conf=");
		name(f, katra_confidence_name(e->confidence), e->confidence);
	}
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
	kr_text_record(f, rec, NULL);
}

void kr_text_record(FILE *f, const struct katra_record *rec, const struct kr_dump_ctx *c)
{
	switch (rec->type) {
	case KATRA_RECORD_EVENT:
		event(f, &rec->u.event, c);
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
	case KATRA_RECORD_MODULE:
	case KATRA_RECORD_STACK:
	case KATRA_RECORD_STACK_OF:
	case KATRA_RECORD_SYMBOLS:
		stack_record(f, rec);
		break;
	default:
		kr_s(f, "Unknown(");
		kr_u64(f, rec->type);
		kr_s(f, ")\n");
		break;
	}
}
