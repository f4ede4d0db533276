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

/* -o: never a terminal; an existing file only with --force, and only a
 * regular one. */
static int check_output(const struct katra_record_opts *o, FILE *err)
{
	struct stat st;

	if (!strcmp(o->output, "-")) {
		if (isatty(STDOUT_FILENO)) {
			fprintf(err, "katra-record: -o -: standard output is a terminal (pipe it "
				"into katra-replay or a file)\n");
			return -EINVAL;
		}
		return 0;
	}
	if (lstat(o->output, &st) < 0)
		return 0;
	if (S_ISLNK(st.st_mode)) {
		fprintf(err, "katra-record: cannot open trace file '%s': it is a symbolic link; "
			"refusing to write through it\n", o->output);
		return -ELOOP;
	}
	if (!o->force) {
		fprintf(err, "katra-record: cannot open trace file '%s': File exists (use --force "
			"to replace it)\n", o->output);
		return -EEXIST;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(err, "katra-record: cannot open trace file '%s': not a regular file\n",
			o->output);
		return -EINVAL;
	}
	return 0;
}

int katra_preflight(const struct katra_record_opts *o, FILE *err)
{
	struct stat st;
	int rc = 0;

	if (strcmp(o->output, "-"))
		rc = check_file("trace file", o->output, err);
	if (!rc && o->summary_json && strcmp(o->summary_json, "-"))
		rc = check_file("--summary-json", o->summary_json, err);
	if (!rc && o->summary_json && !o->force && lstat(o->summary_json, &st) == 0) {
		fprintf(err, "katra-record: --summary-json '%s': File exists (use --force to replace "
			"it)\n", o->summary_json);
		rc = -EEXIST;
	}
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
	if (!rc)
		rc = check_output(o, err);
	return rc;
}

int katra_preflight_privileges(FILE *err)
{
	char line[256];
	unsigned long long eff = 0;
	FILE *f;

	if (geteuid() == 0)
		return 0;
	f = fopen("/proc/self/status", "re");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "CapEff: %llx", &eff) == 1)
				break;
		fclose(f);
	}
	/* CAP_PERFMON = 38, CAP_BPF = 39 */
	if ((eff & (1ull << 38)) && (eff & (1ull << 39)))
		return 0;
	fprintf(err, "katra-record: loading BPF probes needs root, or CAP_BPF + CAP_PERFMON "
		"(try: sudo katra-record ...)\n");
	return -EPERM;
}
