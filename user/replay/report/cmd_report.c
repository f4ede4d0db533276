// SPDX-License-Identifier: GPL-2.0-only
/* `katra-replay report`: argument parsing only (the work is in report*.c). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "katra/replay_cli.h"
#include "katra/report.h"
#include "symbols/debuginfod.h"

static const char report_help[] =
	"Usage: katra-replay report [--json] [--html OUT.html] [--top N] [--pid PID | --tid TID]\n"
	"                           [--symbols DIR] [--no-debuginfod] FILE\n"
	"       katra-replay report --frames [--json] [--html OUT.html] [--top N] [--pid PID]\n"
	"                           FILE\n"
	"For the whole capture and for each epoch (EpochMarker records split the\n"
	"capture): where each thread's time went (on-CPU; off-CPU by reason: blocked\n"
	"in a syscall of kind K on resource R and woken by thread Y, preempted, ...;\n"
	"page faults; io_uring latency), the files and futexes waited on longest,\n"
	"and the critical path: the chain of causes that ends at the window's last\n"
	"event (of any thread, or of the one --pid / --tid names), walked back\n"
	"through wakeups, io_uring completions, forks and reads of data another\n"
	"thread wrote (a Wine client and its wineserver), with the time on each hop.\n"
	"With --frames: the frames instead.  Each present on a swapchain ends a\n"
	"frame (katra-record writes a Frame epoch 'frame N (pid P, swapchain 0xS)');\n"
	"a frame is the time from one present to the next of the same process and\n"
	"swapchain.  The frame times' p50, p90, p99 and max, then the slowest frames\n"
	"(--top, at most 100), longest first, each with its critical path, which\n"
	"ends at the present that ended it.  One track: the first one presented, or\n"
	"--pid PID's first; the others are counted.\n"
	"A thread's time is on-CPU, off-CPU or unknown: unknown before its first\n"
	"event (unless that is a switch-in), while it is never seen switching, and\n"
	"where a switch-out was lost; a thread's time ends at its exit.\n"
	"FILE may be gzip-compressed.\n"
	"\n"
	"  --json             one JSON object on standard output instead of text\n"
	"  --html OUT.html    write one self-contained HTML page: a chart of the epochs'\n"
	"                     lengths (frame times, when most epochs are frames) with\n"
	"                     the --top longest one click away, the SVG timeline of\n"
	"                     the threads with the critical path in red, the tables;\n"
	"                     with --frames: the frame-time chart and each slowest\n"
	"                     frame's critical path.  No text on standard output\n"
	"                     unless --json is given too\n"
	"  --top N            rows per table in text and HTML, and the longest epochs\n"
	"                     (slowest frames) given in detail (default 10)\n"
	"  --frames           frame times and the slowest frames (see above)\n"
	"  --pid PID          the critical path ends at the last event of process PID\n"
	"                     (--frames: PID's frames)\n"
	"  --tid TID          the critical path ends at the last event of thread TID\n"
	"  --index-cap N      causal index size in nodes, a power of two (default\n"
	"                     1048576, 56 bytes each); a longer history cuts paths\n"
	"  --max-epochs N     itemize the first N epochs only (default 1000, 0: all);\n"
	"                     the whole capture still covers everything\n"
	"  --symbols DIR      a capture with call stacks (katra-record --stacks): the\n"
	"                     critical path's blocked hops show their off-CPU\n"
	"                     interval's stack, its running hops their timer samples'\n"
	"                     (--sample-hz), 5 frames (--json: all), innermost\n"
	"                     first, named from the binaries in DIR first (as\n"
	"                     stats --symbols)\n"
	"  --no-debuginfod    no fetch from debuginfod servers (DEBUGINFOD_URLS)\n"
	"  -h, --help         show this help\n"
	"\n"
	"Exit status: 0 success, 1 invalid or unreadable trace (the report of what\n"
	"precedes the damage is still written), 2 usage error.\n"
	"\n"
	"EXAMPLES:\n"
	"    katra-replay report run.ktrc\n"
	"    katra-replay report --json run.ktrc | python3 -m json.tool\n"
	"    katra-replay report --html run.html run.ktrc.gz\n"
	"    katra-replay report --frames --top 3 game.ktrc\n"
	"    katra-replay report --frames --html frames.html game.ktrc\n";

enum { OPT_JSON = 256, OPT_HTML, OPT_TOP, OPT_INDEX_CAP, OPT_MAX_EPOCHS, OPT_PID, OPT_TID,
       OPT_FRAMES, OPT_SYMBOLS, OPT_NO_DEBUGINFOD };

int katra_cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "index-cap", required_argument, NULL, OPT_INDEX_CAP },
		{ "max-epochs", required_argument, NULL, OPT_MAX_EPOCHS },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "frames", no_argument, NULL, OPT_FRAMES },
		{ "symbols", required_argument, NULL, OPT_SYMBOLS },
		{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
		{ 0 },
	};
	struct katra_report_opts o = { .max_epochs = 1000 };
	uint64_t v;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(report_help, stdout);
			return 0;
		case OPT_JSON:
			o.json = true;
			break;
		case OPT_FRAMES:
			o.frames = true;
			break;
		case OPT_SYMBOLS:
			o.symbols = optarg;
			break;
		case OPT_NO_DEBUGINFOD:
			kr_debuginfod_disable();
			break;
		case OPT_HTML:
			if (!optarg[0])
				return katra_cli_usage_error("report", "%s", "--html wants a file name");
			o.html_path = optarg;
			break;
		case OPT_TOP:
			if (katra_cli_parse_count(optarg, &v) || !v || v > 100000)
				return katra_cli_usage_error("report", "--top wants 1 to 100000, not '%s'",
							     optarg);
			o.top = (unsigned)v;
			break;
		case OPT_INDEX_CAP:
			if (katra_cli_parse_count(optarg, &v) || v < 64 || (v & (v - 1)) ||
			    v > (1ull << 31))
				return katra_cli_usage_error("report", "--index-cap wants a power of two "
							     "from 64 to 2147483648, not '%s'", optarg);
			o.index_cap = v;
			break;
		case OPT_MAX_EPOCHS:
			if (katra_cli_parse_count(optarg, &v))
				return katra_cli_usage_error("report", "--max-epochs wants a number, not "
							     "'%s'", optarg);
			o.max_epochs = v;
			break;
		case OPT_PID:
		case OPT_TID:
			if (katra_cli_parse_count(optarg, &v) || !v)
				return katra_cli_usage_error("report", c == OPT_PID ?
							     "--pid wants a positive number, not '%s'" :
							     "--tid wants a positive number, not '%s'",
							     optarg);
			*(c == OPT_PID ? &o.path_pid : &o.path_tid) = v;
			break;
		case ':':
			return katra_cli_usage_error("report", "option '%s' needs a value",
						     argv[optind - 1]);
		default:
			return katra_cli_usage_error("report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o.path_pid && o.path_tid)
		return katra_cli_usage_error("report", "%s", "--pid and --tid choose the same thing: "
					     "give one");
	if (o.frames && o.path_tid)
		return katra_cli_usage_error("report", "%s", "--frames takes no --tid (a frame's path "
					     "ends at its present)");
	if (optind >= argc)
		return katra_cli_usage_error("report", "%s", "missing FILE");
	if (optind + 1 < argc)
		return katra_cli_usage_error("report", "unexpected argument '%s' (one FILE only)",
					     argv[optind + 1]);
	return katra_report(argv[optind], &o, stdout, stderr) == 0 ? 0 : 1;
}
