// SPDX-License-Identifier: GPL-2.0-only
/* stats --files: per file identity (resource File, Pipe, Socket or
 * AnonInode), the reads and writes done on it (FileRead / FileWrite syscall spans), the bytes they
 * moved (End ret when >= 0), the time they took, and how often it was opened;
 * with the path a FileOpen named when the capture had --paths (the open's
 * Begin carries the path, its End the identity it resolved to). */
#include <stdlib.h>
#include <string.h>

#include "katra/plural.h"
#include "katra/replay.h"
#include "replay/util/out.h"
#include "views.h"
#include "replay/names/resnames.h"

#define TEXT_ROWS 50

static struct kr_fileagg *file(struct kr_views *v, const struct katra_resource *r)
{
	struct kr_file_key k = { r->domain, r->id };
	struct kr_fileagg *a;
	bool created;

	if (!kr_res_is_open_file(r->domain))
		return NULL;
	a = kr_xmap_get(&v->files, &k, &created);
	if (!a)
		v->file_overflow++;
	return a;
}

void kr_file_io(struct kr_views *v, const struct katra_resource *r, uint32_t kind,
		uint64_t dur, int64_t ret)
{
	struct kr_fileagg *a = file(v, r);
	uint64_t bytes = ret > 0 ? (uint64_t)ret : 0;

	if (!a)
		return;
	if (kind == KATRA_KIND_FILE_READ) {
		a->reads++;
		a->read_bytes += bytes;
		a->read_ns += dur;
	} else {
		a->writes++;
		a->write_bytes += bytes;
		a->write_ns += dur;
	}
}

void kr_file_opened(struct kr_views *v, const struct katra_resource *r, const char *path,
		    uint64_t len)
{
	struct kr_fileagg *a = file(v, r);

	if (!a)
		return;
	a->opens++;
	/* the first path that reached this identity names it */
	if (!path || a->path)
		return;
	if (v->path_bytes + len + 1 > KR_PATH_BUDGET || !(a->path = malloc(len + 1))) {
		v->paths_dropped++;
		return;
	}
	memcpy(a->path, path, len);
	a->path[len] = 0;
	a->path_len = len;
	v->path_bytes += len + 1;
}

const struct kr_fileagg *kr_file_find(const struct kr_views *v, uint64_t domain, uint64_t id)
{
	struct kr_file_key k = { domain, id };

	return kr_xmap_find(&v->files, &k);
}

/* The key sits just before the value in an xmap slot (kr_xmap_key). */
static const struct kr_file_key *key_of(const struct kr_fileagg *a)
{
	return (const struct kr_file_key *)(const void *)((const char *)a - sizeof(struct kr_file_key));
}

/* By time in I/O, then bytes, then opens, then identity. */
static int by_io_time(const void *x, const void *y)
{
	const struct kr_fileagg *a = *(void *const *)x, *b = *(void *const *)y;
	uint64_t ta = a->read_ns + a->write_ns, tb = b->read_ns + b->write_ns;
	uint64_t ba = a->read_bytes + a->write_bytes, bb = b->read_bytes + b->write_bytes;
	const struct kr_file_key *ka = key_of(a), *kb = key_of(b);

	if (ta != tb)
		return ta > tb ? -1 : 1;
	if (ba != bb)
		return ba > bb ? -1 : 1;
	if (a->opens != b->opens)
		return a->opens > b->opens ? -1 : 1;
	if (ka->domain != kb->domain)
		return ka->domain < kb->domain ? -1 : 1;
	return ka->id < kb->id ? -1 : ka->id > kb->id;
}

static void **sorted(const struct kr_views *v, size_t *n)
{
	return kr_xmap_sorted(&v->files, n, by_io_time);
}

void kr_files_text(FILE *f, const struct kr_views *v)
{
	size_t n;
	void **p = sorted(v, &n);
	char d[32];

	kr_s(f, "\nfiles (read/write syscall spans per file identity; bytes = what the calls "
	     "returned)\n");
	fprintf(f, "%12s %8s %12s %8s %12s %6s  %s\n", "I/O time", "reads", "bytes read", "writes",
		"bytes written", "opens", "file");
	for (size_t i = 0; i < n && i < TEXT_ROWS; i++) {
		const struct kr_fileagg *a = p[i];
		const struct kr_file_key *k = kr_xmap_key(&v->files, a);

		fprintf(f, "%12s %8llu %12llu %8llu %12llu %6llu  ",
			kr_fmt_dur(d, sizeof(d), a->read_ns + a->write_ns),
			(unsigned long long)a->reads, (unsigned long long)a->read_bytes,
			(unsigned long long)a->writes, (unsigned long long)a->write_bytes,
			(unsigned long long)a->opens);
		if (a->path) {
			katra_json_string(f, a->path, a->path_len);
			putc(' ', f);
		}
		kr_res_put(f, (uint32_t)k->domain, k->id);
		putc('\n', f);
	}
	if (n > TEXT_ROWS)
		fprintf(f, "  ... %zu more %s (stats --files --json lists all)\n", n - TEXT_ROWS,
			katra_plural(n - TEXT_ROWS, "file", "files"));
	if (!n)
		kr_s(f, "  (no read or write on a file identity: was the capture started "
		     "before the files were used?)\n");
	if (v->file_overflow)
		fprintf(f, "  (%llu operations on files beyond the %u-file table are not counted)\n",
			(unsigned long long)v->file_overflow, KR_MAX_FILES);
	if (v->paths_dropped)
		fprintf(f, "  (%llu paths not kept: the %u MiB path budget was spent)\n",
			(unsigned long long)v->paths_dropped, KR_PATH_BUDGET >> 20);
	free(p);
}

/* "files":[{"domain":"File","id":"N","name":"File:N","path":".."|null,
 *   "opens":N,"reads":N,"read_bytes":N,"read_ns":N,"writes":N,"write_bytes":N,"write_ns":N,
 *   "io_ns":N},..] sorted as the text is; "files_overflow":N */
void kr_files_json(FILE *f, const struct kr_views *v)
{
	size_t n;
	void **p = sorted(v, &n);

	kr_s(f, ",\"files\":[");
	for (size_t i = 0; i < n; i++) {
		const struct kr_fileagg *a = p[i];
		const struct kr_file_key *k = kr_xmap_key(&v->files, a);

		fprintf(f, "%s{\"domain\":\"%s\",\"id\":\"%llu\",\"name\":\"", i ? "," : "",
			katra_resource_domain_name((uint32_t)k->domain), (unsigned long long)k->id);
		kr_res_put(f, (uint32_t)k->domain, k->id);
		kr_s(f, "\",\"path\":");
		if (a->path)
			katra_json_string(f, a->path, a->path_len);
		else
			kr_s(f, "null");
		fprintf(f, ",\"opens\":%llu,\"reads\":%llu,\"read_bytes\":%llu,\"read_ns\":%llu,"
			"\"writes\":%llu,\"write_bytes\":%llu,\"write_ns\":%llu,\"io_ns\":%llu}",
			(unsigned long long)a->opens, (unsigned long long)a->reads,
			(unsigned long long)a->read_bytes, (unsigned long long)a->read_ns,
			(unsigned long long)a->writes, (unsigned long long)a->write_bytes,
			(unsigned long long)a->write_ns,
			(unsigned long long)(a->read_ns + a->write_ns));
	}
	fprintf(f, "],\"files_overflow\":%llu", (unsigned long long)v->file_overflow);
	free(p);
}
