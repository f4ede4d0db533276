// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preflight.h"

/* The directory a new file at path would go into must exist and be writable. */
static int check_dir_of(const char *what, const char *path, FILE *err)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (stat(dir, &st) < 0) {
		int e = errno;
		fprintf(err, "katra-record: %s '%s': directory '%s': %s\n", what, path, dir,
			strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(err, "katra-record: %s '%s': '%s' is not a directory\n", what, path, dir);
		return -ENOTDIR;
	}
	if (access(dir, W_OK) < 0) {
		int e = errno;
		fprintf(err, "katra-record: %s '%s': cannot write in '%s': %s\n", what, path, dir,
			strerror(e));
		return -e;
	}
	return 0;
}

/* A file option: not a directory, not a symlink; its directory usable. */
static int check_file(const char *what, const char *path, FILE *err)
{
	struct stat st;

	if (lstat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			fprintf(err, "katra-record: %s '%s' is a directory (give a file name)\n", what,
				path);
			return -EISDIR;
		}
		if (S_ISLNK(st.st_mode)) {
			fprintf(err, "katra-record: %s '%s' is a symbolic link; refusing to write "
				"through it\n", what, path);
			return -ELOOP;
		}
	}
	return check_dir_of(what, path, err);
}

int katra_preflight(const struct katra_record_opts *o, FILE *err)
{
	struct stat st;
	int rc = 0;

	if (strcmp(o->output, "-"))
		rc = check_file("trace file", o->output, err);
	if (!rc && o->summary_json && strcmp(o->summary_json, "-"))
		rc = check_file("--summary-json", o->summary_json, err);
	if (!rc && o->ready_file)
		rc = check_file("--ready-file", o->ready_file, err);
	if (!rc && o->epoch_fifo) {
		if (lstat(o->epoch_fifo, &st) == 0) {
			if (!S_ISFIFO(st.st_mode)) {
				fprintf(err, "katra-record: --epoch-fifo '%s' exists and is not a FIFO\n",
					o->epoch_fifo);
				rc = -EINVAL;
			}
		} else {
			rc = check_dir_of("--epoch-fifo", o->epoch_fifo, err);
		}
	}
	return rc;
}
