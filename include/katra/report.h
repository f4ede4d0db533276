/* SPDX-License-Identifier: GPL-2.0-only */
/* katra-replay report: for the whole capture and each epoch, where every
 * thread's time went (on-CPU, off-CPU by reason, page faults, io_uring
 * latency), the files and futexes waited on most, and the critical path
 * that ends at the window's last event.  Plain text, JSON, or one
 * self-contained HTML page with an SVG timeline.  Streaming: memory depends
 * on the number of threads and the causal index cap, not on the trace
 * length (user/replay/report/report.h says how). */
#ifndef KATRA_REPORT_H
#define KATRA_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct katra_report_opts {
	bool json;             /* one JSON object on out instead of text */
	const char *html_path; /* also (or only, without json) write this HTML page */
	unsigned top;          /* rows per table in text and HTML; 0: 10 */
	uint64_t index_cap;    /* causal index nodes, a power of two; 0: 1 Mi */
	uint64_t max_epochs;   /* epochs itemized (the first ones); 0: all */
	uint64_t path_tid;     /* the critical path ends at this thread's last event */
	uint64_t path_pid;     /* ... else at this process's; 0, 0: any thread's;
			        * with frames: whose frames (0: the first track's) */
	bool frames;           /* the frames instead (report_frames.c): frame times
			        * and the slowest frames' critical paths */
	const char *symbols;   /* --symbols DIR: where the call stacks' binaries are
			        * looked for first (names/elfsyms.h) */
};

/* 0 success; 1 the trace is invalid, truncated or corrupt (the report of
 * what precedes is still written, the reason goes to err); -errno when a
 * file cannot be read or written.  Messages start "katra-replay: ". */
int katra_report(const char *path, const struct katra_report_opts *o, FILE *out, FILE *err);

#endif
