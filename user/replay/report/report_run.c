// SPDX-License-Identifier: GPL-2.0-only
/* The report command's driver: stream the trace into the model, render
 * each epoch as it ends into a temporary file per output (so nothing grows
 * in memory with the number of epochs), and when the whole capture ends
 * write the head, the whole capture, then the epochs (their hops' call
 * stacks resolved as they are copied: copy_resolved, report_defer.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "katra/replay.h"
#include "katra/report.h"
#include "replay/names/stackidx.h"
#include "replay/util/open.h"
#include "replay/util/out.h"
#include "report_render.h"

/* An itemized epoch as the HTML page lists it, and where its section lies in
 * the temporary file (only the longest ones' sections are copied). */
struct ep_row {
	uint64_t epoch, start_ns, end_ns, events;
	uint32_t kind;
	long off, len;
	char name[KR_NAME_MAX];
};

struct run {
	const struct katra_report_opts *o;
	struct kr_render r;
	FILE *out, *err;
	FILE *ep_text, *ep_json, *ep_html;
	bool text;
	uint64_t epochs_json;
	struct ep_row *rows;   /* --html: every itemized epoch, in order */
	size_t nrows, cap;
	int error;
};

/* The marker's text (between the two \x1e) rendered, or false */
static bool resolve(FILE *to, const char *m, const struct kr_report *rp)
{
	struct kr_hop h = { 0 };
	unsigned type;
	char mode;
	int end = 0;

	if (sscanf(m, "KSTK:%c:%u:%" SCNu64 ":%" SCNu64 ":%" SCNu64 "%n", &mode, &type, &h.tid,
		   &h.from_ns, &h.to_ns, &end) != 5 || m[end])
		return false;
	h.type = (uint8_t)type;
	if (mode == KR_DEFER_TEXT)
		kr_text_hop_stack(to, rp, &h);
	else if (mode == KR_DEFER_JSON)
		kr_json_hop_stack(to, rp, &h);
	else if (mode == KR_DEFER_HTML)
		kr_html_hop_stack(to, rp, &h);
	else
		return false;
	return true;
}

/* len bytes of `from` at off (len < 0: to its end) to `to`, each stack marker
 * replaced by its stack: 0 or -errno.  A \x1e that starts no marker (a
 * thread's name may hold one) is copied as it is. */
static int copy_resolved(FILE *to, FILE *from, long off, long len,
			 const struct kr_report *rp)
{
	static const char prefix[] = "KSTK:";
	char m[KR_DEFER_MARK_MAX + 1];
	bool open = false; /* a \x1e was just read */
	int c = 0;

	if (fflush(from) || fseek(from, off, SEEK_SET))
		return -errno;
	while (open || ((len < 0 || len-- > 0) && (c = getc_unlocked(from)) != EOF)) {
		if (!open && c != KR_DEFER_MARK) {
			putc_unlocked(c, to);
			continue;
		}
		/* the marker up to its closing byte, while it reads as one */
		size_t n = 0;
		open = false;
		while ((len < 0 || len > 0) && n < KR_DEFER_MARK_MAX &&
		       (c = getc_unlocked(from)) != EOF) {
			len -= len > 0;
			if (c == KR_DEFER_MARK)
				break;
			m[n++] = (char)c;
			if (n < sizeof(prefix) && c != prefix[n - 1])
				break;
		}
		m[n] = 0;
		if (c == KR_DEFER_MARK && n >= sizeof(prefix) - 1 && resolve(to, m, rp))
			continue;
		putc_unlocked(KR_DEFER_MARK, to);
		fwrite(m, 1, n, to);
		open = c == KR_DEFER_MARK; /* it may open the next one */
	}
	return ferror(from) || ferror(to) ? -EIO : 0;
}

static int by_length(const void *a, const void *b)
{
	const struct ep_row *x = *(const struct ep_row *const *)a;
	const struct ep_row *y = *(const struct ep_row *const *)b;
	uint64_t lx = x->end_ns - x->start_ns, ly = y->end_ns - y->start_ns;

	if (lx != ly)
		return lx > ly ? -1 : 1;
	return x->epoch < y->epoch ? -1 : x->epoch > y->epoch;
}

static uint64_t median_length(const struct ep_row *const *longest, size_t n)
{
	return n ? longest[n / 2]->end_ns - longest[n / 2]->start_ns : 0;
}

/* The epochs: their lengths as a chart (the longest red, each a link), one
 * table row each, then the sections of the longest --top only. */
static int html_epochs(FILE *f, struct run *x, const struct kr_report *rp, unsigned frames)
{
	const struct ep_row **longest = malloc(x->nrows * sizeof(*longest));
	struct kr_bar *bars = malloc(x->nrows * sizeof(*bars));
	size_t shown = x->nrows < x->r.top ? x->nrows : x->r.top;
	char kb[KR_NAME_BUF];
	int rc = 0;

	if (!longest || !bars) {
		free(longest);
		free(bars);
		return -ENOMEM;
	}
	for (size_t i = 0; i < x->nrows; i++)
		longest[i] = &x->rows[i];
	qsort(longest, x->nrows, sizeof(*longest), by_length);
	for (size_t i = 0; i < x->nrows; i++)
		bars[i] = (struct kr_bar){ x->rows[i].epoch, x->rows[i].end_ns - x->rows[i].start_ns,
					   false };
	for (size_t i = 0; i < shown; i++)
		bars[longest[i] - x->rows].slow = true;
	fprintf(f, "<h2 id=\"epochs\">%s: %zu, the %zu longest in red</h2>\n",
		frames * 2 > x->nrows ? "Epoch lengths (mostly frames: present to present)" :
		"Epoch lengths", x->nrows, shown);
	fputs("<p class=\"legend\">An epoch runs from its marker to the next one", f);
	if (frames * 2 > x->nrows)
		fputs(": epoch &ldquo;frame N&rdquo; is the time from present N to present N + 1, "
		      "which <code>report --frames</code> calls frame N + 1.  For one swapchain's "
		      "frames with each slow frame's critical path: <code>katra-replay report "
		      "--frames --html OUT.html TRACE</code>", f);
	fputs(".</p>\n", f);
	kr_svg_bars(f, bars, x->nrows, median_length(longest, x->nrows), "epoch", "epoch");
	fputs("<h3>The longest epochs</h3>\n<table><tr><th>#</th><th>epoch</th><th class=\"l\">"
	      "kind</th><th class=\"l\">name</th><th>from s</th><th>ms</th><th>events</th></tr>\n", f);
	for (size_t i = 0; i < shown; i++) {
		const struct ep_row *e = longest[i];

		fprintf(f, "<tr><td>%zu</td><td><a href=\"#epoch-%" PRIu64 "\">%" PRIu64 "</a></td>"
			"<td class=\"l\">%s</td><td class=\"l\">", i + 1, e->epoch, e->epoch,
			kr_enum(katra_epoch_kind_name(e->kind), e->kind, kb));
		kr_html_escape(f, e->name);
		fprintf(f, "</td><td>%.6f</td><td>%.3f</td><td>%" PRIu64 "</td></tr>\n",
			e->start_ns / 1e9, (e->end_ns - e->start_ns) / 1e6, e->events);
	}
	fputs("</table>\n", f);
	for (size_t i = 0; i < shown && !rc; i++)
		rc = copy_resolved(f, x->ep_html, longest[i]->off, longest[i]->len, rp);
	fprintf(f, "<details><summary>Every epoch (%zu)</summary>\n<table><tr><th>epoch</th>"
		"<th class=\"l\">kind</th><th class=\"l\">name</th><th>from s</th><th>ms</th>"
		"<th>events</th></tr>\n", x->nrows);
	for (size_t i = 0; i < x->nrows; i++) {
		const struct ep_row *e = &x->rows[i];

		fprintf(f, "<tr><td>%" PRIu64 "</td><td class=\"l\">%s</td><td class=\"l\">",
			e->epoch, kr_enum(katra_epoch_kind_name(e->kind), e->kind, kb));
		kr_html_escape(f, e->name);
		fprintf(f, "</td><td>%.6f</td><td>%.3f</td><td>%" PRIu64 "</td></tr>\n",
			e->start_ns / 1e9, (e->end_ns - e->start_ns) / 1e6, e->events);
	}
	fputs("</table></details>\n", f);
	free(longest);
	free(bars);
	return rc;
}

static int write_html(struct run *x, const struct kr_report *rp, const struct kr_window *w)
{
	FILE *f = fopen(x->o->html_path, "we");
	int rc;

	if (!f) {
		rc = -errno;
		fprintf(x->err, "katra-replay: report: cannot write '%s': %s\n", x->o->html_path,
			strerror(-rc));
		return rc;
	}
	unsigned frames = 0;
	for (size_t i = 0; i < x->nrows; i++)
		frames += x->rows[i].kind == KATRA_EPOCH_FRAME;
	kr_html_head(f, rp, &x->r);
	fputs("<nav>", f);
	if (x->nrows > 1)
		fputs("<a href=\"#epochs\">epochs</a>", f);
	fputs("<a href=\"#timeline\">timeline</a><a href=\"#whole\">whole capture</a></nav>\n", f);
	rc = 0;
	/* the frames (or epochs) first: what a reader of a game's capture asks */
	if (x->nrows > 1 && frames * 2 > x->nrows)
		rc = html_epochs(f, x, rp, frames);
	kr_html_timeline_legend(f);
	kr_svg_timeline(f, rp, w->path, w->start_ns, w->end_ns);
	kr_html_window(f, rp, w, &x->r);
	if (!rc && x->nrows > 1 && frames * 2 <= x->nrows)
		rc = html_epochs(f, x, rp, frames);
	kr_html_tail(f);
	if (fclose(f) != 0 && !rc)
		rc = -errno;
	if (rc)
		fprintf(x->err, "katra-replay: report: cannot write '%s': %s\n", x->o->html_path,
			strerror(-rc));
	return rc;
}

static int html_epoch(struct run *x, const struct kr_report *rp, const struct kr_window *w)
{
	struct ep_row *e;

	if (x->nrows == x->cap) {
		size_t nc = x->cap ? x->cap * 2 : 256;
		struct ep_row *p = realloc(x->rows, nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		x->rows = p;
		x->cap = nc;
	}
	e = &x->rows[x->nrows++];
	e->epoch = w->epoch;
	e->start_ns = w->start_ns;
	e->end_ns = w->end_ns;
	e->events = w->events;
	e->kind = w->epoch_kind;
	memcpy(e->name, w->name, sizeof(e->name));
	e->off = ftell(x->ep_html);
	kr_html_window(x->ep_html, rp, w, &x->r);
	e->len = ftell(x->ep_html) - e->off;
	return e->off < 0 || e->len < 0 ? -EIO : 0;
}

static void on_window(void *ctx, const struct kr_report *rp, const struct kr_window *w)
{
	struct run *x = ctx;
	struct kr_report_facts facts;
	int rc = 0;

	if (w->is_epoch) {
		if (x->ep_text)
			kr_text_window(x->ep_text, rp, w, &x->r);
		if (x->ep_json) {
			if (x->epochs_json++)
				fputc(',', x->ep_json);
			kr_json_window(x->ep_json, rp, w);
		}
		if (x->ep_html && !x->error)
			x->error = html_epoch(x, rp, w);
		return;
	}
	kr_report_get_facts(rp, &facts);
	if ((facts.path_tid || facts.path_pid) && !w->path->present)
		fprintf(x->err, "katra-replay: report: %s %" PRIu64 " has no event in '%s': no "
			"critical path\n", facts.path_tid ? "--tid" : "--pid",
			facts.path_tid ? facts.path_tid : facts.path_pid, x->r.path);
	if (x->text) {
		kr_text_head(x->out, rp, &x->r);
		kr_text_window(x->out, rp, w, &x->r);
		if (facts.epochs_itemized > 1)
			rc = copy_resolved(x->out, x->ep_text, 0, -1, rp);
	}
	if (x->ep_json) {
		kr_json_head(x->out, rp, &x->r);
		fputs(",\"capture\":", x->out);
		kr_json_window(x->out, rp, w);
		fputs(",\"epochs\":[", x->out);
		rc = copy_resolved(x->out, x->ep_json, 0, -1, rp);
		fputs("]}\n", x->out);
	}
	if (!rc && x->ep_html)
		rc = write_html(x, rp, w);
	if (rc && !x->error)
		x->error = rc;
}

static int open_tmp(FILE **f, FILE *err)
{
	*f = tmpfile();
	if (*f)
		return 0;
	fprintf(err, "katra-replay: report: cannot create a temporary file: %s\n", strerror(errno));
	return -errno;
}

int katra_report(const char *path, const struct katra_report_opts *o, FILE *out, FILE *err)
{
	struct run x = { .o = o, .out = out, .err = err };
	struct kr_report_opts mo = { 0 };
	struct kr_report *rp = NULL;
	struct kr_stackidx *stacks = NULL;
	struct katra_reader *r = NULL;
	enum katra_read_status st = KATRA_READ_EOF;
	int ret, fret;

	if (o->frames)
		return kr_frames_report(path, o, out, err);
	ret = kr_open(&r, path, err);
	if (ret)
		return ret;
	x.text = !o->json && !o->html_path;
	x.r.path = path;
	x.r.h = katra_reader_header(r);
	x.r.top = o->top ? o->top : 10;
	x.r.compressed = katra_reader_compressed(r);
	if ((x.text && (ret = open_tmp(&x.ep_text, err))) ||
	    (o->json && (ret = open_tmp(&x.ep_json, err))) ||
	    (o->html_path && (ret = open_tmp(&x.ep_html, err))))
		goto cleanup;
	mo.index_cap = o->index_cap;
	mo.max_epochs = o->max_epochs;
	mo.path_tid = o->path_tid;
	mo.path_pid = o->path_pid;
	mo.timeline = o->html_path != NULL;
	mo.on_window = on_window;
	mo.ctx = &x;
	mo.stacks = stacks = kr_stackidx_new(o->symbols);
	if (!stacks) {
		ret = -ENOMEM;
		fprintf(err, "katra-replay: report: %s\n", strerror(ENOMEM));
		goto cleanup;
	}
	ret = kr_report_new(&rp, x.r.h, &mo);
	if (ret) {
		fprintf(err, "katra-replay: report: %s\n", ret == -EINVAL ?
			"--index-cap must be a power of two" : strerror(-ret));
		goto cleanup;
	}
	ret = kr_report_read_all(rp, r, &st, &x.r.error, NULL, NULL, err);
	if (ret)
		goto cleanup;
	fret = x.error ? x.error : kr_flush_out(out, err);
	ret = kr_end_status(r, st, path, err);
	if (!ret)
		ret = fret;
cleanup:
	kr_report_free(rp);
	kr_stackidx_free(stacks);
	if (x.ep_text)
		fclose(x.ep_text);
	if (x.ep_json)
		fclose(x.ep_json);
	if (x.ep_html)
		fclose(x.ep_html);
	free(x.rows);
	katra_reader_close(r);
	return ret;
}
