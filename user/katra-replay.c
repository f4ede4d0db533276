/* katra-replay: read a Katra trace.  Argument parsing and exit codes only;
 * the work is in user/replay/ (include/katra/replay.h).
 * Exit status: 0 success, 1 invalid trace or runtime error, 2 usage error. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "katra/replay.h"

#define EXIT_USAGE 2

static const char usage_text[] =
	"Usage: katra-replay COMMAND [OPTIONS] FILE\n"
	"Read a Katra trace (format v1).\n"
	"\n"
	"Commands:\n"
	"  verify FILE             check every format rule; exit 1 if any is broken\n"
	"      --max-problems N    print at most N problems (default 100, 0 = all);\n"
	"                          all of them are counted\n"
	"  dump FILE               the header, then one human-readable line per record\n"
	"      --jsonl             one JSON object per line instead (for jq and scripts)\n"
	"  stats FILE              capture duration, events by scope, kind, process and\n"
	"                          thread, span durations (total, p50, p99), drops, epochs\n"
	"      --json              one JSON object instead of aligned text\n"
	"\n"
	"Options:\n"
	"  -h, --help              show this help and exit\n"
	"\n"
	"Exit status: 0 success, 1 invalid trace or runtime error, 2 usage error.\n";

static int usage_error(const char *fmt, const char *arg)
{
	fputs("katra-replay: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'katra-replay --help' for more information.\n", stderr);
	return EXIT_USAGE;
}

enum { OPT_MAX_PROBLEMS = 256, OPT_JSONL, OPT_JSON };

struct args {
	const char *cmd;
	const char *file;
	bool jsonl, json;
	uint64_t max_problems;
};

static int parse_count(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	if (!s[0] || s[0] == '-')
		return -EINVAL;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* Parses "COMMAND [OPTIONS] FILE" (options anywhere after COMMAND).
 * Returns -1 to go on, or an exit status. */
static int parse(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "max-problems", required_argument, NULL, OPT_MAX_PROBLEMS },
		{ "jsonl", no_argument, NULL, OPT_JSONL },
		{ "json", no_argument, NULL, OPT_JSON },
		{ 0 },
	};
	bool is_verify, is_dump, is_stats;
	int c;

	if (argc < 2)
		return usage_error("%s", "missing command (verify, dump or stats)");
	a->cmd = argv[1];
	if (!strcmp(a->cmd, "-h") || !strcmp(a->cmd, "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	is_verify = !strcmp(a->cmd, "verify");
	is_dump = !strcmp(a->cmd, "dump");
	is_stats = !strcmp(a->cmd, "stats");
	if (!is_verify && !is_dump && !is_stats)
		return usage_error("unknown command '%s' (verify, dump or stats)", a->cmd);

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc - 1, argv + 1, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case OPT_MAX_PROBLEMS:
			if (!is_verify)
				return usage_error("--max-problems is an option of verify, not %s",
						   a->cmd);
			if (parse_count(optarg, &a->max_problems))
				return usage_error("--max-problems wants a number, not '%s'",
						   optarg);
			break;
		case OPT_JSONL:
			if (!is_dump)
				return usage_error("--jsonl is an option of dump, not %s", a->cmd);
			a->jsonl = true;
			break;
		case OPT_JSON:
			if (!is_stats)
				return usage_error("--json is an option of stats, not %s", a->cmd);
			a->json = true;
			break;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind]);
		default:
			if (optopt) {
				char opt[3] = { '-', (char)optopt, 0 };

				return usage_error("unknown option '%s'", opt);
			}
			/* argv + 1 was parsed, so its optind - 1 is our optind */
			return usage_error("unknown option '%s'", argv[optind]);
		}
	}
	if (optind >= argc - 1)
		return usage_error("%s: missing FILE", a->cmd);
	if (optind + 1 < argc - 1)
		return usage_error("unexpected argument '%s' (one FILE only)", argv[optind + 2]);
	a->file = argv[optind + 1];
	return -1;
}

int main(int argc, char **argv)
{
	struct args a = { .max_problems = 100 };
	int ret = parse(argc, argv, &a);

	if (ret >= 0)
		return ret;
	if (!strcmp(a.cmd, "verify"))
		ret = katra_replay_verify(a.file, stdout, a.max_problems, stderr);
	else if (!strcmp(a.cmd, "dump"))
		ret = katra_dump(a.file, stdout, a.jsonl, stderr);
	else
		ret = katra_stats(a.file, stdout, a.json, stderr);
	return ret == 0 ? 0 : 1;
}
