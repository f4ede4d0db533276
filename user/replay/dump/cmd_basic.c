// SPDX-License-Identifier: GPL-2.0-only
/* The first three subcommands: verify, dump, stats (argument parsing only;
 * the work is in verify_cmd.c, dump.c, stats_cmd.c). */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "katra/replay.h"
#include "katra/replay_cli.h"
#include "dump_filter.h"
#include "symbols/debuginfod.h"

enum { OPT_MAX_PROBLEMS = 256, OPT_JSONL, OPT_JSON, OPT_STRICT };

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
	"Usage: katra-replay verify [--max-problems N] [--strict] FILE\n"
	"Check every rule of the Katra format (format/SPEC.md section 7) and say\n"
	"whether FILE is a valid trace; each problem names its seq and byte offset.\n"
	"A summary field that section 7 says a writer SHOULD keep (inferred_events,\n"
	"processes_seen, threads_seen) and that disagrees with the events is said on\n"
	"a line beginning \"note: \".\n"
	"\n"
	"  --max-problems N   print at most N problems (default 100, 0 = all); all\n"
	"                     of them are counted\n"
	"  --strict           a broken SHOULD rule makes the trace invalid too\n"
	"  -h, --help         show this help\n"
	"\n"
	"Exit status: 0 valid, 1 invalid or unreadable, 2 usage error.\n"
	"\n"
	"EXAMPLES:\n"
	"    katra-replay verify run.ktrc          # valid, or one line per problem\n"
	"    katra-replay verify --max-problems 0 run.ktrc\n"
	"    katra-replay verify --strict run.ktrc # what katra-record writes\n";

struct verify_args {
	uint64_t max_problems;
	bool strict;
};

static int verify_opt(int c, const char *arg, void *ctx)
{
	struct verify_args *a = ctx;

	if (c == OPT_STRICT) {
		a->strict = true;
		return -1;
	}
	if (c == OPT_MAX_PROBLEMS && katra_cli_parse_count(arg, &a->max_problems))
		return katra_cli_usage_error("verify", "--max-problems wants a number, not '%s'",
					     arg);
	return -1;
}

int katra_cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "max-problems", required_argument, NULL, OPT_MAX_PROBLEMS },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ 0 },
	};
	struct verify_args a = { .max_problems = 100 };
	const char *file;
	int rc = parse_one_file(argc, argv, opts, verify_help, verify_opt, &a, &file);

	if (rc >= 0)
		return rc;
	return katra_replay_verify(file, stdout, a.max_problems, a.strict, stderr) == 0 ? 0 : 1;
}

/* ---- dump ---- */

static const char dump_help[] =
	"Usage: katra-replay dump [--jsonl] [--pid P[,P]] [--tid T[,T]] [--kind K[,K]]\n"
	"                         [--from WHEN] [--to WHEN] FILE\n"
	"Print the header, then one line per record.  A text line leaves out what is\n"
	"absent; an End carries dur_ns (its span's duration); a pid shows its process\n"
	"name once the trace named it; syscall numbers, errno values, flags and task\n"
	"states are decoded, addresses printed in hex.\n"
	"\n"
	"  --jsonl          one JSON object per line instead (for jq and scripts); ids,\n"
	"                   addresses and wall-clock times are decimal strings, exact\n"
	"                   for jq 1.6\n"
	"  --pid P[,P]      only events of these processes (repeatable)\n"
	"  --tid T[,T]      only events of these threads (repeatable)\n"
	"  --kind K[,K]     only events of these kinds (FileRead, OffCpu, ... in any\n"
	"                   case; EpochMarker, Counter, SessionSummary for those records)\n"
	"  --from WHEN      start at WHEN: seconds since capture start (1.5), or the\n"
	"                   name of an epoch mark (the first EpochMarker so named)\n"
	"  --to WHEN        stop after WHEN: seconds, or the first EpochMarker so named\n"
	"                   after the --from point\n"
	"  -h, --help       show this help\n"
	"\n"
	"Epoch marks and the time window apply to every record; --pid and --tid select\n"
	"events (epoch marks stay, counters go).  Exit status: 0 success, 1 invalid or\n"
	"unreadable trace or an epoch mark not found, 2 usage error.\n"
	"\n"
	"EXAMPLES:\n"
	"    katra-replay dump run.ktrc | less\n"
	"    katra-replay dump --pid 4242 --kind FileRead,FileWrite run.ktrc\n"
	"    katra-replay dump --from 'load start' --to 'load end' run.ktrc\n"
	"    katra-replay dump --from 2.5 --to 3 --kind OffCpu run.ktrc\n"
	"    katra-replay dump --jsonl run.ktrc | jq 'select(.kind == \"FileRead\" and .dur_ns > 1000000)'\n"
	"    katra-replay dump --jsonl run.ktrc | jq -r 'select(.phase == \"End\" and .syscall) | .syscall' | sort | uniq -c\n";

enum { OPT_PID = 300, OPT_TID, OPT_KIND, OPT_FROM, OPT_TO };

static int dump_opt(int c, const char *arg, void *ctx)
{
	struct katra_dump_opts *o = ctx;
	int rc = 0;

	switch (c) {
	case OPT_JSONL:
		o->jsonl = true;
		break;
	case OPT_PID:
		rc = kr_parse_id_list(arg, o->pids, &o->npids);
		if (rc)
			return katra_cli_usage_error("dump", rc == -E2BIG ?
				"--pid: more than 64 ids in '%s'" :
				"--pid wants process ids like 12 or 12,13, not '%s'", arg);
		break;
	case OPT_TID:
		rc = kr_parse_id_list(arg, o->tids, &o->ntids);
		if (rc)
			return katra_cli_usage_error("dump", rc == -E2BIG ?
				"--tid: more than 64 ids in '%s'" :
				"--tid wants thread ids like 12 or 12,13, not '%s'", arg);
		break;
	case OPT_KIND:
		o->kinds_set = true;
		if (kr_parse_kinds(arg, &o->event_kinds, &o->record_types))
			return katra_cli_usage_error("dump", "--kind: unknown kind in '%s' (kinds: "
				"Syscall, FileRead, FileWrite, FileOpen, OffCpu, ... as format/SPEC.md "
				"section 5.2 names them; EpochMarker, Counter, SessionSummary)", arg);
		break;
	case OPT_FROM:
		kr_parse_when(arg, &o->from);
		break;
	case OPT_TO:
		kr_parse_when(arg, &o->to);
		break;
	}
	return -1;
}

int katra_cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "jsonl", no_argument, NULL, OPT_JSONL },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "kind", required_argument, NULL, OPT_KIND },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ 0 },
	};
	struct katra_dump_opts o;
	const char *file;
	int rc;

	memset(&o, 0, sizeof(o));
	rc = parse_one_file(argc, argv, opts, dump_help, dump_opt, &o, &file);
	if (rc >= 0)
		return rc;
	if (o.from.set && o.to.set && !o.from.epoch && !o.to.epoch && o.to.ns < o.from.ns)
		return katra_cli_usage_error("dump", "%s", "--to is before --from");
	return katra_dump_filtered(file, stdout, &o, stderr) == 0 ? 0 : 1;
}

/* ---- stats ---- */

static const char stats_help[] =
	"Usage: katra-replay stats [--json] [--syscalls] [--calls] [--per-process]\n"
	"                          [--per-frame] [--gpu] [--files] [--off-cpu] [--top N]\n"
	"                          [--overview] [--all] [--stacks] [--folded]\n"
	"                          [--on-cpu] [--symbols DIR] [--no-debuginfod]\n"
	"                          [--from WHEN] [--to WHEN] FILE\n"
	"What the capture holds, and where the time went.  Without a view option:\n"
	"the overview (duration, events by scope, kind, process and thread, span\n"
	"durations, drops, epochs, counters) and the syscall table.\n"
	"\n"
	"  --syscalls      per syscall, like strace -c -w: % of time, seconds,\n"
	"                  usecs/call, max usecs, calls, errors (ret -4095..-1);\n"
	"                  time is entry to return, blocking included\n"
	"  --calls         the calls of the Wine and Vulkan layers by name: NT calls\n"
	"                  (each NtSyscall by its own name), wineserver requests,\n"
	"                  Unix calls, Vulkan submits, presents and waits: calls,\n"
	"                  errors (NTSTATUS >= 0xC0000000, VkResult < 0), seconds,\n"
	"                  p50, p99, max\n"
	"  --per-process   the syscall table (with --calls, the calls table) for\n"
	"                  each process\n"
	"  --per-frame     per frame of each swapchain (present to present; alone:\n"
	"                  --calls --per-frame): frame count, frame time p50/p99/max,\n"
	"                  the slowest frames; per call name (with --syscalls, per\n"
	"                  syscall too) the frames it was in, calls per frame\n"
	"                  p50/max, usecs per frame p50/p99/max (a frame without it\n"
	"                  counts 0; exact); then the 3 slowest frames' calls, those\n"
	"                  most above their p50 frame first.  A call is in the frame\n"
	"                  whose window holds its Begin, on each swapchain of its\n"
	"                  process; other processes' calls are in no frame\n"
	"  --gpu           the GPU layer's dma_fences per timeline (driver, timeline):\n"
	"                  fences, signalled, busy time, made-to-signalled p50, p99,\n"
	"                  max, waits; a GPU scheduler ring's jobs, run to done;\n"
	"                  then per process its fences and share of all fence time\n"
	"  --files         per file identity (path when captured with --paths):\n"
	"                  reads, writes, bytes, time in I/O, opens\n"
	"  --off-cpu       per thread, off-CPU time by reason: preempted, or blocked\n"
	"                  (S, D, ...) in which syscall, on which resource\n"
	"  --top N         the N longest spans of any kind, with thread, process name,\n"
	"                  syscall name and resource\n"
	"  --stacks        the heaviest call stacks (katra-record --stacks) by the\n"
	"                  time of the spans they explain (--top N each, 20), named\n"
	"                  from the binaries at hand; alone, no other section\n"
	"  --folded        the call stacks as folded stacks for flamegraph.pl,\n"
	"                  inferno or speedscope (outermost first, nanoseconds)\n"
	"  --on-cpu        with --stacks or --folded: the timer samples' stacks alone\n"
	"                  (katra-record --sample-hz; a sample weighs its period);\n"
	"                  --off-cpu there: the off-CPU intervals' alone\n"
	"  --symbols DIR   look for the binaries in DIR first (by name, by build id\n"
	"                  as .build-id/xx/rest.debug, or a debuginfod cache); then\n"
	"                  the system's; then, where DEBUGINFOD_URLS is set, the\n"
	"                  debuginfod servers' by build id\n"
	"  --no-debuginfod no fetch from debuginfod servers (as DEBUGINFOD_URLS=)\n"
	"  --overview      the overview too, when a view option is given\n"
	"  --all           every section (--gpu, --top 20)\n"
	"  --from WHEN     only records from WHEN: seconds since capture start, or the\n"
	"                  name of an epoch mark (as dump --from)\n"
	"  --to WHEN       only records up to WHEN (seconds, or the first epoch mark so\n"
	"                  named after the --from point); spans cut by the window are\n"
	"                  left out\n"
	"  --json          one JSON object instead of aligned text\n"
	"  -h, --help      show this help\n"
	"\n"
	"Percentiles (p50~, p99~) come from histogram buckets: within 1/32 (exact\n"
	"below 64 ns); counts, totals, min and max are exact.  Exit status: 0\n"
	"success, 1 invalid or unreadable trace, 2 usage error.\n"
	"\n"
	"EXAMPLES:\n"
	"    katra-replay stats run.ktrc                  # overview + syscall table\n"
	"    katra-replay stats --syscalls --per-process run.ktrc\n"
	"    katra-replay stats --files run.ktrc          # which files took the time\n"
	"    katra-replay stats --off-cpu run.ktrc        # why threads were off-CPU\n"
	"    katra-replay stats --calls --per-process game.ktrc # NT, wineserver, Vulkan\n"
	"    katra-replay stats --per-frame game.ktrc     # which calls make frames slow\n"
	"    katra-replay stats --calls --syscalls --per-frame game.ktrc\n"
	"    katra-replay stats --top 10 run.ktrc         # the 10 longest spans\n"
	"    katra-replay stats --stacks --symbols bin/ run.ktrc # where threads blocked\n"
	"    katra-replay stats --folded --off-cpu run.ktrc | flamegraph.pl > offcpu.svg\n"
	"    katra-replay stats --folded --on-cpu run.ktrc | flamegraph.pl > oncpu.svg\n"
	"    katra-replay stats --from 'load start' --to 'load end' --all run.ktrc\n"
	"    katra-replay stats --json --files run.ktrc | jq '.files[0]'\n";

enum { OPT_SYSCALLS = 400, OPT_PER_PROCESS, OPT_FILES, OPT_OFFCPU, OPT_TOP, OPT_OVERVIEW,
       OPT_ALL, OPT_CALLS, OPT_PER_FRAME, OPT_GPU, OPT_STACKS, OPT_FOLDED, OPT_SYMBOLS, OPT_ONCPU,
       OPT_NO_DEBUGINFOD };

static int stats_opt(int c, const char *arg, void *ctx)
{
	struct katra_stats_opts *o = ctx;
	uint64_t n;

	switch (c) {
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_SYSCALLS:
		o->views |= KATRA_STATS_SYSCALLS;
		break;
	case OPT_PER_PROCESS:
		o->per_process = true; /* the syscall table's, or with --calls the calls' */
		break;
	case OPT_CALLS:
		o->views |= KATRA_STATS_CALLS;
		break;
	case OPT_PER_FRAME:
		o->per_frame = true;
		break;
	case OPT_GPU:
		o->views |= KATRA_STATS_GPU;
		break;
	case OPT_FILES:
		o->views |= KATRA_STATS_FILES;
		break;
	case OPT_OFFCPU:
		o->views |= KATRA_STATS_OFFCPU;
		break;
	case OPT_TOP:
		if (katra_cli_parse_count(arg, &n) || n < 1 || n > 10000)
			return katra_cli_usage_error("stats", "--top wants a number from 1 to 10000, "
						     "not '%s'", arg);
		o->views |= KATRA_STATS_TOP;
		o->top = (unsigned)n;
		break;
	case OPT_OVERVIEW:
		o->views |= KATRA_STATS_OVERVIEW;
		break;
	case OPT_STACKS:
		o->stacks = true;
		break;
	case OPT_FOLDED:
		o->folded = true;
		break;
	case OPT_ONCPU:
		o->on_cpu = true;
		break;
	case OPT_SYMBOLS:
		o->symbols = arg;
		break;
	case OPT_NO_DEBUGINFOD:
		kr_debuginfod_disable();
		break;
	case OPT_FROM:
		kr_parse_when(arg, &o->from);
		break;
	case OPT_TO:
		kr_parse_when(arg, &o->to);
		break;
	case OPT_ALL:
		o->views |= KATRA_STATS_OVERVIEW | KATRA_STATS_SYSCALLS | KATRA_STATS_FILES |
			    KATRA_STATS_OFFCPU | KATRA_STATS_TOP | KATRA_STATS_CALLS | KATRA_STATS_GPU;
		o->per_frame = true;
		if (!o->top)
			o->top = 20;
		break;
	}
	return -1;
}

int katra_cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "syscalls", no_argument, NULL, OPT_SYSCALLS },
		{ "per-process", no_argument, NULL, OPT_PER_PROCESS },
		{ "per-frame", no_argument, NULL, OPT_PER_FRAME },
		{ "gpu", no_argument, NULL, OPT_GPU },
		{ "calls", no_argument, NULL, OPT_CALLS },
		{ "files", no_argument, NULL, OPT_FILES },
		{ "off-cpu", no_argument, NULL, OPT_OFFCPU },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "overview", no_argument, NULL, OPT_OVERVIEW },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "stacks", no_argument, NULL, OPT_STACKS },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "on-cpu", no_argument, NULL, OPT_ONCPU },
		{ "symbols", required_argument, NULL, OPT_SYMBOLS },
		{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ 0 },
	};
	struct katra_stats_opts o = { 0 };
	const char *file;
	int rc = parse_one_file(argc, argv, opts, stats_help, stats_opt, &o, &file);

	if (rc >= 0)
		return rc;
	if (o.from.set && o.to.set && !o.from.epoch && !o.to.epoch && o.to.ns < o.from.ns)
		return katra_cli_usage_error("stats", "%s", "--to is before --from");
	return katra_stats_with(file, stdout, &o, stderr) == 0 ? 0 : 1;
}
