/* SPDX-License-Identifier: GPL-2.0-only */
/* The report's renderers: plain text (report_text.c), JSON
 * (report_json.c), a self-contained HTML page (report_html.c, with the SVG
 * timeline of report_svg.c).  Each renders one finished window at a time;
 * the driver (report_run.c) puts the pieces in order. */
#ifndef KATRA_REPLAY_REPORT_RENDER_H
#define KATRA_REPLAY_REPORT_RENDER_H

#include <stdio.h>

#include "katra/format.h"
#include "katra/report.h"
#include "report.h"

struct kr_render {
	const char *path;                /* the trace file as named */
	const struct katra_header *h;
	unsigned top;                    /* rows per table */
	const char *error;               /* why the trace stopped early, or NULL */
	bool compressed;                 /* the trace was gzip-compressed */
};

void kr_text_head(FILE *f, const struct kr_report *rp, const struct kr_render *r);
void kr_text_window(FILE *f, const struct kr_report *rp, const struct kr_window *w,
		    const struct kr_render *r);
/* The hop's call stack (katra-record --stacks): a blocked hop's off-CPU
 * interval's, a running hop's timer samples' (*samples: how many); its n
 * innermost frames named, joined by sep into buf.  How many frames (0: none) */
unsigned kr_hop_stack(const struct kr_report *rp, const struct kr_hop *h, unsigned n,
		      const char *sep, char *buf, size_t cap, unsigned *samples);
/* The frames text and HTML show under a hop; JSON has them all */
#define KR_HOP_STACK_SHOWN 5
/* The hop's stack as each renderer shows it: text, a line under the hop;
 * JSON, its ,"stack" key; HTML, a block in its cell.  Before every record is
 * read, a marker that report_run.c's copy replaces (report_defer.c). */
void kr_text_hop_stack(FILE *f, const struct kr_report *rp, const struct kr_hop *h);
void kr_json_hop_stack(FILE *f, const struct kr_report *rp, const struct kr_hop *h);
void kr_html_hop_stack(FILE *f, const struct kr_report *rp, const struct kr_hop *h);

/* An epoch's window is rendered when it ends, before the call stacks are
 * read (they follow the events): its hops' stacks are left as markers in
 * the temporary file, and the copy out resolves them (report_run.c). */
enum kr_defer_mode { KR_DEFER_TEXT = 'T', KR_DEFER_JSON = 'J', KR_DEFER_HTML = 'H' };
/* \x1e KSTK:mode:type:tid:from:to \x1e (JSON escapes \x1e, HTML drops it; a
 * text name that holds one is copied as it is: the copy checks the form) */
#define KR_DEFER_MARK 0x1e
#define KR_DEFER_MARK_MAX 96
/* Before the stacks are known, a marker for h's stack in f: true; after, or
 * for a hop that has no stack, false (render it now) */
bool kr_defer_stack(FILE *f, const struct kr_report *rp, const struct kr_hop *h,
		    enum kr_defer_mode mode);

/* "critical path: ..." and its newest hops (2 * top, at least 20). */
void kr_text_path(FILE *f, const struct kr_report *rp, const struct kr_path *p, unsigned top);

void kr_json_head(FILE *f, const struct kr_report *rp, const struct kr_render *r);
void kr_json_window(FILE *f, const struct kr_report *rp, const struct kr_window *w);
/* ,"critical_path":{...} (or null) */
void kr_json_path(FILE *f, const struct kr_report *rp, const struct kr_path *p);
/* Feeds every record of r to rp (then after_each(ctx), when set) and ends
 * it: 0, or -errno with a message on err; a trace that stops early leaves
 * the reader's complaint in *error (report_run.c). */
int kr_report_read_all(struct kr_report *rp, struct katra_reader *r,
		       enum katra_read_status *st, const char **error,
		       void (*after_each)(void *ctx), void *ctx, FILE *err);
/* report --frames (report_frames.c): the frame-time distribution and the
 * slowest frames with their critical paths, text, JSON or an HTML page. */
int kr_frames_report(const char *path, const struct katra_report_opts *o, FILE *out, FILE *err);

void kr_html_head(FILE *f, const struct kr_report *rp, const struct kr_render *r);
void kr_html_window(FILE *f, const struct kr_report *rp, const struct kr_window *w,
		    const struct kr_render *r);
void kr_html_tail(FILE *f);
/* "Critical path": its length, its time by hop kind, its newest hops. */
void kr_html_path(FILE *f, const struct kr_report *rp, const struct kr_path *p, unsigned top);
/* The SVG timeline of every lane, the epochs and the whole capture's
 * critical path (path may be NULL). */
void kr_svg_timeline(FILE *f, const struct kr_report *rp, const struct kr_path *path,
		     uint64_t start_ns, uint64_t end_ns);

/* A bar of the frame-time chart: a frame's (or an epoch's) number and
 * length; slow ones are drawn red and link to #PREFIX-ID. */
struct kr_bar {
	uint64_t id, ns;
	bool slow;
};
void kr_svg_bars(FILE *f, const struct kr_bar *b, size_t n, uint64_t median_ns,
		 const char *prefix, const char *what);
/* The same with a second series drawn as a line over the bars: series[i]
 * for bar i (the value of the bar each column shows), named by its label;
 * NULL: none. */
void kr_svg_bars_series(FILE *f, const struct kr_bar *b, size_t n, uint64_t median_ns,
			const char *prefix, const char *what, const uint64_t *series,
			const char *label);
/* The page's style and the facts table; the timeline's legend. */
void kr_html_timeline_legend(FILE *f);
/* Text that goes into HTML or SVG: & < > " ' escaped, control bytes dropped. */
void kr_html_escape(FILE *f, const char *s);

#endif
