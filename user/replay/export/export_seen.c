// SPDX-License-Identifier: GPL-2.0-only
/* export: events remembered by seq so that a cause met later can be drawn
 * as an arrow.  Two direct-mapped tables (slot = seq mod size, no
 * allocation after init): one for every event, one for the kinds that start
 * links across threads, which thus stay findable much longer.  A cause that
 * has fallen out of both is counted in flows_lost. */
#include "export.h"

static const uint32_t link_kinds[] = {
	KATRA_KIND_WAKEUP, KATRA_KIND_TASK_FORK, KATRA_KIND_TASK_EXEC, KATRA_KIND_IO_URING_SUBMIT,
};

bool kx_is_link_source(uint32_t kind)
{
	for (unsigned i = 0; i < sizeof(link_kinds) / sizeof(link_kinds[0]); i++)
		if (kind == link_kinds[i])
			return true;
	return false;
}

static void put(struct kx_seen *t, unsigned bits, const struct katra_event *e, bool shown)
{
	struct kx_seen *x = &t[e->seq & ((1ull << bits) - 1)];

	x->seq = e->seq;
	x->ts = e->ts_mono_ns;
	x->pid = e->process_id;
	x->tid = e->thread_id;
	x->kind = e->kind;
	x->shown = shown;
}

void kx_seen_put(struct kx_state *s, const struct katra_event *e, bool shown)
{
	put(s->seen, EXPORT_SEEN_BITS, e, shown);
	if (kx_is_link_source(e->kind))
		put(s->sources, EXPORT_SOURCE_BITS, e, shown);
}

const struct kx_seen *kx_seen_get(const struct kx_state *s, uint64_t seq)
{
	const struct kx_seen *x = &s->seen[seq & ((1ull << EXPORT_SEEN_BITS) - 1)];

	if (x->seq == seq)
		return x;
	x = &s->sources[seq & ((1ull << EXPORT_SOURCE_BITS) - 1)];
	return x->seq == seq ? x : NULL;
}

bool kx_pid_shown(const struct kx_state *s, uint64_t pid)
{
	if (!s->opt.npids)
		return true;
	for (unsigned i = 0; i < s->opt.npids; i++)
		if (s->opt.pids[i] == pid)
			return true;
	return false;
}
