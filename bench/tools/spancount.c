// SPDX-License-Identifier: GPL-2.0-only
/* spancount TRACE TID:START:END...: what a katra trace holds of each given
 * thread's loop, counted from the trace itself (never from the recorder's
 * own event or loss counts), for the bench to hold against the calls the
 * workload says it made.
 *
 * START and END are CLOCK_MONOTONIC ns (the workload's own clock reads around
 * its loop); an event is in the window when START <= its time <= END (trace
 * time = header start_mono_ns + ts_mono_ns).  Per thread it prints:
 *   syscalls  {"NR": spans}: Begin in the window, paired with an End of the
 *             same span_id whose SyscallReturn names NR
 *   faults    PageFault events begun (Instant or Begin) in the window
 *   uring_submit, uring_complete   io_uring Instants in the window
 *   unpaired  syscall returns (Ends, Instants) in the window without a Begin,
 *             and syscall Begins in the window that never end
 * one JSON object: {"threads":{"TID":{...}},"records":N}.  Exit 0, 1 when the
 * trace cannot be read to its end, 2 on usage. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "katra/format.h"

#define MAX_WIN 64
#define MAX_NR 1024
/* spans open at once (Begin seen, End not yet): a power of two */
#define OPEN_CAP (1u << 20)

struct win {
	uint64_t tid, start, end;
	uint64_t nr_spans[MAX_NR];
	uint64_t other_nr, faults, submits, completes, unpaired;
};

struct open_span {
	uint64_t id; /* 0: free */
	struct win *w;
};

static struct win wins[MAX_WIN];
static int nwins;
static struct open_span *open_tab;
static uint64_t nopen;

static uint64_t slot_of(uint64_t id)
{
	return (id * 0x9e3779b97f4a7c15ull) >> 44 & (OPEN_CAP - 1);
}

static int open_put(uint64_t id, struct win *w)
{
	uint64_t i = slot_of(id);

	if (nopen >= OPEN_CAP / 2)
		return -ENOSPC;
	while (open_tab[i].id && open_tab[i].id != id)
		i = (i + 1) & (OPEN_CAP - 1);
	nopen += !open_tab[i].id;
	open_tab[i].id = id;
	open_tab[i].w = w;
	return 0;
}

/* -> the window the span was begun in, removed from the table; NULL if none */
static struct win *open_take(uint64_t id)
{
	uint64_t i = slot_of(id), j;
	struct win *w;

	while (open_tab[i].id != id) {
		if (!open_tab[i].id)
			return NULL;
		i = (i + 1) & (OPEN_CAP - 1);
	}
	w = open_tab[i].w;
	/* backward-shift deletion keeps every probe chain unbroken */
	for (j = (i + 1) & (OPEN_CAP - 1); open_tab[j].id; j = (j + 1) & (OPEN_CAP - 1)) {
		uint64_t h = slot_of(open_tab[j].id);

		if (((j - h) & (OPEN_CAP - 1)) >= ((j - i) & (OPEN_CAP - 1))) {
			open_tab[i] = open_tab[j];
			i = j;
		}
	}
	open_tab[i].id = 0;
	nopen--;
	return w;
}

static struct win *win_of(uint64_t tid, uint64_t t)
{
	for (int i = 0; i < nwins; i++)
		if (wins[i].tid == tid && wins[i].start <= t && t <= wins[i].end)
			return &wins[i];
	return NULL;
}

static void count(const struct katra_event *e, uint64_t t)
{
	struct win *w = win_of(e->thread_id, t);

	if (e->phase == KATRA_PHASE_END) {
		struct win *b = e->span_id.present ? open_take(e->span_id.value) : NULL;

		if (b && e->payload.type == KATRA_PAYLOAD_SYSCALL_RETURN) {
			uint32_t nr = e->payload.u.syscall_return.nr;

			if (nr < MAX_NR)
				b->nr_spans[nr]++;
			else
				b->other_nr++;
		} else if (!b && w && e->payload.type == KATRA_PAYLOAD_SYSCALL_RETURN) {
			w->unpaired++;
		}
		return;
	}
	if (!w)
		return;
	if (e->kind == KATRA_KIND_PAGE_FAULT)
		w->faults++;
	else if (e->kind == KATRA_KIND_IO_URING_SUBMIT)
		w->submits++;
	else if (e->kind == KATRA_KIND_IO_URING_COMPLETE)
		w->completes++;
	/* the spans of syscalls (any payload but a switch's or a fault's) */
	if (e->phase == KATRA_PHASE_BEGIN && e->span_id.present &&
	    e->kind != KATRA_KIND_PAGE_FAULT && e->payload.type != KATRA_PAYLOAD_SWITCH) {
		if (open_put(e->span_id.value, w)) {
			fprintf(stderr, "spancount: more than %u spans open at once\n",
				OPEN_CAP / 2);
			exit(1);
		}
	} else if (e->phase == KATRA_PHASE_INSTANT &&
		   e->payload.type == KATRA_PAYLOAD_SYSCALL_RETURN) {
		w->unpaired++; /* a return whose entry the trace does not hold */
	}
}

int main(int argc, char **argv)
{
	struct katra_reader *r = NULL;
	struct katra_record rec;
	enum katra_read_status st;
	uint64_t base, records = 0;
	char msg[256];
	int err;

	if (argc < 3 || argc - 2 > MAX_WIN)
		goto usage;
	for (int i = 2; i < argc; i++) {
		struct win *w = &wins[nwins++];

		if (sscanf(argv[i], "%" SCNu64 ":%" SCNu64 ":%" SCNu64, &w->tid, &w->start,
			   &w->end) != 3)
			goto usage;
	}
	open_tab = calloc(OPEN_CAP, sizeof(*open_tab));
	if (!open_tab) {
		fprintf(stderr, "spancount: out of memory\n");
		return 1;
	}
	err = katra_reader_open(&r, argv[1], msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "spancount: cannot read trace '%s': %s\n", argv[1], msg);
		return 1;
	}
	base = katra_reader_header(r)->start_mono_ns;
	while ((st = katra_reader_next(r, &rec)) == KATRA_READ_RECORD) {
		records++;
		if (rec.type == KATRA_RECORD_EVENT)
			count(&rec.u.event, base + rec.u.event.ts_mono_ns);
	}
	if (st != KATRA_READ_EOF) {
		fprintf(stderr, "spancount: trace '%s' unreadable after %" PRIu64 " records: %s\n",
			argv[1], records, katra_reader_message(r));
		katra_reader_close(r);
		return 1;
	}
	katra_reader_close(r);
	/* Begins still open: begun in a window, never ended */
	for (uint64_t i = 0; i < OPEN_CAP; i++)
		if (open_tab[i].id)
			open_tab[i].w->unpaired++;
	printf("{\"records\":%" PRIu64 ",\"threads\":{", records);
	for (int i = 0; i < nwins; i++) {
		struct win *w = &wins[i];
		int first = 1;

		printf("%s\"%" PRIu64 "\":{\"syscalls\":{", i ? "," : "", w->tid);
		for (int nr = 0; nr < MAX_NR; nr++) {
			if (!w->nr_spans[nr])
				continue;
			printf("%s\"%d\":%" PRIu64, first ? "" : ",", nr, w->nr_spans[nr]);
			first = 0;
		}
		printf("},\"other_nr\":%" PRIu64 ",\"faults\":%" PRIu64 ",\"uring_submit\":%" PRIu64
		       ",\"uring_complete\":%" PRIu64 ",\"unpaired\":%" PRIu64 "}",
		       w->other_nr, w->faults, w->submits, w->completes, w->unpaired);
	}
	printf("}}\n");
	free(open_tab);
	return 0;
usage:
	fprintf(stderr, "usage: spancount TRACE TID:START_NS:END_NS... (at most %d)\n", MAX_WIN);
	return 2;
}
