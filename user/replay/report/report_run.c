// SPDX-License-Identifier: GPL-2.0-only
/* The report command's driver: stream the trace into the model, render
 * each epoch as it ends into a temporary file per output (so nothing grows
 * in memory with the number of epochs), and when the whole capture ends
 * write the head, the whole capture, then the epochs. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "katra/replay.h"
#include "katra/report.h"
#include "replay/util/open.h"
#include "report_render.h"

struct run {
	const struct katra_report_opts *o;
	struct kr_render r;
	FILE *out, *err;
	FILE *ep_text, *ep_json, *ep_html;
	bool text;
	uint64_t epochs_json;
	int error;
};

static int copy(FILE *to, FILE *from)
{
	char buf[65536];
	size_t n;

	if (fflush(from) || fseek(from, 0, SEEK_SET))
		return -errno;
	while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
		if (fwrite(buf, 1, n, to) != n)
			return -EIO;
	return ferror(from) ? -EIO : 0;
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
	kr_html_head(f, rp, &x->r);
	kr_svg_timeline(f, rp, w->path, w->start_ns, w->end_ns);
	kr_html_window(f, rp, w, &x->r);
	struct kr_report_facts facts;
	kr_report_get_facts(rp, &facts);
	if (facts.epochs > 1) {
		fputs("<h2>Epochs</h2>\n", f);
		rc = copy(f, x->ep_html);
	} else {
		rc = 0;
	}
	kr_html_tail(f);
	if (fclose(f) != 0 && !rc)
		rc = -errno;
	if (rc)
		fprintf(x->err, "katra-replay: report: cannot write '%s': %s\n", x->o->html_path,
			strerror(-rc));
	return rc;
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
		if (x->ep_html)
			kr_html_window(x->ep_html, rp, w, &x->r);
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
		if (facts.epochs > 1)
			rc = copy(x->out, x->ep_text);
	}
	if (x->ep_json) {
		kr_json_head(x->out, rp, &x->r);
		fputs(",\"capture\":", x->out);
		kr_json_window(x->out, rp, w);
		fputs(",\"epochs\":[", x->out);
		rc = copy(x->out, x->ep_json);
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
	if (x.ep_text)
		fclose(x.ep_text);
	if (x.ep_json)
		fclose(x.ep_json);
	if (x.ep_html)
		fclose(x.ep_html);
	katra_reader_close(r);
	return ret;
}
