// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "recorder_header.h"
#include "record/targets/targets.h"

void katra_record_build_header(struct katra_header *h, struct header_store *hs,
			       const struct katra_record_opts *o, struct katra_probes *p,
			       const struct katra_uprobes *up, const uint32_t *pids, size_t npids,
			       uint64_t start_mono, uint64_t start_wall)
{
	const char *const *names;
	size_t n, nn = 0;

	memset(h, 0, sizeof(*h));
	uname(&hs->uts);
	gethostname(hs->hostname, sizeof(hs->hostname) - 1);
	if (o->command) {
		const char *base = strrchr(o->command[0], '/');
		snprintf(hs->workload, sizeof(hs->workload), "%s", base ? base + 1 : o->command[0]);
	} else {
		katra_target_comm(o->pids[0], hs->workload, sizeof(hs->workload));
	}
	for (size_t i = 0; i < npids; i++)
		hs->pids[i] = pids[i];

	h->format_version = KATRA_FORMAT_VERSION;
	h->schema_hash = katra_schema_hash;
	h->tool_version = katra_cstr("katra-record " KATRA_RECORD_VERSION);
	h->capture_options.target_pids = (struct katra_u64_vec){ hs->pids, npids };
	h->capture_options.follow_children = o->follow_children;
	h->capture_options.record_paths = o->record_paths;
	h->capture_options.buffer_size_bytes = katra_probes_ring_bytes(p);
	h->capture_options.duration_limit_ns =
		(struct katra_opt_u64){ o->duration_ns != 0, o->duration_ns };
	h->capture_options.counter_interval_ns = o->counter_interval_ns;
	h->capture_options.reorder_window_ns = o->reorder_window_ns;
	h->start_wall_ns = start_wall;
	h->start_mono_ns = start_mono;
	h->process_id = (uint64_t)getpid();
	h->workload = katra_cstr(hs->workload);
	h->host.hostname = katra_cstr(hs->hostname);
	h->host.os = katra_cstr(hs->uts.sysname);
	h->host.kernel_release = katra_cstr(hs->uts.release);
	h->host.machine = katra_cstr(hs->uts.machine);
	h->host.cpu_count = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	h->host.page_size = (uint32_t)sysconf(_SC_PAGESIZE);

	/* the labels first, one note each: "label KEY=VALUE" (SPEC.md, Labels) */
	for (size_t i = 0; i < o->nlabels && nn < 64; i++)
		snprintf(hs->note_buf[nn++], sizeof(hs->note_buf[0]), "label %s", o->labels[i]);
	nn += katra_wine_names_notes(hs->wine, o->pids, o->npids, hs->kids, *hs->nkids,
				     hs->note_buf[nn], sizeof(hs->note_buf[0]), 32);
	snprintf(hs->note_buf[nn++], sizeof(hs->note_buf[0]), "probes: %s, %u per-CPU rings",
		 katra_probes_flavour(p), katra_probes_ring_count(p));
	snprintf(hs->note_buf[nn++], sizeof(hs->note_buf[0]), "syscall numbers: %s",
		 hs->uts.machine);
	char sel[64];
	katra_select_describe(&o->select, sel, sizeof(sel));
	snprintf(hs->note_buf[nn++], sizeof(hs->note_buf[0]), "events: %s", sel);
	if (katra_probes_syscall_path(p))
		snprintf(hs->note_buf[nn++], sizeof(hs->note_buf[0]), "%s",
			 katra_probes_syscall_path(p));
	n = katra_probes_failed(p, &names);
	for (size_t i = 0; i < n && nn < 64; i++)
		snprintf(hs->note_buf[nn++], sizeof(hs->note_buf[0]), "probe not attached: %s",
			 names[i]);
	bool core_ok;
	nn += katra_probes_layer_notes(p, hs->note_buf + nn, 64 - nn, &core_ok);
	/* Wine, Vulkan, GPU: what is probed at start (later attachments are in
	 * the summary's probes_attached / probes_failed) */
	n = katra_uprobes_failed(up, &names);
	for (size_t i = 0; i < n && nn < 64; i++)
		snprintf(hs->note_buf[nn++], sizeof(hs->note_buf[0]), "probe not attached: %s",
			 names[i]);
	nn += katra_uprobes_notes(up, hs->note_buf + nn, 64 - nn);
	for (size_t i = 0; i < nn; i++)
		hs->notes[i] = katra_cstr(hs->note_buf[i]);
	h->notes = (struct katra_str_vec){ hs->notes, nn };
}

