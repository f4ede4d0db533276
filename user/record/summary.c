// SPDX-License-Identifier: GPL-2.0-only
/* The end-of-capture summary: a few lines for people on stderr, the same
 * figures as one JSON object for scripts (--summary-json). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "katra/plural.h"
#include "outfile.h"
#include "recorder.h"
#include "record/emit/emit.h"
#include "record/targets/session.h"

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The size of a -z trace on disk (the writer is closed by now): -1 when the
 * trace is not compressed or not a regular file (a device, a pipe). */
static int64_t compressed_bytes(const struct katra_record_opts *o)
{
	struct stat st;

	if (!o->compress || stat(o->output, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	return (int64_t)st.st_size;
}

void katra_record_print_summary(FILE *out, const struct katra_record_opts *o,
				const struct katra_record_result *res)
{
	double secs = res->duration_ns / 1e9;
	int64_t gz = compressed_bytes(o);
	char zinfo[64] = "";

	if (gz >= 0)
		snprintf(zinfo, sizeof(zinfo), " (%.2f MiB gzip, %.1fx)", gz / 1048576.0,
			 gz ? (double)res->bytes / (double)gz : 0.0);
	fprintf(out, "katra-record: %" PRIu64 " %s, %" PRIu64 " dropped, %.2f MiB%s in %.3f s -> "
		"%s\n", res->events, katra_plural(res->events, "event", "events"), res->dropped,
		res->bytes / 1048576.0, zinfo, secs, o->output);
	/* an expected fallback was said once when it happened: not a failure */
	unsigned failed = res->probes_failed - (res->probes_fallback < res->probes_failed ?
						res->probes_fallback : res->probes_failed);

	fprintf(out, "katra-record: %u %s attached", res->probes_attached,
		katra_plural(res->probes_attached, "probe", "probes"));
	if (failed)
		fprintf(out, ", %u failed", failed);
	fprintf(out, "; capture live after %.1f ms\n", res->live_after_ns / 1e6);
	for (size_t i = 0; i < o->nlabels; i++)
		fprintf(out, "%s%s%s", i ? " " : "katra-record: labels ", o->labels[i],
			i + 1 == o->nlabels ? "\n" : "");
	uint64_t by_origin[KATRA_ORIGIN_COUNT] = { 0 };
	for (size_t i = 0; i < res->nprocs; i++)
		if (res->procs[i].origin < KATRA_ORIGIN_COUNT)
			by_origin[res->procs[i].origin]++;
	if (by_origin[KATRA_ORIGIN_WINE_SESSION] || by_origin[KATRA_ORIGIN_WINE_JOINED])
		fprintf(out, "katra-record: %" PRIu64 " %s named, %" PRIu64 " found in Wine "
			"sessions at start, %" PRIu64 " joined later (--summary-json lists them)\n",
			res->procs_total, katra_plural(res->procs_total, "process", "processes"),
			by_origin[KATRA_ORIGIN_WINE_SESSION],
			by_origin[KATRA_ORIGIN_WINE_JOINED]);
	if (res->wakeups_unseen)
		fprintf(out, "katra-record: %" PRIu64 " %s the kernel ran no probe for, written "
			"as Inferred (a thread came back from a sleep with no wakeup seen)\n",
			res->wakeups_unseen,
			katra_plural(res->wakeups_unseen, "wakeup", "wakeups"));
	if (res->forced)
		fprintf(out, "katra-record: %" PRIu64 " %s written before every CPU's older "
			"records were read (the reorder memory was full): a thread's older "
			"events read after them were dropped as late (%" PRIu64 ")\n",
			res->forced, katra_plural(res->forced, "item", "items"), res->late);
	/* as bpftool prog show's run_cnt and run_time_ns; probes that never ran
	 * are in the JSON only */
	const char *sep = "katra-record: probe runs (bpf_stats, every thread's):";
	for (unsigned i = 0; i < res->nprobe_runs; i++) {
		const struct katra_probe_runs *pr = &res->probe_runs[i];
		if (!pr->runs)
			continue;
		fprintf(out, "%s %s %" PRIu64 " x %.0f ns", sep, pr->name, pr->runs,
			(double)pr->run_ns / (double)pr->runs);
		sep = ",";
	}
	if (res->nprobe_runs)
		fputc('\n', out);
	fprintf(out, "katra-record: events by kind:");
	for (uint32_t k = 0; k < KATRA_KIND_COUNT; k++)
		if (res->by_kind[k])
			fprintf(out, " %s=%" PRIu64, katra_kind_name(k), res->by_kind[k]);
	fputc('\n', out);
}

int katra_record_write_summary_json(const char *path, const struct katra_record_opts *o,
				    const struct katra_record_result *res)
{
	FILE *f;
	bool first = true;
	int fd, rc;

	rc = katra_outfile_create(path, o->force, &fd);
	if (rc)
		return rc;
	f = fdopen(fd, "w");
	if (!f) {
		int err = errno;
		close(fd);
		return -err;
	}
	int64_t gz = compressed_bytes(o);

	fprintf(f, "{\"output\":");
	json_string(f, o->output);
	/* bytes (= raw_bytes): the Katra stream; compressed_bytes: the -z file */
	fprintf(f, ",\"compressed\":%s,\"raw_bytes\":%" PRIu64, o->compress ? "true" : "false",
		res->bytes);
	if (gz >= 0)
		fprintf(f, ",\"compressed_bytes\":%" PRId64, gz);
	else
		fprintf(f, ",\"compressed_bytes\":null");
	fprintf(f, ",\"events\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"epochs\":%" PRIu64
		",\"counters\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"duration_ns\":%" PRIu64
		",\"late_events\":%" PRIu64 ",\"forced_releases\":%" PRIu64
		",\"offcpu_inferred\":%" PRIu64
		",\"wakeups_unseen\":%" PRIu64
		",\"loss_pct\":%.4f,\"peak_rss_kib\":%" PRIu64
		",\"ring_rss_kib\":%" PRIu64 ",\"ring_bytes\":%" PRIu64
		",\"live_after_ns\":%" PRIu64
		",\"live_at_ns\":%" PRIu64
		",\"cpu_ns_setup\":%" PRIu64 ",\"cpu_ns_capture\":%" PRIu64
		",\"probes_attached\":%u,\"probes_failed\":%u,\"probes_fallback\":%u"
		",\"events_lost\":%" PRIu64 ",\"links_lost\":%" PRIu64
		",\"runs_skipped\":%" PRIu64 ",\"stacks_lost\":%" PRIu64,
		res->events, res->dropped, res->epochs, res->counters, res->bytes,
		res->duration_ns, res->late, res->forced, res->offcpu_inferred, res->wakeups_unseen,
		katra_record_loss_pct(res),
		res->peak_rss_kib, res->ring_rss_kib, res->ring_bytes,
		res->live_after_ns, res->live_at_ns, res->cpu_ns_setup,
		res->cpu_ns_capture, res->probes_attached,
		res->probes_failed, res->probes_fallback, res->events_lost, res->links_lost, res->runs_skipped,
		res->stacks_lost);
	/* null: the drain ran at the normal policy throughout */
	if (!o->drain_idle)
		fprintf(f, ",\"drain_boosts\":null");
	else
		fprintf(f, ",\"drain_boosts\":%" PRIu64, res->drain_boosts);
	if (res->command_status >= 0 && WIFEXITED(res->command_status))
		fprintf(f, ",\"command_exit_code\":%d", WEXITSTATUS(res->command_status));
	else if (res->command_status >= 0 && WIFSIGNALED(res->command_status))
		fprintf(f, ",\"command_signal\":%d", WTERMSIG(res->command_status));
	fprintf(f, ",\"events_by_kind\":{");
	for (uint32_t k = 0; k < KATRA_KIND_COUNT; k++) {
		if (!res->by_kind[k])
			continue;
		fprintf(f, "%s\"%s\":%" PRIu64, first ? "" : ",", katra_kind_name(k),
			res->by_kind[k]);
		first = false;
	}
	fprintf(f, "}");
	/* --label KEY=VALUE: {"KEY":"VALUE",..} in the order given */
	fprintf(f, ",\"labels\":{");
	for (size_t i = 0; i < o->nlabels; i++) {
		const char *eq = strchr(o->labels[i], '=');
		char key[KATRA_LABEL_KEY_MAX + 1];

		snprintf(key, sizeof(key), "%.*s", (int)(eq - o->labels[i]), o->labels[i]);
		fprintf(f, "%s", i ? "," : "");
		json_string(f, key);
		fputc(':', f);
		json_string(f, eq + 1);
	}
	fprintf(f, "}");
	/* --bpf-stats: each probe's program runs and run time (null: not asked,
	 * or the kernel would not count) */
	if (!res->nprobe_runs)
		fprintf(f, ",\"probe_runs\":null");
	for (unsigned i = 0; i < res->nprobe_runs; i++)
		fprintf(f, "%s\"%s\":{\"runs\":%" PRIu64 ",\"run_ns\":%" PRIu64 "}%s",
			i ? "," : ",\"probe_runs\":{", res->probe_runs[i].name,
			res->probe_runs[i].runs, res->probe_runs[i].run_ns,
			i + 1 == res->nprobe_runs ? "}" : "");
	/* every process the trace names: pid, comm, Windows image, origin */
	fprintf(f, ",\"processes_total\":%" PRIu64 ",\"processes\":[", res->procs_total);
	for (size_t i = 0; i < res->nprocs; i++) {
		const struct katra_proc_entry *p = &res->procs[i];
		fprintf(f, "%s{\"pid\":%u,\"name\":", i ? "," : "", p->pid);
		json_string(f, p->image[0] ? p->image : p->comm);
		fprintf(f, ",\"comm\":");
		json_string(f, p->comm);
		fprintf(f, ",\"windows_image\":");
		if (p->image[0])
			json_string(f, p->image);
		else
			fprintf(f, "null");
		fprintf(f, ",\"origin\":\"%s\"}", katra_process_origin_name(p->origin));
	}
	fprintf(f, "]}\n");
	if (fclose(f) != 0)
		return -errno;
	return 0;
}

void katra_record_take_emit_stats(struct katra_record_result *res, const struct emit_stats *st)
{
	res->late = st->late;
	res->offcpu_inferred = st->offcpu_inferred;
	res->wakeups_unseen = st->wakeups_unseen;
}

void katra_record_split_losses(struct katra_record_result *res, const struct katra_drop_count *drops,
			       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct katra_drop_count *d = &drops[i];
		bool events = d->source == KATRA_DROP_RING_RESERVE || d->source == KATRA_DROP_REORDER ||
			      (d->source == KATRA_DROP_KERNEL_TABLE &&
			       d->instance == KATRA_KTABLE_UCALLS);

		if (d->source == KATRA_DROP_PROGRAM_SKIPPED)
			res->runs_skipped += d->count;
		else if (d->source == KATRA_DROP_STACKS)
			res->stacks_lost += d->count;
		else if (events)
			res->events_lost += d->count;
		else
			res->links_lost += d->count;
	}
}

double katra_record_loss_pct(const struct katra_record_result *res)
{
	uint64_t all = res->events + res->events_lost;

	return all ? 100.0 * (double)res->events_lost / (double)all : 0.0;
}
