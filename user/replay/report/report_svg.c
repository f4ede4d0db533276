// SPDX-License-Identifier: GPL-2.0-only
/* The HTML report's SVG timeline: one lane per thread (the pixel timeline
 * of report_timeline.c, one column per pixel, each the colour of what the
 * thread mostly did in it), the epochs as dashed lines, a time axis, and
 * the whole capture's critical path drawn over the lanes in red: a box per
 * hop on its thread's lane, a line where the path jumps between threads.
 * Static SVG: no script, no external reference. */
#include <inttypes.h>
#include <stdio.h>

#include "report_render.h"

#define LABEL_W 210
#define TOP 46
#define LANE_H 16
#define LANE_GAP 5
#define PLOT_W 1000
#define PATH_COLOR "#d00000"

/* The timeline's columns stretched over PLOT_W pixels. */
struct geo {
	uint64_t col_ns;
	uint32_t cols;
	double px; /* pixels per column */
};

static double x_of(uint64_t t, const struct geo *g)
{
	return LABEL_W + (double)t / (double)g->col_ns * g->px;
}

static double y_of(int lane)
{
	return TOP + lane * (LANE_H + LANE_GAP);
}

static void axis(FILE *f, uint64_t end_ns, const struct geo *g, int lanes)
{
	static const uint64_t steps[] = { 1, 2, 5 };
	uint64_t span = end_ns ? end_ns : 1, step = 0;
	double bottom = y_of(lanes);

	/* at most ten ticks: 1, 2 or 5 times a power of ten nanoseconds (a
	 * damaged trace's times can be anything up to 2^64: no overflow) */
	for (uint64_t p = 1000; !step; p *= 10) {
		for (int i = 0; i < 3 && !step; i++)
			if (span / (p * steps[i]) <= 10)
				step = p * steps[i];
		if (p > UINT64_MAX / 100)
			step = step ? step : UINT64_MAX / 2;
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>\n", LABEL_W,
		TOP - 6, LABEL_W + PLOT_W, TOP - 6);
	for (uint64_t i = 0; i <= 10 && i <= span / step; i++) {
		uint64_t t = i * step;
		double x = x_of(t, g);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%.1f\" y=\"%d\" class=\"tick\">%g ms</text>\n", x, TOP - 10, x,
			bottom, x, TOP - 14, (double)t / 1e6);
	}
}

static void marks(FILE *f, const struct kr_report *rp, const struct geo *g, int lanes)
{
	const struct kr_mark *m;
	uint32_t n = kr_report_marks(rp, &m);

	for (uint32_t i = 0; i < n; i++) {
		double x = x_of(m[i].ts, g);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" class=\"epoch\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" class=\"epochname\">%" PRIu64 " ", x, TOP - 4, x,
			y_of(lanes) + 4, x + 2, y_of(lanes) + 14, m[i].epoch);
		kr_html_escape(f, m[i].name);
		fputs("</text>\n", f);
	}
}

static void lanes(FILE *f, const struct kr_report *rp, const struct kr_timeline *tl,
		  const struct geo *g)
{
	uint32_t n = kr_timeline_lanes(tl);

	for (uint32_t l = 0; l < n; l++) {
		uint64_t tid, pid;
		double y = y_of((int)l);

		kr_timeline_lane_info(tl, l, &tid, &pid);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"lane\">", LABEL_W - 6, y + LANE_H - 4);
		FILE *m = f;
		char name[96];
		FILE *s = fmemopen(name, sizeof(name), "w");
		if (s) {
			kr_thread_text(s, rp, tid, pid);
			fputc(0, s);
			fclose(s);
			name[sizeof(name) - 1] = 0;
			kr_html_escape(m, name);
		}
		fputs("</text>\n", f);
		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"#f7f7f7\"/>\n",
			LABEL_W, y, PLOT_W, LANE_H);
		for (uint32_t c = 0; c < g->cols;) {
			unsigned cat = kr_timeline_dominant(tl, l, c);
			uint32_t e = c + 1;

			while (e < g->cols && kr_timeline_dominant(tl, l, e) == cat)
				e++;
			if (cat < KR_TL_CAT_COUNT)
				fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
					"fill=\"%s\"><title>%s</title></rect>\n", LABEL_W + c * g->px, y,
					(e - c) * g->px, LANE_H, kr_tl_cat_color(cat), kr_tl_cat_name(cat));
			c = e;
		}
	}
}

/* The path: a red box over each run of columns it spends on a lane (all
 * its hops, marked during the walk), and a red line at each jump between
 * lanes among the hops the path keeps (the newest). */
static void path_overlay(FILE *f, const struct kr_timeline *tl, const struct kr_path *p,
			 const struct geo *g)
{
	int prev_lane = -1;
	double prev_x = 0;

	if (!p || !p->present)
		return;
	fputs("<g class=\"critical\">\n", f);
	for (uint32_t l = 0; l < kr_timeline_lanes(tl); l++) {
		for (uint32_t c = 0; c < g->cols;) {
			uint32_t e = c;

			while (e < g->cols && kr_timeline_on_path(tl, l, e))
				e++;
			if (e > c)
				fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
					"fill=\"none\" stroke=\"%s\" stroke-width=\"2\"><title>critical "
					"path</title></rect>\n", LABEL_W + c * g->px, y_of((int)l) - 1,
					(e - c) * g->px, LANE_H + 2, PATH_COLOR);
			c = e + 1;
		}
	}
	for (uint32_t i = 0; i < p->nhops; i++) {
		const struct kr_hop *h = &p->hops[i];
		int lane = kr_timeline_lane_of(tl, h->tid);
		double x0 = x_of(h->from_ns, g), x1 = x_of(h->to_ns, g);

		if (lane < 0)
			continue;
		if (prev_lane >= 0 && prev_lane != lane)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				"stroke-width=\"2\"/>\n", prev_x, y_of(prev_lane) + LANE_H / 2.0, x0,
				y_of(lane) + LANE_H / 2.0, PATH_COLOR);
		prev_lane = lane;
		prev_x = x1;
	}
	fputs("</g>\n", f);
}

void kr_svg_timeline(FILE *f, const struct kr_report *rp, const struct kr_path *path,
		     uint64_t start_ns, uint64_t end_ns)
{
	const struct kr_timeline *tl = kr_report_timeline(rp);
	struct geo g;
	uint32_t n;

	(void)start_ns;
	if (!tl)
		return;
	g.cols = kr_timeline_columns(tl, &g.col_ns);
	if (g.cols < 1)
		g.cols = 1;
	g.px = (double)PLOT_W / g.cols;
	n = kr_timeline_lanes(tl);
	fprintf(f, "<svg width=\"%d\" height=\"%.0f\" "
		"class=\"timeline\" role=\"img\" aria-label=\"thread timeline\">\n",
		LABEL_W + PLOT_W + 20, y_of((int)n) + 24);
	axis(f, end_ns, &g, (int)n);
	lanes(f, rp, tl, &g);
	marks(f, rp, &g, (int)n);
	path_overlay(f, tl, path, &g);
	fputs("</svg>\n", f);
	if (kr_timeline_unlaned(tl))
		fprintf(f, "<p class=\"note\">%" PRIu64 " more threads are not drawn (the timeline "
			"has %d lanes).</p>\n", kr_timeline_unlaned(tl), KR_TL_LANES);
}
