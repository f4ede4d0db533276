// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "record/targets/session.h"

static const char usage_text[] =
	"usage: katra-record [-p PID]... [-o FILE] [-z] [-d SECONDS] [--no-follow]\n"
	"                    [--buffer-size SIZE] [--paths] [--epoch-fifo PATH]\n"
	"                    [--summary-json FILE] [--ready-file FILE] [--force] [-v] [-q] [--no-uprobes]\n"
	"                    [-e CLASSES] [-u USER] [--max-loss PCT] [--drain-policy P]\n"
	"                    [--bpf-stats]\n"
	"                    [-- COMMAND ARGS...]\n"
	"\n"
	"Records what a process tree does in the kernel (syscalls, scheduling, page\n"
	"faults, io_uring, process lifecycle) into a Katra v1 trace; under Wine also\n"
	"its NT calls, wineserver and Win->Unix calls, and the Vulkan driver's\n"
	"submits and waits (uprobes). Needs root, or CAP_BPF + CAP_PERFMON.\n"
	"\n"
	"  -p, --pid PID          trace this process and its descendants (repeatable)\n"
	"  -- COMMAND ARGS...     start COMMAND traced from its first instruction; exit\n"
	"                         with its exit status\n"
	"  -o, --output FILE      trace file (default katra.ktrc), created 0600\n"
	"  -z, --compress         gzip the trace as it is written (default FILE\n"
	"                         katra.ktrc.gz); katra-replay reads either kind\n"
	"  -f, --force            replace FILE (and --summary-json F) if it exists: a\n"
	"                         new file renamed over it, never written through\n"
	"  -d, --duration SECONDS stop SECONDS after the capture is live (fractions\n"
	"                         allowed)\n"
	"      --no-follow        do not follow children forked by the targets\n"
	"      --session          a -p PID is a Wine process: trace its whole Wine\n"
	"                         session (the default when it is one; fails if not)\n"
	"      --no-session       trace only the process tree of a Wine PID\n"
	"      --buffer-size SIZE ring buffer per CPU, e.g. 4M (default: 64M shared by\n"
	"                           the possible CPUs, 1M to 32M each)\n"
	"      --paths            record file paths of openat/openat2/execve (off:\n"
	"                         files are identified by a hash of device and inode)\n"
	"      --no-uprobes       no uprobes on Wine's ntdll.so or the Vulkan driver\n"
	"                         (no WindowsFacing, WineProton or Vulkan events)\n"
	"      --epoch-fifo PATH  create/read a FIFO; each line written is an epoch mark\n"
	"      --summary-json F   write the capture summary as JSON to F\n"
	"      --bpf-stats        count each probe's runs and run time (the kernel's\n"
	"                         bpf_stats, on for the capture: two clock reads a\n"
	"                         run) into the summary, as bpftool prog show does\n"
	"      --ready-file F     create F once the capture is live (a stale F is\n"
	"                         removed at start; F is removed at exit)\n"
	"  -v, --verbose          more detail on stderr (-vv: libbpf's debug log)\n"
	"  -e, --events CLASSES   record only these (comma-separated): io (file, socket,\n"
	"                         io_uring), sync (futex, waits, polls, sleeps), mem\n"
	"                         (mmap family, page faults), sched (switches, wakeups),\n"
	"                         proc (fork/exec/exit: always on), syscalls (every\n"
	"                         syscall), all (default); filtered in the kernel\n"
	"  -q, --quiet            no summary on stderr (errors and losses still)\n"
	"  -u, --user USER        run COMMAND as USER (under sudo the default is the\n"
	"                         invoking user; -u root keeps root)\n"
	"      --max-loss PCT     exit 3 when more than PCT % of events were lost\n"
	"                         (the trace is complete all the same)\n"
	"      --drain-policy P   normal (default): read the rings at the normal\n"
	"                         policy; idle: at SCHED_IDLE, in the time the CPUs\n"
	"                         leave idle, and at the normal policy only while a\n"
	"                         ring is filling (loses events on a busy machine)\n"
	"  -h, --help             this text;  -V, --version: the version\n"
	"\n"
	"Stops on Ctrl-C, SIGTERM, SIGHUP, the end of -d, or when every target has\n"
	"exited (a second signal stops a stuck final drain); SIGUSR1 adds a numbered\n"
	"epoch mark. Exit: 0 ok (with --: the command's status), 1 runtime error,\n"
	"2 usage, 3 more lost than --max-loss.\n";

int katra_parse_size(const char *s, uint64_t *out)
{
	char *end;
	uint64_t mult = 1;

	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mult = 1ull << 10; end++; break;
	case 'm': case 'M': mult = 1ull << 20; end++; break;
	case 'g': case 'G': mult = 1ull << 30; end++; break;
	default: break;
	}
	if (*end == 'i' || *end == 'B') /* accept 4MiB, 4MB */
		end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
	if (*end || v > UINT64_MAX / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

int katra_parse_seconds(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e9)
		return -EINVAL;
	*out = (uint64_t)(v * 1e9);
	return 0;
}

/* Printed after usage_text (libbpf-tools style); every katra-record line
 * here must parse (tests/unit/test_record_help.c). */
static const char examples_text[] =
	"\n"
	"EXAMPLES:\n"
	"    katra-record -o run.ktrc -- ./game -w      # a command, from its first instruction\n"
	"    katra-record -p 4242 -d 10                 # PID 4242 and its children, 10 s\n"
	"    katra-record --paths -- tar czf x.tgz doc  # file paths too (for stats --files)\n"
	"    katra-record -p 4242 --epoch-fifo /tmp/ep  # then: echo 'load start' >/tmp/ep\n"
	"    katra-record -p 4242 --session -d 5        # a Wine game: its whole session\n"
	"    kill -USR1 $(pidof katra-record)           # an epoch mark named 'mark N'\n"
	"    katra-replay stats run.ktrc                # then: where did the time go?\n";

/* Wine sessions (session.h): outside the OPT_ enum, which other options grow */
#define OPT_SESSION 0x5e55
#define OPT_NO_SESSION 0x5e56

static enum katra_cli_result usage_error(FILE *err, const char *fmt, const char *arg)
{
	fprintf(err, "katra-record: ");
	fprintf(err, fmt, arg);
	fprintf(err, "\nTry 'katra-record --help' for more information.\n");
	return KATRA_CLI_USAGE;
}

enum katra_cli_result katra_record_parse_args(int argc, char **argv, struct katra_record_opts *o,
					      FILE *out, FILE *err)
{
	enum { OPT_NO_FOLLOW = 256, OPT_BUFFER, OPT_PATHS, OPT_FIFO, OPT_SUMMARY, OPT_READY,
	       OPT_MAX_LOSS, OPT_RAW_TP, OPT_SMALL_TABLES, OPT_NO_UPROBES, OPT_DRAIN,
	       OPT_DETACH_PAUSE, OPT_BPF_STATS };
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "compress", no_argument, NULL, 'z' },
		{ "force", no_argument, NULL, 'f' },
		{ "duration", required_argument, NULL, 'd' },
		{ "no-follow", no_argument, NULL, OPT_NO_FOLLOW },
		{ "session", no_argument, NULL, OPT_SESSION },
		{ "no-session", no_argument, NULL, OPT_NO_SESSION },
		{ "buffer-size", required_argument, NULL, OPT_BUFFER },
		{ "paths", no_argument, NULL, OPT_PATHS },
		{ "epoch-fifo", required_argument, NULL, OPT_FIFO },
		{ "summary-json", required_argument, NULL, OPT_SUMMARY },
		{ "ready-file", required_argument, NULL, OPT_READY },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "events", required_argument, NULL, 'e' },
		{ "user", required_argument, NULL, 'u' },
		{ "max-loss", required_argument, NULL, OPT_MAX_LOSS },
		{ "raw-tp", no_argument, NULL, OPT_RAW_TP },
		{ "small-tables", required_argument, NULL, OPT_SMALL_TABLES },
		{ "detach-pause", required_argument, NULL, OPT_DETACH_PAUSE },
		{ "bpf-stats", no_argument, NULL, OPT_BPF_STATS },
		{ "no-uprobes", no_argument, NULL, OPT_NO_UPROBES },
		{ "drain-policy", required_argument, NULL, OPT_DRAIN },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool output_given = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->output = "katra.ktrc";
	katra_select_all(&o->select);
	o->follow_children = true;
	optind = 1;
	opterr = 0;
	/* '+': stop at the first non-option so COMMAND's own options stay its own */
	while ((c = getopt_long(argc, argv, "+:p:o:zfd:vqu:e:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': {
			char *end;
			errno = 0;
			unsigned long pid = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || pid == 0 || pid > 0x3fffffff ||
			    optarg[0] == '-')
				return usage_error(err, "invalid PID '%s'", optarg);
			if (o->npids == KATRA_MAX_TARGETS)
				return usage_error(err, "too many -p options (at most %s)", "64");
			o->pids[o->npids++] = (uint32_t)pid;
			break;
		}
		case 'o':
			o->output = optarg;
			output_given = true;
			break;
		case 'z':
			o->compress = true;
			break;
		case 'f':
			o->force = true;
			break;
		case 'd':
			if (katra_parse_seconds(optarg, &o->duration_ns))
				return usage_error(err, "invalid duration '%s' (seconds, > 0)", optarg);
			if (o->duration_ns < 1000000)
				return usage_error(err, "duration '%s' is below 1 ms", optarg);
			break;
		case OPT_NO_FOLLOW:
			o->follow_children = false;
			break;
		case OPT_SESSION:
		case OPT_NO_SESSION: {
			int mode = c == OPT_SESSION ? KATRA_SESSION_FORCE : KATRA_SESSION_OFF;
			if (o->session_mode != KATRA_SESSION_AUTO && o->session_mode != mode)
				return usage_error(err, "%s",
						   "--session and --no-session exclude each other");
			o->session_mode = mode;
			break;
		}
		case OPT_BUFFER:
			if (katra_parse_size(optarg, &o->buffer_size) || o->buffer_size < 4096 ||
			    o->buffer_size > (1ull << 30))
				return usage_error(err, "invalid buffer size '%s' (4K to 1G)", optarg);
			break;
		case OPT_PATHS:
			o->record_paths = true;
			break;
		case OPT_FIFO:
			o->epoch_fifo = optarg;
			break;
		case OPT_SUMMARY:
			o->summary_json = optarg;
			break;
		case OPT_READY:
			o->ready_file = optarg;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'e': {
			const char *bad;
			size_t bad_len;
			if (katra_select_parse(optarg, &o->select, &bad, &bad_len)) {
				char word[64];
				snprintf(word, sizeof(word), "%.*s", (int)(bad_len < 60 ? bad_len : 60),
					 bad);
				return usage_error(err, "unknown event class '%s' (io, sync, mem, proc, "
						   "sched, syscalls, all)", word);
			}
			break;
		}
		case 'u':
			if (!optarg[0])
				return usage_error(err, "%s", "-u needs a user name or uid");
			o->user = optarg;
			break;
		case OPT_MAX_LOSS: {
			char *end;
			errno = 0;
			double pct = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(pct >= 0 && pct <= 100))
				return usage_error(err, "invalid --max-loss '%s' (a percentage, 0 to 100)",
						   optarg);
			o->max_loss_pct = pct;
			o->has_max_loss = true;
			break;
		}
		case OPT_RAW_TP:
			o->force_raw_tp = true;
			break;
		case OPT_SMALL_TABLES: /* tests only: kernel map exhaustion */
			o->small_tables = (uint32_t)strtoul(optarg, NULL, 10);
			if (o->small_tables < 1 || o->small_tables > 65536)
				return usage_error(err, "invalid --small-tables '%s'", optarg);
			break;
		case OPT_BPF_STATS:
			o->bpf_stats = true;
			break;
		case OPT_DETACH_PAUSE: /* tests only: widens the teardown's steps */
			o->detach_pause_ms = (uint32_t)strtoul(optarg, NULL, 10);
			if (o->detach_pause_ms < 1 || o->detach_pause_ms > 10000)
				return usage_error(err, "invalid --detach-pause '%s'", optarg);
			break;
		case OPT_NO_UPROBES:
			o->no_uprobes = true;
			break;
		case OPT_DRAIN:
			if (!strcmp(optarg, "idle") || !strcmp(optarg, "normal"))
				o->drain_idle = !strcmp(optarg, "idle");
			else
				return usage_error(err, "invalid --drain-policy '%s' (idle or normal)",
						   optarg);
			break;
		case 'h':
			fputs(usage_text, out);
			fputs(examples_text, out);
			return KATRA_CLI_HELP;
		case 'V':
			fprintf(out, "katra-record %s\n", KATRA_RECORD_VERSION);
			return KATRA_CLI_HELP;
		case ':':
			return usage_error(err, "option '%s' needs an argument", argv[optind - 1]);
		default:
			return usage_error(err, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0)
			return usage_error(err, "unexpected argument '%s' (a command goes after --)",
					   argv[optind]);
		o->command = &argv[optind];
	}
	if (!o->npids && !o->command)
		return usage_error(err, "%s", "nothing to trace: give -p PID or -- COMMAND");
	if (o->npids && o->command)
		return usage_error(err, "%s", "-p PID and -- COMMAND exclude each other: trace "
				   "running processes, or start a command (its children are followed)");
	if (o->npids + (o->command ? 1 : 0) > KATRA_MAX_TARGETS)
		return usage_error(err, "too many targets (at most %s)", "64");
	if (o->compress && !output_given)
		o->output = "katra.ktrc.gz";
	if (!o->output[0])
		return usage_error(err, "%s", "empty output file name");
	if (o->user && !o->command)
		return usage_error(err, "%s", "-u applies to -- COMMAND only");
	return KATRA_CLI_RUN;
}
