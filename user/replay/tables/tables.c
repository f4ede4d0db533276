// SPDX-License-Identifier: GPL-2.0-only
/* export --parquet: one trace as one run's tables, written under temporary
 * names and renamed into place only when every table is complete, so a
 * refused trace or a failed write leaves nothing behind (tables.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "katra/replay.h"
#include "replay/util/labels.h"
#include "tables_int.h"

#define TMP_NAME ".part.parquet.tmp"
#define FINAL_NAME "part.parquet"

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* A run's id: 16 hex digits of FNV-1a over what tells captures apart (the
 * host, the start times, the recorder's pid), the first one a letter;
 * exporting a trace again gives the same id, so its files are replaced, not
 * doubled. */
static void run_id(const struct katra_header *h, char out[17])
{
	uint64_t x = 0xcbf29ce484222325ull;

	x = fnv(x, h->host.hostname.ptr, h->host.hostname.len);
	x = fnv(x, &h->start_wall_ns, sizeof(h->start_wall_ns));
	x = fnv(x, &h->start_mono_ns, sizeof(h->start_mono_ns));
	x = fnv(x, &h->process_id, sizeof(h->process_id));
	/* the first digit a letter, a to f: an engine that guesses partition
	 * types never reads an id as a number */
	x = (x & 0x0fffffffffffffffull) | (uint64_t)(0xa + (x >> 60) % 6) << 60;
	snprintf(out, 17, "%016llx", (unsigned long long)x);
}

/* A partition value: bytes outside [A-Za-z0-9_.-] as %XX (Hive's
 * escaping); an empty value stays empty. */
static int put_value(char *dst, size_t cap, size_t *at, const char *v)
{
	for (; *v; v++) {
		unsigned char c = (unsigned char)*v;
		bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';

		if (*at + 4 >= cap)
			return -ENAMETOOLONG;
		if (plain)
			dst[(*at)++] = (char)c;
		else
			*at += (size_t)snprintf(dst + *at, cap - *at, "%%%02X", c);
	}
	dst[*at] = 0;
	return 0;
}

static int part_dir(const char *dir, unsigned table, const struct kr_labels *ls,
		    const unsigned *order, const char *id, char *out, size_t cap)
{
	size_t at;
	int n = snprintf(out, cap, "%s/%s", dir, kq_table_names[table]);

	if (n < 0 || (size_t)n >= cap)
		return -ENAMETOOLONG;
	at = (size_t)n;
	for (unsigned i = 0; i < ls->n; i++) {
		const struct kr_label *l = &ls->l[order[i]];

		n = snprintf(out + at, cap - at, "/%s%s=", kq_reserved_key(l->key) ? "label_" : "",
			     l->key);
		if (n < 0 || (size_t)n >= cap - at)
			return -ENAMETOOLONG;
		at += (size_t)n;
		if (put_value(out, cap, &at, l->value))
			return -ENAMETOOLONG;
	}
	n = snprintf(out + at, cap - at, "/run=%s", id);
	return n < 0 || (size_t)n >= cap - at ? -ENAMETOOLONG : 0;
}

/* mkdir -p */
static int mkdirs(char *path)
{
	for (char *p = path + 1;; p++) {
		if (*p == '/' || !*p) {
			char c = *p;

			*p = 0;
			if (mkdir(path, 0755) && errno != EEXIST) {
				int e = -errno;

				*p = c;
				return e;
			}
			*p = c;
			if (!c)
				return 0;
		}
	}
}

/* Removes the temporary files and the directories left empty, the
 * tables' own too; dir itself when this export made it. */
static void discard(struct kq_run *q, const char *dir, bool made_dir)
{
	for (unsigned t = 0; t < KQ_NTABLES; t++) {
		char d[PATH_MAX], *slash;
		size_t stop = strlen(dir);

		if (q->open[t])
			kp_discard(&q->f[t], q->tmp[t]);
		else if (q->tmp[t][0])
			unlink(q->tmp[t]);
		q->open[t] = false;
		if (!q->tmp[t][0])
			continue;
		snprintf(d, sizeof(d), "%s", q->tmp[t]);
		while ((slash = strrchr(d, '/')) && (size_t)(slash - d) > stop) {
			*slash = 0;
			if (rmdir(d))
				break;
		}
	}
	if (made_dir)
		rmdir(dir);
}

static int by_key(const struct kr_labels *ls, unsigned *order)
{
	for (unsigned i = 0; i < ls->n; i++)
		order[i] = i;
	for (unsigned i = 1; i < ls->n; i++)
		for (unsigned j = i; j && strcmp(ls->l[order[j - 1]].key, ls->l[order[j]].key) > 0;
		     j--) {
			unsigned x = order[j];

			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	return 0;
}

static int open_tables(struct kq_run *q, const struct kq_opts *o, const struct kr_labels *ls,
		       const char *id, FILE *err)
{
	unsigned order[KR_LABELS_MAX], n;
	char d[PATH_MAX];
	int rc;

	by_key(ls, order);
	for (unsigned t = 0; t < KQ_NTABLES; t++) {
		rc = part_dir(o->dir, t, ls, order, id, d, sizeof(d));
		if (!rc)
			rc = mkdirs(d);
		if (rc) {
			fprintf(err, "katra-replay: cannot create '%s': %s\n", d, strerror(-rc));
			return rc;
		}
		if ((size_t)snprintf(q->tmp[t], sizeof(q->tmp[t]), "%s/%s", d, TMP_NAME) >=
		    sizeof(q->tmp[t])) {
			q->tmp[t][0] = 0;
			fprintf(err, "katra-replay: cannot create '%s': %s\n", d,
				strerror(ENAMETOOLONG));
			return -ENAMETOOLONG;
		}
		const struct kp_col *cols = kq_table_cols(t, &n);

		rc = kp_open(&q->f[t], q->tmp[t], cols, n, o->group_rows, o->compress);
		if (rc) {
			fprintf(err, "katra-replay: cannot create '%s': %s\n", q->tmp[t],
				strerror(-rc));
			return rc;
		}
		q->open[t] = true;
		kp_meta(&q->f[t], "katra.parquet.schema_version", KQ_STR(KQ_SCHEMA_VERSION));
	}
	return 0;
}

static int close_tables(struct kq_run *q, FILE *err)
{
	char final[PATH_MAX];
	int rc = 0;

	for (unsigned t = 0; t < KQ_NTABLES && !rc; t++) {
		q->open[t] = false;
		rc = kp_finish(&q->f[t]);
		if (rc)
			fprintf(err, "katra-replay: cannot write '%s': %s\n", q->tmp[t],
				strerror(-rc));
	}
	for (unsigned t = 0; t < KQ_NTABLES && !rc; t++) {
		snprintf(final, sizeof(final), "%.*s/" FINAL_NAME,
			 (int)(strrchr(q->tmp[t], '/') - q->tmp[t]), q->tmp[t]);
		if (rename(q->tmp[t], final)) {
			rc = -errno;
			fprintf(err, "katra-replay: cannot rename '%s': %s\n", q->tmp[t],
				strerror(-rc));
		}
	}
	return rc;
}

int kq_export_trace(const char *path, const struct kq_opts *o, FILE *err)
{
	struct katra_reader *r = NULL;
	const struct katra_header *h;
	enum katra_read_status st = KATRA_READ_EOF;
	struct katra_record rec;
	struct kr_labels ls;
	struct kq_run *q;
	char msg[256], id[17];
	const char *why = NULL;
	struct stat dst;
	bool made_dir;
	int rc;

	rc = katra_reader_open(&r, path, msg, sizeof(msg));
	if (rc) {
		fprintf(err, "katra-replay: '%s' not exported: %s\n", path,
			rc == -EINVAL ? msg : strerror(-rc));
		return 1;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		katra_reader_close(r);
		fprintf(err, "katra-replay: out of memory\n");
		return -ENOMEM;
	}
	q->path = path;
	h = katra_reader_header(r);
	kr_labels_read(h, &ls);
	run_id(h, id);
	kr_stats_init(&q->s, h);
	kr_views_init(&q->v, &q->s.names, 0);
	kr_views_per_frame(&q->v, false, false); /* its GPU rows: the frames' gpu_ns */
	q->v.paths_recorded = h->capture_options.record_paths;
	q->v.on_span = kq_rows_span;
	q->v.span_ctx = q;
	kq_rows_init(q);
	kq_cpu_init(q, h);
	rc = kq_path_new(&q->fpath, h, &q->f[KQ_FRAME_PATH], &q->err);
	if (rc)
		fprintf(err, "katra-replay: '%s' not exported: %s\n", path, strerror(-rc));
	made_dir = stat(o->dir, &dst) != 0;
	if (!rc)
		rc = open_tables(q, o, &ls, id, err);
	while (!rc && !q->err && (st = katra_reader_next(r, &rec)) == KATRA_READ_RECORD)
		kq_rows_record(q, &rec);
	if (!rc && !q->err && st != KATRA_READ_EOF && st != KATRA_READ_TRUNCATED) {
		/* a record that does not decode: the tables would be wrong */
		fprintf(err, "katra-replay: '%s' not exported: %s (nothing written)\n", path,
			katra_reader_message(r));
		rc = 1;
	}
	if (!rc && !q->err && st == KATRA_READ_TRUNCATED) {
		why = katra_reader_message(r);
		fprintf(err, "katra-replay: '%s': %s: exported the records before it (runs.complete "
			"= false)\n", path, why);
	}
	if (!rc && !q->err && st == KATRA_READ_EOF && !q->s.has_summary) {
		why = "no SessionSummary: the capture was cut short";
		fprintf(err, "katra-replay: '%s': %s: exported what it holds (runs.complete = "
			"false)\n", path, why);
	}
	if (!rc && !q->err)
		kq_rows_finish(q, h, why);
	if (!rc && (q->err || q->s.oom || q->v.oom)) {
		rc = q->err ? q->err : -ENOMEM;
		fprintf(err, "katra-replay: '%s' not exported: %s\n", path, strerror(-rc));
	}
	if (!rc)
		rc = close_tables(q, err);
	if (rc)
		discard(q, o->dir, made_dir);
	kq_rows_free(q);
	kq_path_free(q->fpath);
	kq_cpu_free(q);
	kr_views_free(&q->v);
	kr_stats_free(&q->s);
	free(q);
	katra_reader_close(r);
	return rc;
}
