// SPDX-License-Identifier: GPL-2.0-only
/* A trace read into the report model, record by record (report_run.c's
 * windows and report_frames.c's frames alike). */
#include <stdio.h>
#include <string.h>

#include "report_int.h"

int kr_report_read_all(struct kr_report *rp, struct katra_reader *r,
		       enum katra_read_status *st, const char **error,
		       void (*after_each)(void *ctx), void *ctx, FILE *err)
{
	struct katra_record rec;
	int ret = 0;

	while ((*st = katra_reader_next(r, &rec)) == KATRA_READ_RECORD) {
		ret = kr_report_add(rp, &rec);
		if (after_each)
			after_each(ctx);
		if (ret)
			break;
	}
	if (!ret && *st != KATRA_READ_EOF) {
		*error = katra_reader_message(r);
		if (!*error || !(*error)[0])
			*error = "unreadable record";
	}
	if (!ret)
		ret = kr_report_finish(rp);
	if (ret)
		fprintf(err, "katra-replay: report: %s\n", strerror(-ret));
	return ret;
}
