// SPDX-License-Identifier: GPL-2.0-only
/* `katra-replay compare A B`: argument parsing only; the work is in
 * compare.c, cmp_trace.c, cmp_read.c, align.c. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "katra/replay_cli.h"
#include "replay/util/open.h"

enum { OPT_JSON = 256, OPT_IGNORE };

static const char compare_help[] =
	"Usage: katra-replay compare [--json] [--ignore KIND,...] A B\n"
	"Is trace B the same run as trace A, and where do they part?\n"
	"\n"
	"Each thread becomes its sequence of (scope, kind, phase); processes are\n"
	"numbered by first appearance and threads by first appearance in their\n"
	"process, so two runs of one deterministic workload compare equal although\n"
	"pids, tids, times and seqs differ.  Prints a structural hash (those\n"
	"sequences) and a causal hash (the causes[] edges between (thread, kind)\n"
	"pairs) per trace, the equivalence (matched events / all, by aligning each\n"
	"thread with its twin), each differing thread's first divergence (seq and\n"
	"event on each side), and per kind the counts and span durations (p50, p99)\n"
	"with the change in percent.\n"
	"\n"
	"  --ignore KIND,...  kinds also left out of the hashes and the alignment,\n"
	"                     added to the default OffCpu,Wakeup,PageFault,Epoch,\n"
	"                     Counter,Drop,ProcessInfo (what the scheduler, the MMU\n"
	"                     and the recorder decide, not the program); 'none'\n"
	"                     empties the list: '--ignore none' compares every kind,\n"
	"                     '--ignore none --ignore Futex' ignores Futex alone\n"
	"  --json             one JSON object instead of text\n"
	"  -h, --help         show this help\n"
	"\n"
	"Both A and B are read twice, so they must be files (not '-').\n"
	"Exit status: 0 equivalent, 1 different, 2 usage error or unreadable trace.\n"
	"\n"
	"EXAMPLES:\n"
	"    katra-replay compare before.ktrc after.ktrc\n"
	"    katra-replay compare --ignore none a.ktrc b.ktrc\n"
	"    katra-replay compare --ignore Futex,Sleep a.ktrc b.ktrc\n"
	"    katra-replay compare --json a.ktrc b.ktrc | python3 -m json.tool\n";

int katra_cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "ignore", required_argument, NULL, OPT_IGNORE },
		{ 0 },
	};
	kr_kindset ignore = KR_CMP_DEFAULT_IGNORE;
	struct kr_compare c;
	bool json = false;
	char bad[64];
	int opt, ret;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(compare_help, stdout);
			return 0;
		case OPT_JSON:
			json = true;
			break;
		case OPT_IGNORE:
			if (kr_compare_ignore_option(&ignore, optarg, bad, sizeof(bad)))
				return katra_cli_usage_error("compare",
							     "--ignore: no event kind is called '%s'",
							     bad);
			break;
		case ':':
			return katra_cli_usage_error("compare", "option '%s' needs a value",
						     argv[optind - 1]);
		default:
			if (optopt) {
				char o[3] = { '-', (char)optopt, 0 };

				return katra_cli_usage_error("compare", "unknown option '%s'", o);
			}
			return katra_cli_usage_error("compare", "unknown option '%s'",
						     argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return katra_cli_usage_error("compare", "%s",
					     "wants two traces, A and B");
	for (int i = optind; i < argc; i++)
		if (!strcmp(argv[i], "-"))
			return katra_cli_usage_error("compare", "%s",
						     "reads each trace twice: give files, not '-'");
	ret = kr_compare_run(&c, argv[optind], argv[optind + 1], ignore, stderr);
	if (!ret) {
		if (json)
			kr_compare_print_json(stdout, &c);
		else
			kr_compare_print_text(stdout, &c);
		ret = kr_flush_out(stdout, stderr) ? KATRA_EXIT_USAGE : c.equivalent ? 0 : 1;
	} else {
		ret = KATRA_EXIT_USAGE; /* unreadable: the reason was printed */
	}
	kr_compare_free(&c);
	return ret;
}
