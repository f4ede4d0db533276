// SPDX-License-Identifier: GPL-2.0-only
/* katra-replay: read a Katra trace.  A table of subcommands and the global
 * help only; each subcommand parses its own options (user/replay/WING/cmd_*.c,
 * include/katra/replay_cli.h).
 * Exit status: 0 success, 1 invalid trace or runtime error, 2 usage error. */
#include <stdio.h>
#include <string.h>

#include "katra/replay_cli.h"

#ifndef KATRA_REPLAY_VERSION
#define KATRA_REPLAY_VERSION "0.2.0"
#endif

static const struct katra_replay_cmd cmds[] = {
	{ "verify", "check every format rule; exit 1 if any is broken", katra_cmd_verify },
	{ "dump", "the header, then one line per record (--jsonl for scripts)", katra_cmd_dump },
	{ "stats", "what the capture holds: events, spans, drops, epochs", katra_cmd_stats },
	{ "compare", "is B the same run as A? hashes, equivalence, first divergence", katra_cmd_compare },
	{ "export", "a timeline for Perfetto, chrome://tracing, speedscope (Chrome JSON)", katra_cmd_export },
	{ "report", "per epoch: where each thread's time went, the critical path", katra_cmd_report },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static void usage(FILE *out)
{
	fputs("Usage: katra-replay COMMAND [OPTIONS] FILE\n"
	      "Read a Katra trace (format v1).  FILE '-' reads standard input.\n"
	      "\n"
	      "Commands:\n",
	      out);
	for (size_t i = 0; i < NCMDS; i++)
		fprintf(out, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fputs("\n"
	      "Options:\n"
	      "  -h, --help     show this help (COMMAND --help: that command's options)\n"
	      "  -V, --version  show the version\n"
	      "\n"
	      "Exit status: 0 success, 1 invalid trace or runtime error, 2 usage error.\n"
	      "\n"
	      "EXAMPLES:\n"
	      "    katra-replay verify run.ktrc\n"
	      "    katra-replay stats run.ktrc\n"
	      "    katra-replay dump --jsonl run.ktrc | jq .kind | sort | uniq -c\n",
	      out);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("katra-replay: missing command\n"
		      "Try 'katra-replay --help' for more information.\n",
		      stderr);
		return KATRA_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		puts("katra-replay " KATRA_REPLAY_VERSION " (Katra trace format v1)");
		return 0;
	}
	for (size_t i = 0; i < NCMDS; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].main(argc - 1, argv + 1);
	fprintf(stderr, "katra-replay: unknown command '%s'\n"
		"Try 'katra-replay --help' for more information.\n", argv[1]);
	return KATRA_EXIT_USAGE;
}
