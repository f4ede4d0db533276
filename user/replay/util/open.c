// SPDX-License-Identifier: GPL-2.0-only
/* Shared open / end-of-stream / output-error handling for the commands. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "open.h"

int kr_open(struct katra_reader **r, const char *path, FILE *err)
{
	char msg[256] = "";
	int ret = katra_reader_open(r, path, msg, sizeof(msg));

	if (ret == 0)
		return 0;
	*r = NULL;
	if (ret == -EINVAL && msg[0]) {
		fprintf(err, "katra-replay: invalid trace file '%s': %s\n", path, msg);
		return 1;
	}
	/* the reader's msg would repeat the path: say it once, our way */
	fprintf(err, "katra-replay: cannot open trace file '%s': %s\n", path, strerror(-ret));
	return ret < 0 ? ret : -EIO;
}

int kr_end_status(struct katra_reader *r, enum katra_read_status st, const char *path,
		  FILE *err)
{
	const char *msg = katra_reader_message(r);

	if (st == KATRA_READ_EOF)
		return 0;
	if (!msg || !msg[0])
		msg = "unreadable record";
	fprintf(err, "katra-replay: bad trace file '%s': %s\n", path, msg);
	return st == KATRA_READ_IO_ERROR ? -EIO : 1;
}

int kr_flush_out(FILE *out, FILE *err)
{
	int e;

	if (fflush(out) == 0 && !ferror(out))
		return 0;
	e = errno ? errno : EIO;
	fprintf(err, "katra-replay: cannot write output: %s\n", strerror(e));
	return -e;
}
