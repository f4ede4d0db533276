// SPDX-License-Identifier: GPL-2.0-only
/* The HTML report's SVG timeline: one lane per thread (the pixel timeline
 * of report_timeline.c, one column per pixel, each the colour of what the
 * thread mostly did in it), the epochs (dashed lines, or ticks when they
 * are many), a time axis, and the whole capture's critical path in red: a
 * strip under its thread's lane where a hop ran on it (the lane's colours
 * stay visible), a line where the path jumps between threads.
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

/* Epochs.  Few: a dashed line across the lanes each, labelled where the
 * previous label leaves room.  More than KR_SVG_EPOCH_LINES: a short tick on
 * the axis each, no label (hundreds of lines and labels would cover the
 * lanes); the page lists them in a table instead. */
#define KR_SVG_EPOCH_LINES 40
#define LABEL_ROOM 90.0

static void marks(FILE *f, const struct kr_report *rp, const struct geo *g, int lanes)
{
	const struct kr_mark *m;
	uint32_t n = kr_report_marks(rp, &m);
	double last_label = -1e9;

	if (n > KR_SVG_EPOCH_LINES) {
		for (uint32_t i = 0; i < n; i++) {
			double x = x_of(m[i].ts, g);

			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
				"class=\"epochtick\"/>\n", x, TOP - 6, x, TOP - 1);
		}
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		double x = x_of(m[i].ts, g);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" class=\"epoch\"/>",
			x, TOP - 4, x, y_of(lanes) + 4);
		if (x - last_label >= LABEL_ROOM) {
			last_label = x;
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"epochname\">%" PRIu64 " ",
				x + 2, y_of(lanes) + 14, m[i].epoch);
			kr_html_escape(f, m[i].name);
			fputs("</text>", f);
		}
		fputc('\n', f);
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
				fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"3\" "
					"fill=\"%s\"><title>critical path</title></rect>\n",
					LABEL_W + c * g->px, y_of((int)l) + LANE_H - 1, (e - c) * g->px,
					PATH_COLOR);
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

/* ---- the frame-time (or epoch-length) chart ---- */
#define BARS_LEFT 64
#define BARS_TOP 14
#define BARS_H 180
#define BARS_W 1000
#define BAR_COLOR "#4682b4"
#define SERIES_COLOR "#2a9d2a"

/* The bar a column [from, to) shows: its longest, a slow one first. */
static size_t bar_shown(const struct kr_bar *b, size_t from, size_t to)
{
	size_t top = from;
	bool slow = false;

	for (size_t i = from; i < to; i++) {
		if (b[i].ns > b[top].ns)
			top = i;
		slow |= b[i].slow;
	}
	if (slow)
		for (size_t i = from; i < to; i++)
			if (b[i].slow && (!b[top].slow || b[i].ns > b[top].ns))
				top = i;
	return top;
}

/* One bar per window in order (a window per pixel column at most: beyond
 * that a column shows the longest of its windows); the slow ones red and
 * each a link to its section (#PREFIX-ID); a dashed line at the median. */
/* The second series: at each column the value of the bar it shows (the
 * same choice as the bars'), a polyline with a title per point. */
static void bars_series(FILE *f, const struct kr_bar *b, size_t n, size_t cols, double bw,
			uint64_t max, const uint64_t *series, const char *label)
{
	fputs("<polyline class=\"series\" fill=\"none\" stroke=\"" SERIES_COLOR "\" "
	      "stroke-width=\"1.5\" points=\"", f);
	for (size_t c = 0; c < cols; c++) {
		size_t i = bar_shown(b, c * n / cols, (c + 1) * n / cols);
		fprintf(f, "%s%.2f,%.2f", c ? " " : "", BARS_LEFT + c * bw + bw / 2,
			BARS_TOP + BARS_H - (double)BARS_H * (double)series[i] / (double)max);
	}
	fputs("\"/>\n", f);
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"seriesname\" fill=\"" SERIES_COLOR "\">"
		"line: ", BARS_LEFT, BARS_TOP - 4);
	kr_html_escape(f, label);
	fputs("</text>\n", f);
}

void kr_svg_bars(FILE *f, const struct kr_bar *b, size_t n, uint64_t median_ns,
		 const char *prefix, const char *what)
{
	kr_svg_bars_series(f, b, n, median_ns, prefix, what, NULL, NULL);
}

void kr_svg_bars_series(FILE *f, const struct kr_bar *b, size_t n, uint64_t median_ns,
			const char *prefix, const char *what, const uint64_t *series,
			const char *label)
{
	size_t cols = n < BARS_W ? n : BARS_W;
	uint64_t max = 1;
	double bw;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		if (b[i].ns > max)
			max = b[i].ns;
		if (series && series[i] > max)
			max = series[i];
	}
	bw = (double)BARS_W / (double)cols;
	fprintf(f, "<svg width=\"%d\" height=\"%d\" class=\"bars\" role=\"img\" aria-label=\"%s "
		"times\">\n", BARS_LEFT + BARS_W + 110, BARS_TOP + BARS_H + 34, what);
	for (int k = 0; k <= 4; k++) {
		double y = BARS_TOP + BARS_H - BARS_H * k / 4.0;

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%d\" y=\"%.1f\" class=\"ytick\">%.3g ms</text>\n", BARS_LEFT, y,
			BARS_LEFT + BARS_W, y, BARS_LEFT - 4, y + 4, (double)max * k / 4.0 / 1e6);
	}
	for (size_t c = 0; c < cols; c++) {
		size_t top = bar_shown(b, c * n / cols, (c + 1) * n / cols);
		double h = (double)BARS_H * (double)b[top].ns / (double)max;
		double x = BARS_LEFT + c * bw;

		if (b[top].slow)
			fprintf(f, "<a href=\"#%s-%" PRIu64 "\">", prefix, b[top].id);
		fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
			"<title>%s %" PRIu64 ": %.3f ms</title></rect>", x, BARS_TOP + BARS_H - h,
			bw > 2 ? bw - 0.5 : bw, h < 0.5 ? 0.5 : h, b[top].slow ? PATH_COLOR : BAR_COLOR,
			what, b[top].id, (double)b[top].ns / 1e6);
		fputs(b[top].slow ? "</a>\n" : "\n", f);
	}
	if (series)
		bars_series(f, b, n, cols, bw, max, series, label);
	if (median_ns) {
		double y = BARS_TOP + BARS_H - (double)BARS_H * (double)median_ns / (double)max;

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"median\"/>"
			"<text x=\"%d\" y=\"%.1f\" class=\"medianname\">median %.3f ms</text>\n",
			BARS_LEFT, y, BARS_LEFT + BARS_W, y, BARS_LEFT + BARS_W + 2, y + 4,
			(double)median_ns / 1e6);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"first\">%s %" PRIu64 "</text><text x=\"%d\" "
		"y=\"%d\" class=\"last\">%s %" PRIu64 "</text><text x=\"%d\" y=\"%d\" class=\"tick\">"
		"%ss in order; red: the slowest, each a link to its details</text>\n</svg>\n",
		BARS_LEFT, BARS_TOP + BARS_H + 14, what, b[0].id, BARS_LEFT + BARS_W,
		BARS_TOP + BARS_H + 14, what, b[n - 1].id, BARS_LEFT + BARS_W / 2,
		BARS_TOP + BARS_H + 28, what);
}
