// SPDX-License-Identifier: GPL-2.0-only
/* stats --per-frame, every frame's sides (replay/report/frame_sides.h, the
 * computation report --frames gives its slowest frames): per frame of the
 * track whose critical path is walked (the first Frame epoch's, as report
 * --frames without --pid), its CPU time, its GPU time (all, and per
 * timeline: a ring), its present to flip (none: no flip of it) and whether
 * its critical path waited more for the GPU than it ran. */
#include <inttypes.h>
#include <string.h>

#include "katra/replay.h"
#include "replay/report/frame_sides.h"
#include "replay/util/out.h"
#include "views.h"

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

void kr_fsides_text(FILE *f, const struct kr_views *v)
{
	const struct kr_frame *t = kr_fsides_track(v->sides);
	size_t n;
	const struct kr_fside *fr = kr_fsides_frames(v->sides, &n);
	char ring[80];

	if (!t)
		return;
	kr_s(f, "\nframe sides of process ");
	kr_put_pid(f, v->names, t->pid);
	fprintf(f, ", swapchain 0x%" PRIx64 " (CPU: its threads on the CPU; GPU: its fences' "
		"flights; bound: its critical path\nwaited longer for the GPU than it ran, or not)\n"
		" frame     cpu ms     gpu ms  present to flip  bound    gpu per ring\n", t->swapchain);
	for (size_t i = 0; i < n; i++) {
		const struct kr_fside *s = &fr[i];

		fprintf(f, "%6" PRIu64 " %10.3f %10.3f ", s->number, ms(s->cpu_ns), ms(s->gpu_ns));
		if (s->to_flip_ns != UINT64_MAX)
			fprintf(f, "%13.3f ms ", ms(s->to_flip_ns));
		else
			fprintf(f, "%16s ", "none");
		fprintf(f, s->nrings ? " %-7s  " : " %s", kr_fgpu_bound(s->bound));
		for (unsigned k = 0; k < s->nrings; k++) {
			kr_fsides_ring_name(v->sides, s->rings[k].ctx, ring, sizeof(ring));
			fprintf(f, "%s%s %.3f ms", k ? ", " : "", ring, ms(s->rings[k].gpu_ns));
		}
		kr_s(f, "\n");
	}
}

/* ,"sides":{"process_id","swapchain","frames":[{"frame","start_ns","end_ns",
 *   "cpu_ns","gpu_ns","gpu_rings":[{"ring","context","gpu_ns","jobs","fences"}],
 *   "present_to_flip_ns":N|null,"bound":"cpu|gpu|unknown"}]} or null */
void kr_fsides_json(FILE *f, const struct kr_views *v)
{
	const struct kr_frame *t = kr_fsides_track(v->sides);
	size_t n;
	const struct kr_fside *fr = kr_fsides_frames(v->sides, &n);
	char ring[80];

	kr_s(f, ",\"sides\":");
	if (!t) {
		kr_s(f, "null");
		return;
	}
	fprintf(f, "{\"process_id\":%" PRIu64 ",\"swapchain\":\"0x%" PRIx64 "\",\"frames\":[",
		t->pid, t->swapchain);
	for (size_t i = 0; i < n; i++) {
		const struct kr_fside *s = &fr[i];

		fprintf(f, "%s{\"frame\":%" PRIu64 ",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64
			",\"cpu_ns\":%" PRIu64 ",\"gpu_ns\":%" PRIu64 ",\"gpu_rings\":[", i ? "," : "",
			s->number, s->start_ns, s->end_ns, s->cpu_ns, s->gpu_ns);
		for (unsigned k = 0; k < s->nrings; k++) {
			const struct kr_fgpu_ring *r = &s->rings[k];
			kr_fsides_ring_name(v->sides, r->ctx, ring, sizeof(ring));
			kr_s(f, k ? ",{\"ring\":" : "{\"ring\":");
			katra_json_string(f, ring, strlen(ring));
			fprintf(f, ",\"context\":%" PRIu64 ",\"gpu_ns\":%" PRIu64 ",\"jobs\":%" PRIu64
				",\"fences\":%" PRIu64 "}", r->ctx, r->gpu_ns, r->jobs, r->fences);
		}
		kr_s(f, "],\"present_to_flip_ns\":");
		if (s->to_flip_ns != UINT64_MAX)
			fprintf(f, "%" PRIu64, s->to_flip_ns);
		else
			kr_s(f, "null");
		fprintf(f, ",\"bound\":\"%s\"}", kr_fgpu_bound(s->bound));
	}
	kr_s(f, "]}");
}
