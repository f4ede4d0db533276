// SPDX-License-Identifier: GPL-2.0-only
/* What the probes say of themselves: the layers they make, those on, off
 * or fallen back (the header's notes, stderr's lines), the names attached
 * and failed, the flavour of the syscall path. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "katra.skel.h"
#include "probes_int.h"

/* Which probes make which layer; the core (syscalls, process lifecycle) must
 * attach, the others are optional. */
static const struct {
	const char *layer;
	const char *probes[5];
} layers[] = {
	{ "core", { "sys_enter", "sys_exit", "sched_process_fork", "sched_process_exec",
		    "sched_process_exit" } },
	{ "sched", { "sched_switch", "sched_waking", "sched_wakeup_new" } },
	{ "faults", { "page_fault_user" } },
	{ "fault-durations", { "handle_mm_fault" } },
	{ "io_uring", { "io_uring_create", "io_uring_submit_req", "io_uring_complete",
		       "io_uring_cqe_overflow" } },
	{ "names", { "task_rename" } },
	/* a process connecting to a traced session's wineserver */
	{ "wine-join", { "sys_exit_connect" } },
	/* io_uring_submit_sqe stands in for submit_req on older kernels: not a layer */
};

static const char *failure_of(const struct katra_probes *p, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < p->nfailed; i++)
		if (!strncmp(p->failed[i], name, n) && p->failed[i][n] == ':')
			return p->failed[i];
	return NULL;
}

/* Whether probe name is off by an expected fallback. */
static bool fell_back(const struct katra_probes *p, const char *name)
{
	for (unsigned i = 0; i < p->nprobes; i++)
		if (!strcmp(p->probes[i].name, name))
			return is_fallback(&p->probes[i]);
	return false;
}

static size_t layer_notes(const struct katra_probes *p, char (*out)[KATRA_NOTE_MAX], size_t cap,
			  bool *core_ok, bool warnings)
{
	size_t n = 0;

	*core_ok = true;
	for (size_t l = 0; l < sizeof(layers) / sizeof(layers[0]); l++) {
		size_t total = 0, off = 0, len = 0;
		char why[KATRA_NOTE_MAX] = "";
		for (size_t i = 0; i < 5 && layers[l].probes[i]; i++) {
			const char *f = failure_of(p, layers[l].probes[i]);
			/* the older name carries it (6.1) */
			if (f && !strcmp(layers[l].probes[i], "io_uring_submit_req") &&
			    katra_probes_is_attached(p, "io_uring_submit_sqe"))
				f = NULL;
			if (f && warnings && fell_back(p, layers[l].probes[i]))
				f = NULL;
			total++;
			if (!f)
				continue;
			off++;
			len += (size_t)snprintf(why + len, len < sizeof(why) ? sizeof(why) - len : 0,
						"%s%s", off > 1 ? "; " : "", f);
		}
		if (!off)
			continue;
		if (!l)
			*core_ok = false;
		if (n < cap)
			snprintf(out[n++], KATRA_NOTE_MAX, "layer %s %s: %s", layers[l].layer,
				 off == total ? "off" : "partial", why);
	}
	return n;
}

/* The GPU layer's trace events, in the order the note names them. */
static const char *const gpu_events[] = {
	"dma_fence_init", "dma_fence_emit", "dma_fence_enable_signal", "dma_fence_signaled",
	"dma_fence_wait_start", "dma_fence_wait_end", "dma_fence_destroy",
};
/* The GPU scheduler's: up to 6.16, and from 6.17 (renamed) */
static const char *const sched_old[] = { "drm_sched_job", "drm_run_job", "drm_sched_process_job" };
static const char *const sched_new[] = { "drm_sched_job_queue", "drm_sched_job_run",
					 "drm_sched_job_done" };
/* The display's (drm, a module) */
static const char *const vblank_events[] = { "drm_vblank_event", "drm_vblank_event_queued",
					     "drm_vblank_event_delivered" };
/* virtio_gpu's commands (a module), the third slot unused */
static const char *const virtio_events[] = { "virtio_gpu_cmd_queue", "virtio_gpu_cmd_response",
					     "" };

/* How many of a group's three events (scheduler, display) are attached; their failures
 * (other than absence) appended to failed. */
static size_t sched_attached(const struct katra_probes *p, const char *const *names,
			     char *failed, size_t *len)
{
	size_t on = 0;

	for (size_t i = 0; i < 3 && names[i][0]; i++) {
		const char *f = failure_of(p, names[i]);
		if (!f) {
			on += katra_probes_is_attached(p, names[i]);
			continue;
		}
		if (strstr(f, pk_gpu_absent))
			continue;
		*len += (size_t)snprintf(failed + *len, *len < KATRA_NOTE_MAX ?
					 KATRA_NOTE_MAX - *len : 0, "%s%s", *len ? "; " : "", f);
	}
	return on;
}

/* Whether tracefs lists the event system SYS (either mount point). */
static bool have_events_dir(const char *sys)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s", sys);
	if (!access(path, F_OK))
		return true;
	snprintf(path, sizeof(path), "/sys/kernel/debug/tracing/events/%s", sys);
	return !access(path, F_OK);
}

/* The GPU layer's line: what it attached, what it could not, and the GPU
 * trace events this kernel has that it does not record yet. */
static void gpu_note(const struct katra_probes *p, char *out)
{
	size_t len = 0, on = 0, absent = 0;
	char failed[KATRA_NOTE_MAX] = "";

	for (size_t i = 0; i < sizeof(gpu_events) / sizeof(gpu_events[0]); i++) {
		const char *f = failure_of(p, gpu_events[i]);
		if (!f) {
			on += katra_probes_is_attached(p, gpu_events[i]);
			continue;
		}
		if (strstr(f, pk_gpu_absent)) {
			absent++;
			continue;
		}
		len += (size_t)snprintf(failed + len, len < sizeof(failed) ? sizeof(failed) - len : 0,
					"%s%s", len ? "; " : "", f);
	}
	size_t old = sched_attached(p, sched_old, failed, &len);
	size_t new = sched_attached(p, sched_new, failed, &len);
	char sched[96] = "";
	if (old || new)
		snprintf(sched, sizeof(sched), " + gpu_scheduler (%zu of 3 events, %s)",
			 old + new, new ? "6.17 names" : "names before 6.17");
	size_t vbl = sched_attached(p, vblank_events, failed, &len);
	char rest[192] = "";
	if (vbl)
		snprintf(rest, sizeof(rest), " + vblank (%zu of 3 events%s)", vbl,
			 access("/sys/kernel/btf/drm", F_OK) ?
				 "; flips of files with no vblank wait unseen but atomic commits' "
				 "with a traced out-fence: the drm module has no BTF" :
				 "");
	else if (have_events_dir("drm"))
		snprintf(rest, sizeof(rest), "; drm (vblank) not attached");
	size_t vio = sched_attached(p, virtio_events, failed, &len), rl = strlen(rest);
	if (vio)
		snprintf(rest + rl, sizeof(rest) - rl, " + virtio_gpu (%zu of 2 events)", vio);
	else
		snprintf(rest + rl, sizeof(rest) - rl, "%s",
			 have_events_dir("virtio_gpu") ? "; virtio_gpu not attached"
						       : "; virtio_gpu: no tracepoints");
	/* the init of a fence numbered at its emit is the raw tracepoint's */
	rl = strlen(rest);
	if (on && katra_probes_is_attached(p, "dma_fence_init") &&
	    !katra_probes_is_attached(p, "gv_dma_fence_init"))
		snprintf(rest + rl, sizeof(rest) - rl,
			 "; fences numbered at their emit (virtio_gpu) have no init: %s",
			 failure_of(p, "gv_dma_fence_init") ? failure_of(p, "gv_dma_fence_init")
							     : "gv_dma_fence_init not attached");
	bool no_device = false;
	for (unsigned i = 0; i < p->nprobes; i++)
		no_device |= p->probes[i].lacks == pk_gpu_no_device;
	if (!on && no_device)
		snprintf(out, KATRA_NOTE_MAX, "layer gpu off: %s", pk_gpu_no_device);
	else if (!on)
		snprintf(out, KATRA_NOTE_MAX, "layer gpu off: %s%s",
			 failed[0] ? failed : absent ? "no dma_fence tracepoints in this kernel"
						    : "not attached",
			 rest);
	else
		snprintf(out, KATRA_NOTE_MAX, "layer gpu: dma_fence (%zu of %zu events)%s%s%s%s", on,
			 sizeof(gpu_events) / sizeof(gpu_events[0]), sched, rest,
			 failed[0] ? "; failed: " : "", failed);
}

size_t katra_probes_layer_notes(const struct katra_probes *p, char (*out)[KATRA_NOTE_MAX],
				size_t cap, bool *core_ok)
{
	size_t n = layer_notes(p, out, cap, core_ok, false);

	if (n < cap)
		gpu_note(p, out[n++]);
	if (n < cap && p->skel->rodata->record_stacks && p->kstack_depth < KATRA_STACK_KDEPTH)
		snprintf(out[n++], KATRA_NOTE_MAX, "stacks: kernel stacks at most %u frames deep "
			 "(kernel.perf_event_max_stack is %u; %u without that limit)",
			 p->kstack_depth, p->kstack_depth, KATRA_STACK_KDEPTH);
	return n;
}

size_t katra_probes_layer_warnings(const struct katra_probes *p, char (*out)[KATRA_NOTE_MAX],
				   size_t cap, bool *core_ok)
{
	return layer_notes(p, out, cap, core_ok, true);
}

size_t katra_probes_fallbacks(const struct katra_probes *p)
{
	return p->nfallback;
}

size_t katra_probes_attached(const struct katra_probes *p, const char *const **names)
{
	*names = p->attached;
	return p->nattached;
}

size_t katra_probes_failed(const struct katra_probes *p, const char *const **names)
{
	*names = (const char *const *)p->failed;
	return p->nfailed;
}

const char *katra_probes_flavour(const struct katra_probes *p)
{
	bool btf = false, raw = false;

	for (unsigned i = 0; i < p->nprobes; i++) {
		const char *sec = p->probes[i].link ? bpf_program__section_name(p->probes[i].use)
						     : NULL;
		if (sec && !strncmp(sec, "tp_btf/", 7))
			btf = true;
		else if (sec && !strncmp(sec, "raw_tp/", 7))
			raw = true;
	}
	return btf && raw ? "tp_btf+raw_tp" : raw ? "raw_tp" : "tp_btf";
}
