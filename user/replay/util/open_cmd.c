// SPDX-License-Identifier: GPL-2.0-only
/* Trace opening and end-of-read reporting for compare and export. */
#include <errno.h>
#include <string.h>

#include "open_cmd.h"

int kr_open_cmd(struct katra_reader **r, const char *path, const char *cmd, FILE *err)
{
	char msg[256] = "";
	int ret = katra_reader_open(r, path, msg, sizeof(msg));

	if (!ret)
		return 0;
	*r = NULL;
	if (ret == -EINVAL && msg[0]) {
		fprintf(err, "katra-replay: %s: invalid trace file '%s': %s\n", cmd, path, msg);
		return 1;
	}
	fprintf(err, "katra-replay: %s: cannot open trace file '%s': %s\n", cmd, path,
		strerror(ret < 0 ? -ret : EIO));
	return ret < 0 ? ret : -EIO;
}

int kr_end_status_cmd(struct katra_reader *r, enum katra_read_status st, const char *path,
		      const char *cmd, FILE *err)
{
	const char *msg = katra_reader_message(r);

	if (st == KATRA_READ_EOF)
		return 0;
	fprintf(err, "katra-replay: %s: bad trace file '%s': %s\n", cmd, path,
		msg && msg[0] ? msg : "unreadable record");
	return st == KATRA_READ_IO_ERROR ? -EIO : 1;
}
