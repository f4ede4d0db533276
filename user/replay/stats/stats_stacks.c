// SPDX-License-Identifier: GPL-2.0-only
/* stats --stacks: the heaviest call stacks (StackOf records) by the time
 * of the spans they explain, per site, named from the binaries at hand;
 * --folded: the same as folded stacks (flamegraph.pl, inferno, speedscope:
 * "outermost;...;innermost NANOSECONDS", kernel frames suffixed _[k]). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "katra/replay.h"
#include "symbols/elfsyms.h"
#include "replay/util/open.h"
#include "replay/util/xmap.h"
#include "stats.h"

struct stk {
	uint64_t id;
	struct katra_stack_frame *frames;
	uint64_t nframes;
	char **kernel;
	uint64_t nkernel;
	bool truncated;
};

/* per (stack, site) */
struct agg {
	uint64_t stack_index; /* in stacks[] */
	uint64_t site;
	uint64_t count, total_ns;
};

struct sview {
	struct stk *stacks;
	size_t n, cap;
	struct kr_xmap by_id;  /* stack id -> index + 1 */
	struct kr_xmap by_use; /* (stack id, site) -> struct agg */
	uint64_t unknown;      /* StackOf naming no Stack */
	int oom;
};

static int keep_stack(struct sview *v, const struct katra_stack *s)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		struct stk *ns = realloc(v->stacks, cap * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		v->stacks = ns;
		v->cap = cap;
	}
	struct stk *k = &v->stacks[v->n];
	memset(k, 0, sizeof(*k));
	k->id = s->id;
	k->truncated = s->truncated;
	k->frames = malloc((s->frames_len + 1) * sizeof(*k->frames));
	k->kernel = calloc(s->kernel.len + 1, sizeof(*k->kernel));
	if (!k->frames || !k->kernel)
		goto oom;
	memcpy(k->frames, s->frames, s->frames_len * sizeof(*k->frames));
	k->nframes = s->frames_len;
	for (uint64_t i = 0; i < s->kernel.len; i++) {
		k->kernel[i] = strndup(s->kernel.items[i].ptr, s->kernel.items[i].len);
		if (!k->kernel[i])
			goto oom;
		k->nkernel++;
	}
	bool created;
	uint64_t *idx = kr_xmap_get(&v->by_id, &s->id, &created);
	if (!idx)
		goto oom;
	*idx = ++v->n;
	return 0;
oom:
	for (uint64_t i = 0; i < k->nkernel; i++)
		free(k->kernel[i]);
	free(k->kernel);
	free(k->frames);
	return -ENOMEM;
}

/* --on-cpu: the timer samples alone; --off-cpu: the off-CPU intervals
 * alone; both or neither: every site */
static bool site_wanted(const struct katra_stats_opts *o, uint32_t site)
{
	bool off = o->views & KATRA_STATS_OFFCPU;

	if (o->on_cpu == off)
		return true;
	return site == (o->on_cpu ? KATRA_SITE_SAMPLE : KATRA_SITE_OFF_CPU);
}

static void cite(struct sview *v, const struct katra_stack_of *so)
{
	uint64_t *idx = kr_xmap_find(&v->by_id, &so->stack_id);
	uint64_t key[2] = { so->stack_id, so->site };
	bool created;

	if (!idx) {
		v->unknown++;
		return;
	}
	struct agg *a = kr_xmap_get(&v->by_use, key, &created);
	if (!a) {
		v->oom = -ENOMEM;
		return;
	}
	a->stack_index = *idx - 1;
	a->site = so->site;
	a->count++;
	a->total_ns += so->duration_ns;
}

static int heaviest(const void *x, const void *y)
{
	const struct agg *a = *(const struct agg *const *)x, *b = *(const struct agg *const *)y;

	if (a->site != b->site)
		return a->site < b->site ? -1 : 1;
	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	return a->stack_index < b->stack_index ? -1 : a->stack_index > b->stack_index;
}

/* "name" of a kernel frame "name+0xoff" */
static void kernel_name(const char *k, char *buf, size_t cap)
{
	size_t n = strcspn(k, "+");

	snprintf(buf, cap, "%.*s", (int)(n < cap ? n : cap - 1), k);
}

static void folded(FILE *out, struct kr_elfsyms *sy, const struct stk *k, uint64_t total)
{
	char buf[512];
	bool first = true;

	/* outermost first: the user frames from the last, then the kernel's */
	for (uint64_t i = k->nframes; i-- > 0;) {
		fprintf(out, "%s%s", first ? "" : ";",
			kr_elfsyms_name(sy, k->frames[i].module, k->frames[i].address, 0, buf,
					sizeof(buf)));
		first = false;
	}
	for (uint64_t i = k->nkernel; i-- > 0;) {
		kernel_name(k->kernel[i], buf, sizeof(buf));
		fprintf(out, "%s%s_[k]", first ? "" : ";", buf);
		first = false;
	}
	fprintf(out, " %" PRIu64 "\n", total);
}

static void frame_text(struct kr_elfsyms *sy, const struct katra_stack_frame *f, char *buf,
		       size_t cap)
{
	char name[400];
	const char *mod = kr_elfsyms_module_name(sy, f->module, NULL);
	const char *base = strrchr(mod, '/') ? strrchr(mod, '/') + 1 : mod;

	kr_elfsyms_name(sy, f->module, f->address, 1, name, sizeof(name));
	if (f->module)
		snprintf(buf, cap, "%s (%s)", name, base);
	else
		snprintf(buf, cap, "%s", name);
}

static void json_stack(FILE *out, struct kr_elfsyms *sy, const struct agg *a, const struct stk *k,
		       bool comma)
{
	char buf[512];

	fprintf(out, "%s\n{\"stack\":%" PRIu64 ",\"site\":", comma ? "," : "", k->id);
	const char *site = katra_stack_site_name((uint32_t)a->site);
	katra_json_string(out, site ? site : "?", site ? strlen(site) : 1);
	fprintf(out, ",\"count\":%" PRIu64 ",\"total_ns\":%" PRIu64 ",\"truncated\":%s,\"frames\":[",
		a->count, a->total_ns, k->truncated ? "true" : "false");
	for (uint64_t i = 0; i < k->nframes; i++) {
		frame_text(sy, &k->frames[i], buf, sizeof(buf));
		if (i)
			putc(',', out);
		katra_json_string(out, buf, strlen(buf));
	}
	fputs("],\"kernel\":[", out);
	for (uint64_t i = 0; i < k->nkernel; i++) {
		if (i)
			putc(',', out);
		katra_json_string(out, k->kernel[i], strlen(k->kernel[i]));
	}
	fputs("]}", out);
}

static void text_stack(FILE *out, struct kr_elfsyms *sy, const struct agg *a, const struct stk *k)
{
	char buf[512];

	fprintf(out, "\n%12.3f ms  %6" PRIu64 " x  stack %" PRIu64 "%s\n", a->total_ns / 1e6,
		a->count, k->id, k->truncated ? "  (truncated: the walk stopped short)" : "");
	for (uint64_t i = 0; i < k->nkernel; i++)
		fprintf(out, "      [k] %s\n", k->kernel[i]);
	for (uint64_t i = 0; i < k->nframes; i++) {
		frame_text(sy, &k->frames[i], buf, sizeof(buf));
		fprintf(out, "          %s\n", buf);
	}
}

static void print(FILE *out, struct sview *v, struct kr_elfsyms *sy,
		  const struct katra_stats_opts *o, const char *path)
{
	size_t n = 0, shown = 0;
	void **sorted = kr_xmap_sorted(&v->by_use, &n, heaviest);
	unsigned top = o->top ? o->top : 20;
	uint64_t last_site = UINT64_MAX;

	if (o->json)
		fputs("{\"stacks\":[", out);
	else if (!o->folded)
		fprintf(out, "%s: %zu call stacks\n", path, v->n);
	for (size_t i = 0; i < n; i++) {
		const struct agg *a = sorted[i];
		const struct stk *k = &v->stacks[a->stack_index];
		if (a->site != last_site)
			shown = 0;
		if (o->folded) {
			folded(out, sy, k, a->total_ns);
		} else if (shown < top) {
			if (o->json) {
				json_stack(out, sy, a, k, i > 0);
			} else {
				if (a->site != last_site) {
					const char *site = katra_stack_site_name((uint32_t)a->site);
					fprintf(out, "\nheaviest stacks, %s (time of the spans they "
						"explain):\n", site ? site : "?");
				}
			}
			if (!o->json)
				text_stack(out, sy, a, k);
		}
		shown++;
		last_site = a->site;
	}
	if (o->json)
		fputs("\n]}\n", out);
	else if (!o->folded && v->unknown)
		fprintf(out, "\n(%" PRIu64 " StackOf records name no Stack)\n", v->unknown);
	free(sorted);
}

int kr_stacks_report(const char *path, FILE *out, const struct katra_stats_opts *o, FILE *err)
{
	struct katra_reader *r = NULL;
	struct kr_elfsyms *sy = kr_elfsyms_new(o->symbols);
	struct sview v = { 0 };
	struct katra_record rec;
	enum katra_read_status st;
	int ret;

	if (!sy) {
		fprintf(err, "katra-replay: out of memory\n");
		return -ENOMEM;
	}
	kr_xmap_init(&v.by_id, 8, 8, 1u << 24);
	kr_xmap_init(&v.by_use, 16, sizeof(struct agg), 1u << 24);
	ret = kr_open(&r, path, err);
	if (ret)
		goto cleanup;
	while (!v.oom && (st = katra_reader_next(r, &rec)) == KATRA_READ_RECORD) {
		if (rec.type == KATRA_RECORD_MODULE)
			v.oom = kr_elfsyms_module(sy, rec.u.module.id, rec.u.module.name.ptr,
						  rec.u.module.name.len, rec.u.module.build_id.ptr,
						  rec.u.module.build_id.len);
		else if (rec.type == KATRA_RECORD_SYMBOLS)
			v.oom = kr_elfsyms_trace_names(sy, &rec.u.symbols);
		else if (rec.type == KATRA_RECORD_STACK)
			v.oom = keep_stack(&v, &rec.u.stack);
		else if (rec.type == KATRA_RECORD_STACK_OF && site_wanted(o, rec.u.stack_of.site))
			cite(&v, &rec.u.stack_of);
	}
	if (v.oom) {
		fprintf(err, "katra-replay: out of memory\n");
		ret = v.oom;
		goto cleanup;
	}
	print(out, &v, sy, o, path);
	ret = kr_flush_out(out, err);
	int est = kr_end_status(r, st, path, err);
	if (!ret)
		ret = est;
cleanup:
	for (size_t i = 0; i < v.n; i++) {
		for (uint64_t j = 0; j < v.stacks[i].nkernel; j++)
			free(v.stacks[i].kernel[j]);
		free(v.stacks[i].kernel);
		free(v.stacks[i].frames);
	}
	free(v.stacks);
	kr_xmap_free(&v.by_id);
	kr_xmap_free(&v.by_use);
	kr_elfsyms_free(sy);
	katra_reader_close(r);
	return ret;
}
