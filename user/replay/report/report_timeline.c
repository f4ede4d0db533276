// SPDX-License-Identifier: GPL-2.0-only
/* The HTML report's pixel timeline: per thread lane, KR_TL_COLUMNS columns,
 * and in each the nanoseconds spent in each category; a column is drawn in
 * its dominant category, time on the CPU weighing 8 times more.  The column width
 * starts at 1 us and doubles (merging column pairs) whenever a time falls
 * past the last column, so one pass fills it whatever the capture's length,
 * in a fixed KR_TL_LANES x KR_TL_COLUMNS x KR_TL_CAT_COUNT x 8 bytes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

struct kr_timeline {
	uint64_t col_ns;
	uint32_t used_cols; /* columns up to the latest time seen */
	uint32_t nlanes;
	uint64_t unlaned;
	uint64_t lane_tid[KR_TL_LANES], lane_pid[KR_TL_LANES];
	uint64_t ns[KR_TL_LANES][KR_TL_COLUMNS][KR_TL_CAT_COUNT];
	uint8_t on_path[KR_TL_LANES][KR_TL_COLUMNS]; /* the whole capture's critical path */
};

int kr_timeline_new(struct kr_timeline **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->col_ns = 1000;
	return 0;
}

void kr_timeline_free(struct kr_timeline *tl)
{
	free(tl);
}

int kr_timeline_lane(struct kr_timeline *tl, uint64_t tid, uint64_t pid)
{
	int l = kr_timeline_lane_of(tl, tid);

	if (l >= 0)
		return l;
	if (tl->nlanes >= KR_TL_LANES) {
		tl->unlaned++;
		return -1;
	}
	tl->lane_tid[tl->nlanes] = tid;
	tl->lane_pid[tl->nlanes] = pid;
	return (int)tl->nlanes++;
}

int kr_timeline_lane_of(const struct kr_timeline *tl, uint64_t tid)
{
	for (uint32_t i = 0; i < tl->nlanes; i++)
		if (tl->lane_tid[i] == tid)
			return (int)i;
	return -1;
}

/* Doubles the column width until t fits. */
static void fit(struct kr_timeline *tl, uint64_t t)
{
	while (t / tl->col_ns >= KR_TL_COLUMNS) {
		for (uint32_t l = 0; l < tl->nlanes; l++) {
			for (uint32_t c = 0; c < KR_TL_COLUMNS / 2; c++)
				for (unsigned k = 0; k < KR_TL_CAT_COUNT; k++)
					tl->ns[l][c][k] = tl->ns[l][2 * c][k] + tl->ns[l][2 * c + 1][k];
			memset(tl->ns[l][KR_TL_COLUMNS / 2], 0,
			       sizeof(tl->ns[l][0]) * (KR_TL_COLUMNS - KR_TL_COLUMNS / 2));
		}
		tl->col_ns *= 2;
		tl->used_cols = (tl->used_cols + 1) / 2;
	}
}

void kr_timeline_add(struct kr_timeline *tl, int lane, uint64_t from, uint64_t to, unsigned cat)
{
	if (lane < 0 || (uint32_t)lane >= tl->nlanes || cat >= KR_TL_CAT_COUNT || to <= from)
		return;
	fit(tl, to);
	uint32_t last = (uint32_t)(to / tl->col_ns);
	if (last + 1 > tl->used_cols)
		tl->used_cols = last + 1;
	for (uint32_t c = (uint32_t)(from / tl->col_ns); c <= last && c < KR_TL_COLUMNS; c++) {
		uint64_t c0 = (uint64_t)c * tl->col_ns, c1 = c0 + tl->col_ns;
		uint64_t a = from > c0 ? from : c0, b = to < c1 ? to : c1;

		if (b > a)
			tl->ns[lane][c][cat] += b - a;
	}
}

uint32_t kr_timeline_columns(const struct kr_timeline *tl, uint64_t *col_ns)
{
	*col_ns = tl->col_ns;
	return tl->used_cols;
}

uint32_t kr_timeline_lanes(const struct kr_timeline *tl)
{
	return tl->nlanes;
}

void kr_timeline_lane_info(const struct kr_timeline *tl, uint32_t lane, uint64_t *tid,
			   uint64_t *pid)
{
	*tid = tl->lane_tid[lane];
	*pid = tl->lane_pid[lane];
}

void kr_timeline_extend(struct kr_timeline *tl, uint64_t end_ns)
{
	fit(tl, end_ns);
	if (end_ns / tl->col_ns + 1 > tl->used_cols)
		tl->used_cols = (uint32_t)(end_ns / tl->col_ns) + 1;
	if (tl->used_cols > KR_TL_COLUMNS)
		tl->used_cols = KR_TL_COLUMNS;
}

/* Time on the CPU weighs ACTIVE_WEIGHT times more than time off it: a thread
 * that mostly waits still shows where it ran. */
#define ACTIVE_WEIGHT 8

unsigned kr_timeline_dominant(const struct kr_timeline *tl, uint32_t lane, uint32_t col)
{
	unsigned best = KR_TL_CAT_COUNT;
	uint64_t best_ns = 0, total = 0;

	if (lane >= tl->nlanes || col >= KR_TL_COLUMNS)
		return KR_TL_CAT_COUNT;
	for (unsigned k = 0; k < KR_TL_CAT_COUNT; k++) {
		uint64_t w = tl->ns[lane][col][k] * (k < KR_TL_OFF_IO ? ACTIVE_WEIGHT : 1);

		total += tl->ns[lane][col][k];
		if (w > best_ns) {
			best_ns = w;
			best = k;
		}
	}
	/* a column the thread lived in for under 1/20 is drawn empty */
	return total * 20 >= tl->col_ns ? best : KR_TL_CAT_COUNT;
}

void kr_timeline_mark_path(struct kr_timeline *tl, uint64_t tid, uint64_t from, uint64_t to)
{
	int lane = kr_timeline_lane_of(tl, tid);

	if (lane < 0 || to < from)
		return;
	for (uint64_t c = from / tl->col_ns; c <= to / tl->col_ns && c < KR_TL_COLUMNS; c++)
		tl->on_path[lane][c] = 1;
}

bool kr_timeline_on_path(const struct kr_timeline *tl, uint32_t lane, uint32_t col)
{
	return lane < tl->nlanes && col < KR_TL_COLUMNS && tl->on_path[lane][col];
}

uint64_t kr_timeline_unlaned(const struct kr_timeline *tl)
{
	return tl->unlaned;
}

unsigned kr_tl_cat_of_kind(uint32_t kind)
{
	switch (kind) {
	case KATRA_KIND_FILE_READ: case KATRA_KIND_FILE_WRITE: case KATRA_KIND_FILE_OPEN:
	case KATRA_KIND_FILE_CLOSE: case KATRA_KIND_NT_READ_FILE: case KATRA_KIND_NT_WRITE_FILE:
	case KATRA_KIND_NT_CREATE_FILE:
		return KR_TL_SYS_FILE;
	case KATRA_KIND_FUTEX: case KATRA_KIND_EPOLL_WAIT: case KATRA_KIND_POLL:
	case KATRA_KIND_SLEEP: case KATRA_KIND_IO_URING_ENTER: case KATRA_KIND_NT_WAIT:
	case KATRA_KIND_NT_DELAY_EXECUTION: case KATRA_KIND_VULKAN_FENCE_WAIT:
	case KATRA_KIND_VULKAN_SEMAPHORE_WAIT: case KATRA_KIND_VULKAN_ACQUIRE_NEXT_IMAGE:
		return KR_TL_SYS_WAIT;
	case KATRA_KIND_PAGE_FAULT:
		return KR_TL_FAULT;
	default:
		return KR_TL_SYS_OTHER;
	}
}
