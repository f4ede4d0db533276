// SPDX-License-Identifier: GPL-2.0-only
/* --from / --to windows (see window.h). */
#include <string.h>

#include "window.h"

void kr_window_init(struct kr_window *w, const struct katra_dump_when *from,
		    const struct katra_dump_when *to)
{
	memset(w, 0, sizeof(*w));
	if (from)
		w->from = *from;
	if (to)
		w->to = *to;
	w->from_reached = !(w->from.set && w->from.epoch);
}

static bool name_is(const struct katra_epoch_marker *m, const char *name)
{
	size_t n = strlen(name);

	return m->name.len == n && !memcmp(m->name.ptr, name, n);
}

static bool ts_of(const struct katra_record *rec, uint64_t *ts)
{
	switch (rec->type) {
	case KATRA_RECORD_EVENT:
		*ts = rec->u.event.ts_mono_ns;
		return true;
	case KATRA_RECORD_EPOCH_MARKER:
		*ts = rec->u.epoch.ts_mono_ns;
		return true;
	case KATRA_RECORD_COUNTER:
		*ts = rec->u.counter.ts_mono_ns;
		return true;
	default:
		return false;
	}
}

bool kr_window_has(struct kr_window *w, const struct katra_record *rec)
{
	bool marker = rec->type == KATRA_RECORD_EPOCH_MARKER;
	uint64_t ts;

	if (w->to_passed)
		return false;
	if (!w->from_reached) {
		if (!marker || !name_is(&rec->u.epoch, w->from.epoch))
			return false;
		w->from_reached = true;
		return true; /* the --from marker itself; never also the --to one */
	}
	if (w->to.set && w->to.epoch && marker && name_is(&rec->u.epoch, w->to.epoch)) {
		w->to_passed = true;
		return true;
	}
	if (!ts_of(rec, &ts))
		return !w->from.set && !w->to.set;
	if (w->from.set && !w->from.epoch && ts < w->from.ns)
		return false;
	if (w->to.set && !w->to.epoch && ts > w->to.ns)
		return false;
	return true;
}

int kr_window_check(const struct kr_window *w, const char *cmd, const char *path, FILE *err)
{
	if (!w->from_reached) {
		fprintf(err, "katra-replay: %s: '%s' has no EpochMarker named '%s' (--from)\n", cmd,
			path, w->from.epoch);
		return 1;
	}
	if (w->to.set && w->to.epoch && !w->to_passed) {
		fprintf(err, "katra-replay: %s: '%s' has no EpochMarker named '%s' after the "
			"--from point (--to)\n", cmd, path, w->to.epoch);
		return 1;
	}
	return 0;
}
