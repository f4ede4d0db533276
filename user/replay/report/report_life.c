// SPDX-License-Identifier: GPL-2.0-only
/* A report's state made and freed (report.c moves it, record by record). */
#include <errno.h>
#include <stdlib.h>

#include "report_int.h"

int kr_report_new(struct kr_report **out, const struct katra_header *h,
		  const struct kr_report_opts *o)
{
	struct kr_report *rp = calloc(1, sizeof(*rp));
	int rc;

	*out = NULL;
	if (!rp)
		return -ENOMEM;
	rp->o = *o;
	rp->header_cpus = h ? h->host.cpu_count : 0;
	rc = kr_index_init(&rp->index, o->index_cap ? o->index_cap : KR_REPORT_INDEX_CAP);
	if (!rc && o->timeline)
		rc = kr_timeline_new(&rp->tl);
	if (rc) {
		kr_index_free(&rp->index);
		free(rp);
		return rc;
	}
	kr_idmap_init(&rp->thread_map, KR_REPORT_MAX_THREADS);
	kr_idmap_init(&rp->procs, KR_REPORT_MAX_THREADS);
	kr_procnames_init(&rp->names);
	kr_idmap_init(&rp->path_map, KR_MAX_PATHS);
	kr_idmap_init(&rp->outside, KR_REPORT_MAX_THREADS);
	kr_idmap_init(&rp->pending, KR_REPORT_MAX_PENDING);
	kr_acc_init(&rp->whole, 0);
	*out = rp;
	return 0;
}

struct kr_stackidx *kr_report_stacks(const struct kr_report *rp)
{
	return rp->o.stacks;
}

bool kr_report_stacks_final(const struct kr_report *rp)
{
	return rp->stacks_final;
}

void kr_report_free(struct kr_report *rp)
{
	if (!rp)
		return;
	kr_idmap_free(&rp->thread_map);
	kr_idmap_free(&rp->procs);
	kr_procnames_free(&rp->names);
	kr_idmap_free(&rp->path_map);
	kr_idmap_free(&rp->outside);
	kr_idmap_free(&rp->pending);
	kr_acc_free(&rp->whole);
	kr_acc_free(&rp->epoch);
	kr_index_free(&rp->index);
	free(rp->msgs);
	kr_ucalls_free(rp);
	kr_timeline_free(rp->tl);
	free(rp->threads);
	free(rp->paths);
	free(rp);
}
