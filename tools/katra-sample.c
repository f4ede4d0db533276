// SPDX-License-Identifier: GPL-2.0-only
/* katra-sample [-z] FILE: writes the fixed sample trace (every record type,
 * every enum variant, every payload shape) to FILE, replacing it; -z writes
 * it gzip-compressed, through the writer's gzip mode. */
#include <stdio.h>
#include <string.h>

#include "katra/format.h"
#include "sample_records.h"

static int write_gzip(const char *path)
{
	struct katra_writer *w = NULL;
	size_t n = katra_sample_count();
	int err, cerr;

	err = katra_writer_open(&w, path, katra_sample_header(),
				KATRA_WRITER_OVERWRITE | KATRA_WRITER_GZIP);
	if (err)
		return err;
	for (size_t i = 0; i + 1 < n && !err; i++)
		err = katra_writer_append(w, katra_sample_record(i));
	if (!err)
		err = katra_writer_finish(w, &katra_sample_record(n - 1)->u.summary);
	cerr = katra_writer_close(w);
	return err ? err : cerr;
}

int main(int argc, char **argv)
{
	bool gzip = argc == 3 && !strcmp(argv[1], "-z");
	const char *path = argv[argc - 1];
	int err;

	if ((argc != 2 && !gzip) || path[0] == '-') {
		fprintf(stderr, "usage: katra-sample [-z] FILE\n");
		return 2;
	}
	err = gzip ? write_gzip(path) : katra_sample_write(path);
	if (err) {
		fprintf(stderr, "katra-sample: cannot write sample trace '%s': %s\n", path,
			strerror(-err));
		return 1;
	}
	return 0;
}
