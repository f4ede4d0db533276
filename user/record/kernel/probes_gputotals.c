// SPDX-License-Identifier: GPL-2.0-only
/* User space's side of the GPU layer's counts (bpf/gpu_totals.bpf.h): the
 * table of per-context totals, read whole. */
#include <errno.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "katra.skel.h"
#include "probes_int.h"

int katra_probes_gpu_totals(const struct katra_probes *p, katra_gpu_totals_fn fn, void *ctx)
{
	int fd = bpf_map__fd(p->skel->maps.gpu_totals), n = 0;
	struct katra_gpu_totals t;
	uint32_t key, next;
	void *prev = NULL;

	if (fd < 0)
		return fd;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &t))
			continue; /* gone meanwhile */
		fn(ctx, key, &t);
		n++;
	}
	return errno == ENOENT ? n : -errno;
}
