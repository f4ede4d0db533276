/* The first three subcommands: verify, dump, stats (argument parsing only;
 * the work is in verify_cmd.c, dump.c, stats.c). */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "katra/replay.h"
#include "katra/replay_cli.h"

enum { OPT_MAX_PROBLEMS = 256, OPT_JSONL, OPT_JSON };

/* Parses CMD's options (opts) then exactly one FILE.  on_opt handles each
 * option and returns -1 to go on or an exit status.  Returns -1 with *file
 * set, or an exit status. */
static int parse_one_file(int argc, char **argv, const struct option *opts, const char *help,
			  int (*on_opt)(int c, const char *arg, void *ctx), void *ctx,
			  const char **file)
{
	const char *cmd = argv[0];
	int c, rc;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(help, stdout);
			return 0;
		case ':':
			return katra_cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		case '?':
			if (optopt) {
				char o[3] = { '-', (char)optopt, 0 };

				return katra_cli_usage_error(cmd, "unknown option '%s'", o);
			}
			return katra_cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		default:
			rc = on_opt(c, optarg, ctx);
			if (rc >= 0)
				return rc;
		}
	}
	if (optind >= argc)
		return katra_cli_usage_error(cmd, "%s", "missing FILE ('-' reads standard input)");
	if (optind + 1 < argc)
		return katra_cli_usage_error(cmd, "unexpected argument '%s' (one FILE only)",
					     argv[optind + 1]);
	*file = argv[optind];
	return -1;
}

/* ---- verify ---- */

static const char verify_help[] =
	"Usage: katra-replay verify [--max-problems N] FILE\n"
	"Check every rule of the Katra format (format/SPEC.md section 7) and say\n"
	"whether FILE is a valid trace; each problem names its seq and byte offset.\n"
	"\n"
	"  --max-problems N   print at most N problems (default 100, 0 = all); all\n"
	"                     of them are counted\n"
	"  -h, --help         show this help\n"
	"\n"
	"Exit status: 0 valid, 1 invalid or unreadable, 2 usage error.\n"
	"\n"
	"EXAMPLES:\n"
	"    katra-replay verify run.ktrc          # valid, or one line per problem\n"
	"    katra-replay verify --max-problems 0 run.ktrc\n";

static int verify_opt(int c, const char *arg, void *ctx)
{
	if (c == OPT_MAX_PROBLEMS && katra_cli_parse_count(arg, ctx))
		return katra_cli_usage_error("verify", "--max-problems wants a number, not '%s'",
					     arg);
	return -1;
}

int katra_cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "max-problems", required_argument, NULL, OPT_MAX_PROBLEMS },
		{ 0 },
	};
	uint64_t max_problems = 100;
	const char *file;
	int rc = parse_one_file(argc, argv, opts, verify_help, verify_opt, &max_problems, &file);

	if (rc >= 0)
		return rc;
	return katra_replay_verify(file, stdout, max_problems, stderr) == 0 ? 0 : 1;
}

/* ---- dump ---- */

static const char dump_help[] =
	"Usage: katra-replay dump [--jsonl] FILE\n"
	"Print the header, then one line per record.\n"
	"\n"
	"  --jsonl      one JSON object per line instead (for jq and scripts)\n"
	"  -h, --help   show this help\n"
	"\n"
	"Exit status: 0 success, 1 invalid or unreadable trace, 2 usage error.\n"
	"\n"
	"EXAMPLES:\n"
	"    katra-replay dump run.ktrc | less\n"
	"    katra-replay dump --jsonl run.ktrc | jq 'select(.kind == \"FileRead\")'\n";

static int dump_opt(int c, const char *arg, void *ctx)
{
	(void)arg;
	if (c == OPT_JSONL)
		*(bool *)ctx = true;
	return -1;
}

int katra_cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "jsonl", no_argument, NULL, OPT_JSONL },
		{ 0 },
	};
	bool jsonl = false;
	const char *file;
	int rc = parse_one_file(argc, argv, opts, dump_help, dump_opt, &jsonl, &file);

	if (rc >= 0)
		return rc;
	return katra_dump(file, stdout, jsonl, stderr) == 0 ? 0 : 1;
}

/* ---- stats ---- */

static const char stats_help[] =
	"Usage: katra-replay stats [--json] FILE\n"
	"Capture duration, events by scope, kind, process and thread, span\n"
	"durations (total, p50, p99), drops, epochs and counters.\n"
	"\n"
	"  --json       one JSON object instead of aligned text\n"
	"  -h, --help   show this help\n"
	"\n"
	"Exit status: 0 success, 1 invalid or unreadable trace, 2 usage error.\n"
	"\n"
	"EXAMPLES:\n"
	"    katra-replay stats run.ktrc\n"
	"    katra-replay stats --json run.ktrc | python3 -m json.tool\n";

static int stats_opt(int c, const char *arg, void *ctx)
{
	(void)arg;
	if (c == OPT_JSON)
		*(bool *)ctx = true;
	return -1;
}

int katra_cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ 0 },
	};
	bool json = false;
	const char *file;
	int rc = parse_one_file(argc, argv, opts, stats_help, stats_opt, &json, &file);

	if (rc >= 0)
		return rc;
	return katra_stats(file, stdout, json, stderr) == 0 ? 0 : 1;
}
