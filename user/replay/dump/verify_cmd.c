// SPDX-License-Identifier: GPL-2.0-only
/* The verify command: the format library's verifier, printed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "katra/replay.h"
#include "replay/util/open.h"

static void print_problem(void *ctx, const char *line)
{
	FILE *out = ctx;

	fputs(line, out);
	putc('\n', out);
}

int katra_replay_verify(const char *path, FILE *out, uint64_t max_problems, bool strict, FILE *err)
{
	struct katra_verify_report rep = { 0 };
	int ret, fret;

	ret = katra_verify_path(path, print_problem, out, max_problems, &rep);
	if (ret < 0) {
		fflush(out);
		fprintf(err, "katra-replay: cannot open trace file '%s': %s\n", path,
			strerror(-ret));
		return ret;
	}
	if (ret == 0 && rep.problems == 0 && strict && rep.advisories) {
		fprintf(out, "%s: invalid under --strict: %llu SHOULD rule%s broken\n", path,
			(unsigned long long)rep.advisories, rep.advisories == 1 ? "" : "s");
		ret = 1;
	} else if (ret == 0 && rep.problems == 0) {
		fprintf(out, "%s: valid (%llu records, %llu events)\n", path,
			(unsigned long long)rep.records, (unsigned long long)rep.events);
	} else {
		if (max_problems && rep.problems > max_problems)
			fprintf(out, "... %llu more problems not shown\n",
				(unsigned long long)(rep.problems - max_problems));
		fprintf(out, "%s: invalid: %llu problem%s\n", path,
			(unsigned long long)rep.problems, rep.problems == 1 ? "" : "s");
		ret = 1;
	}
	fret = kr_flush_out(out, err);
	return fret ? fret : ret;
}
