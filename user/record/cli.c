// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "record/targets/session.h"

struct katra_cli_state {
	struct katra_record_opts *o;
	FILE *out, *err;
	bool output_given;
};

static const char intro_text[] =
	"\n"
	"Records what a process tree does in the kernel (syscalls, scheduling, page\n"
	"faults, io_uring, process lifecycle) into a Katra v1 trace; under Wine also\n"
	"its NT calls, wineserver and Win->Unix calls, and the Vulkan driver's\n"
	"submits and waits (uprobes). Needs root, or CAP_BPF + CAP_PERFMON.\n"
	"\n";

static const char outro_text[] =
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

static enum katra_cli_result usage_error(FILE *err, const char *fmt, const char *arg)
{
	fprintf(err, "katra-record: ");
	fprintf(err, fmt, arg);
	fprintf(err, "\nTry 'katra-record --help' for more information.\n");
	return KATRA_CLI_USAGE;
}

/* ---- each option's handler: 0 (KATRA_CLI_RUN) to go on ---- */

#define HANDLER(fn) static enum katra_cli_result fn(struct katra_cli_state *st, const char *arg)

HANDLER(opt_pid)
{
	struct katra_record_opts *o = st->o;
	char *end;

	errno = 0;
	unsigned long pid = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || pid == 0 || pid > 0x3fffffff || arg[0] == '-')
		return usage_error(st->err, "invalid PID '%s'", arg);
	if (o->npids == KATRA_MAX_TARGETS)
		return usage_error(st->err, "too many -p options (at most %s)", "64");
	o->pids[o->npids++] = (uint32_t)pid;
	return KATRA_CLI_RUN;
}

HANDLER(opt_stack_threshold)
{
	if (!strcmp(arg, "0"))
		st->o->stack_threshold_ns = 0;
	else if (katra_parse_seconds(arg, &st->o->stack_threshold_ns))
		return usage_error(st->err, "invalid threshold '%s' (seconds, e.g. 0.001)", arg);
	st->o->stacks = true;
	return KATRA_CLI_RUN;
}

HANDLER(opt_sample_hz)
{
	char *end;
	unsigned long hz;

	errno = 0;
	hz = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || hz > 10000)
		return usage_error(st->err, "invalid rate '%s' (samples a second, 0 to 10000, "
				   "e.g. 99)", arg);
	st->o->sample_hz = (uint32_t)hz;
	st->o->stacks = st->o->stacks || hz > 0;
	return KATRA_CLI_RUN;
}

HANDLER(opt_output)
{
	st->o->output = arg;
	st->output_given = true;
	return KATRA_CLI_RUN;
}

HANDLER(opt_duration)
{
	if (katra_parse_seconds(arg, &st->o->duration_ns))
		return usage_error(st->err, "invalid duration '%s' (seconds, > 0)", arg);
	if (st->o->duration_ns < 1000000)
		return usage_error(st->err, "duration '%s' is below 1 ms", arg);
	return KATRA_CLI_RUN;
}

static enum katra_cli_result set_session(struct katra_cli_state *st, int mode)
{
	if (st->o->session_mode != KATRA_SESSION_AUTO && st->o->session_mode != mode)
		return usage_error(st->err, "%s", "--session and --no-session exclude each other");
	st->o->session_mode = mode;
	return KATRA_CLI_RUN;
}

HANDLER(opt_session)
{
	(void)arg;
	return set_session(st, KATRA_SESSION_FORCE);
}

HANDLER(opt_no_session)
{
	(void)arg;
	return set_session(st, KATRA_SESSION_OFF);
}

HANDLER(opt_buffer)
{
	struct katra_record_opts *o = st->o;

	if (katra_parse_size(arg, &o->buffer_size) || o->buffer_size < 4096 ||
	    o->buffer_size > (1ull << 30))
		return usage_error(st->err, "invalid buffer size '%s' (4K to 1G)", arg);
	return KATRA_CLI_RUN;
}

HANDLER(opt_events)
{
	const char *bad;
	size_t bad_len;

	if (katra_select_parse(arg, &st->o->select, &bad, &bad_len)) {
		char word[64];
		snprintf(word, sizeof(word), "%.*s", (int)(bad_len < 60 ? bad_len : 60), bad);
		return usage_error(st->err, "unknown event class '%s' (io, sync, mem, proc, "
				   "sched, syscalls, all)", word);
	}
	return KATRA_CLI_RUN;
}

HANDLER(opt_user)
{
	if (!arg[0])
		return usage_error(st->err, "%s", "-u needs a user name or uid");
	st->o->user = arg;
	return KATRA_CLI_RUN;
}

HANDLER(opt_max_loss)
{
	char *end;

	errno = 0;
	double pct = strtod(arg, &end);
	if (errno || end == arg || *end || !(pct >= 0 && pct <= 100))
		return usage_error(st->err, "invalid --max-loss '%s' (a percentage, 0 to 100)", arg);
	st->o->max_loss_pct = pct;
	st->o->has_max_loss = true;
	return KATRA_CLI_RUN;
}

HANDLER(opt_small_tables) /* tests only: kernel map exhaustion */
{
	st->o->small_tables = (uint32_t)strtoul(arg, NULL, 10);
	if (st->o->small_tables < 1 || st->o->small_tables > 65536)
		return usage_error(st->err, "invalid --small-tables '%s'", arg);
	return KATRA_CLI_RUN;
}

HANDLER(opt_detach_pause) /* tests only: widens the teardown's steps */
{
	st->o->detach_pause_ms = (uint32_t)strtoul(arg, NULL, 10);
	if (st->o->detach_pause_ms < 1 || st->o->detach_pause_ms > 10000)
		return usage_error(st->err, "invalid --detach-pause '%s'", arg);
	return KATRA_CLI_RUN;
}

HANDLER(opt_drain)
{
	if (!strcmp(arg, "idle") || !strcmp(arg, "normal"))
		st->o->drain_idle = !strcmp(arg, "idle");
	else
		return usage_error(st->err, "invalid --drain-policy '%s' (idle or normal)", arg);
	return KATRA_CLI_RUN;
}

/* KEY=VALUE: KEY of [a-z0-9_.-], VALUE printable ASCII (SPEC.md, Labels) */
HANDLER(opt_label)
{
	struct katra_record_opts *o = st->o;
	const char *eq = strchr(arg, '=');
	size_t klen = eq ? (size_t)(eq - arg) : 0;

	if (!eq || !klen || klen > KATRA_LABEL_KEY_MAX || strlen(eq + 1) > KATRA_LABEL_VALUE_MAX)
		return usage_error(st->err, "invalid --label '%s' (KEY=VALUE: KEY of a-z 0-9 _ . -, "
				   "at most 64 bytes; VALUE at most 160)", arg);
	for (size_t i = 0; i < klen; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789_.-", arg[i]))
			return usage_error(st->err, "invalid --label '%s' (KEY of a-z 0-9 _ . - "
					   "only)", arg);
	for (const char *p = eq + 1; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			return usage_error(st->err, "invalid --label '%s' (VALUE of printable "
					   "ASCII only)", arg);
	for (size_t i = 0; i < o->nlabels; i++)
		if (!strncmp(o->labels[i], arg, klen + 1))
			return usage_error(st->err, "--label '%s': KEY given twice", arg);
	if (o->nlabels == KATRA_MAX_LABELS)
		return usage_error(st->err, "too many --label options (at most %s)", "16");
	o->labels[o->nlabels++] = arg;
	return KATRA_CLI_RUN;
}

HANDLER(opt_help)
{
	(void)arg;
	katra_record_print_help(st->out);
	return KATRA_CLI_HELP;
}

HANDLER(opt_version)
{
	(void)arg;
	fprintf(st->out, "katra-record %s\n", KATRA_RECORD_VERSION);
	return KATRA_CLI_HELP;
}

/* The options' field an option without a handler sets (struct katra_cli_option) */
#define FIELD(name) (offsetof(struct katra_record_opts, name) + 1)

/* Every option, in --help's order: --help, the man page and the completion
 * follow this table (tests/unit/test_record_help.c checks the last two). */
const struct katra_cli_option katra_record_options[] = {
	{ "pid", 'p', "PID", "trace this process and its descendants (repeatable)",
	  "pid", opt_pid, 0, KATRA_OPT_REPEAT },
	{ NULL, 0, "COMMAND ARGS...", "start COMMAND traced from its first instruction; exit\n"
	  "with its exit status", "command", NULL, 0, KATRA_OPT_COMMAND },
	{ "output", 'o', "FILE", "trace file (default katra.ktrc), created 0600", "file",
	  opt_output, 0, 0 },
	{ "compress", 'z', NULL, "gzip the trace as it is written (default FILE\n"
	  "katra.ktrc.gz); katra-replay reads either kind", NULL, NULL, FIELD(compress), 0 },
	{ "force", 'f', NULL, "replace FILE (and --summary-json F) if it exists: a\n"
	  "new file renamed over it, never written through", NULL, NULL, FIELD(force), 0 },
	{ "duration", 'd', "SECONDS", "stop SECONDS after the capture is live (fractions\n"
	  "allowed)", "none", opt_duration, 0, 0 },
	{ "no-follow", 0, NULL, "do not follow children forked by the targets", NULL, NULL,
	  FIELD(follow_children), KATRA_OPT_CLEARS },
	{ "session", 0, NULL, "a -p PID is a Wine process: trace its whole Wine\n"
	  "session (the default when it is one; fails if not)", NULL, opt_session, 0, 0 },
	{ "no-session", 0, NULL, "trace only the process tree of a Wine PID", NULL,
	  opt_no_session, 0, 0 },
	{ "buffer-size", 0, "SIZE", "ring buffer per CPU, e.g. 4M (default: 64M shared by\n"
	  "  the possible CPUs, 1M to 32M each)", "none", opt_buffer, 0, 0 },
	{ "paths", 0, NULL, "record file paths of openat/openat2/execve (off:\n"
	  "files are identified by a hash of device and inode)", NULL, NULL, FIELD(record_paths),
	  0 },
	{ "stacks", 0, NULL, "call stacks (kernel and user) of each traced thread's\n"
	  "time off the CPU of 1 ms or more, unwound at the end\n"
	  "of the capture (stats --stacks, --folded)", NULL, NULL, FIELD(stacks), 0 },
	{ "stack-threshold", 0, "SECONDS", "--stacks for intervals this long or more (fractions\n"
	  "allowed; 0: every one)", "none", opt_stack_threshold, 0, 0 },
	{ "sample-hz", 0, "N", "--stacks of running traced threads too: a timer\n"
	  "sample N times a second on each CPU (0: none)", "none", opt_sample_hz, 0, 0 },
	{ "no-symbols", 0, NULL, "--stacks: write no function names of the traced\n"
	  "programs (Symbols records) into the trace", NULL, NULL, FIELD(no_symbols), 0 },
	{ "no-uprobes", 0, NULL, "no uprobes on Wine's ntdll.so or the Vulkan driver\n"
	  "(no WindowsFacing, WineProton or Vulkan events)", NULL, NULL, FIELD(no_uprobes), 0 },
	{ "epoch-fifo", 0, "PATH", "create/read a FIFO; each line written is an epoch mark",
	  "file", NULL, FIELD(epoch_fifo), KATRA_OPT_STRING },
	{ "label", 0, "KEY=VALUE", "name the run (build=812, scene=city): kept in the\n"
	  "header's notes and the summary; KEY of a-z 0-9 _ . -\n"
	  "(repeatable)", "none", opt_label, 0, KATRA_OPT_REPEAT },
	{ "summary-json", 0, "F", "write the capture summary as JSON to F", "file", NULL, FIELD(summary_json), KATRA_OPT_STRING },
	{ "bpf-stats", 0, NULL, "count each probe's runs and run time (the kernel's\n"
	  "bpf_stats, on for the capture: two clock reads a\n"
	  "run) into the summary, as bpftool prog show does", NULL, NULL, FIELD(bpf_stats), 0 },
	{ "ready-file", 0, "F", "create F once the capture is live (a stale F is\n"
	  "removed at start; F is removed at exit)", "file", NULL, FIELD(ready_file), KATRA_OPT_STRING },
	{ "verbose", 'v', NULL, "more detail on stderr (-vv: libbpf's debug log)", NULL, NULL,
	  FIELD(verbose), KATRA_OPT_COUNT },
	{ "events", 'e', "CLASSES", "record only these (comma-separated): io (file, socket,\n"
	  "io_uring), sync (futex, waits, polls, sleeps), mem\n"
	  "(mmap family, page faults), sched (switches, wakeups),\n"
	  "proc (fork/exec/exit: always on), syscalls (every\n"
	  "syscall), all (default); filtered in the kernel",
	  "words,:io sync mem sched proc syscalls all", opt_events, 0, 0 },
	{ "quiet", 'q', NULL, "no summary on stderr (errors and losses still)", NULL, NULL,
	  FIELD(quiet), 0 },
	{ "user", 'u', "USER", "run COMMAND as USER (under sudo the default is the\n"
	  "invoking user; -u root keeps root)", "user", opt_user, 0, 0 },
	{ "max-loss", 0, "PCT", "exit 3 when more than PCT % of events were lost\n"
	  "(the trace is complete all the same)", "none", opt_max_loss, 0, 0 },
	{ "drain-policy", 0, "P", "normal (default): read the rings at the normal\n"
	  "policy; idle: at SCHED_IDLE, in the time the CPUs\n"
	  "leave idle, and at the normal policy only while a\n"
	  "ring is filling (loses events on a busy machine)", "words:idle normal", opt_drain,
	  0, 0 },
	{ "help", 'h', NULL, "this text;  -V, --version: the version", NULL, opt_help, 0, 0 },
	{ "version", 'V', NULL, NULL /* on --help's line */, NULL, opt_version, 0, 0 },
	/* tests only: in neither --help, the man page nor the completion */
	{ "raw-tp", 0, NULL, "the raw_tp twins, not tp_btf", NULL, NULL, FIELD(force_raw_tp),
	  KATRA_OPT_TESTS },
	{ "small-tables", 0, "N", "kernel in-flight tables and the process table of N", NULL,
	  opt_small_tables, 0, KATRA_OPT_TESTS },
	{ "detach-pause", 0, "MS", "a pause after the syscall probes are detached", NULL,
	  opt_detach_pause, 0, KATRA_OPT_TESTS },
};
const size_t katra_record_noptions = sizeof(katra_record_options) / sizeof(katra_record_options[0]);

/* "-p, --pid PID", "    --paths", "-- COMMAND ARGS..." */
static void left_column(const struct katra_cli_option *op, char *buf, size_t cap)
{
	if (op->flags & KATRA_OPT_COMMAND)
		snprintf(buf, cap, "-- %s", op->arg);
	else if (op->short_name)
		snprintf(buf, cap, "-%c, --%s%s%s", op->short_name, op->name, op->arg ? " " : "",
			 op->arg ? op->arg : "");
	else
		snprintf(buf, cap, "    --%s%s%s", op->name, op->arg ? " " : "",
			 op->arg ? op->arg : "");
}

/* The synopsis: every option a user gives, wrapped under "usage:". */
static void print_usage(FILE *out)
{
	const char *lead = "usage: katra-record";
	size_t col = strlen(lead);

	fputs(lead, out);
	for (size_t i = 0; i < katra_record_noptions; i++) {
		const struct katra_cli_option *op = &katra_record_options[i];
		char item[64];
		if (op->flags & (KATRA_OPT_TESTS | KATRA_OPT_COMMAND) || op->handler == opt_help ||
		    op->handler == opt_version)
			continue;
		if (op->short_name)
			snprintf(item, sizeof(item), "[-%c%s%s]%s", op->short_name, op->arg ? " " : "",
				 op->arg ? op->arg : "", op->flags & KATRA_OPT_REPEAT ? "..." : "");
		else
			snprintf(item, sizeof(item), "[--%s%s%s]", op->name, op->arg ? " " : "",
				 op->arg ? op->arg : "");
		if (col + 1 + strlen(item) > 80) {
			fprintf(out, "\n%19s", "");
			col = 19;
		}
		fprintf(out, " %s", item);
		col += 1 + strlen(item);
	}
	fprintf(out, "\n%20s[-- COMMAND ARGS...]\n", "");
}

void katra_record_print_help(FILE *out)
{
	print_usage(out);
	fputs(intro_text, out);
	for (size_t i = 0; i < katra_record_noptions; i++) {
		const struct katra_cli_option *op = &katra_record_options[i];
		char left[64];
		if (op->flags & KATRA_OPT_TESTS || !op->help)
			continue;
		left_column(op, left, sizeof(left));
		fprintf(out, "  %-22s ", left);
		for (const char *p = op->help; *p; p++) {
			fputc(*p, out);
			if (*p == '\n')
				fprintf(out, "%25s", "");
		}
		fputc('\n', out);
	}
	fputs(outro_text, out);
	fputs(examples_text, out);
}

/* The table's option, as getopt_long returned it (val: its index + 256). */
static enum katra_cli_result apply(struct katra_cli_state *st, const struct katra_cli_option *op,
				   const char *arg)
{
	char *base = (char *)st->o;

	if (op->handler)
		return op->handler(st, arg);
	if (!op->field)
		return KATRA_CLI_RUN;
	base += op->field - 1;
	if (op->flags & KATRA_OPT_COUNT) /* -v, -vv */
		(*(int *)base)++;
	else if (op->flags & KATRA_OPT_STRING)
		*(const char **)base = arg;
	else /* a bool: set, or cleared (--no-follow) */
		*(bool *)base = !(op->flags & KATRA_OPT_CLEARS);
	return KATRA_CLI_RUN;
}

enum katra_cli_result katra_record_parse_args(int argc, char **argv, struct katra_record_opts *o,
					      FILE *out, FILE *err)
{
	struct option longopts[sizeof(katra_record_options) / sizeof(katra_record_options[0]) + 1];
	char shortopts[64] = "+:";
	struct katra_cli_state st = { o, out, err, false };
	size_t nl = 0, ns = 2;
	int c;

	memset(o, 0, sizeof(*o));
	o->output = "katra.ktrc";
	katra_select_all(&o->select);
	o->follow_children = true;
	o->stack_threshold_ns = 1000000;
	for (size_t i = 0; i < katra_record_noptions; i++) {
		const struct katra_cli_option *op = &katra_record_options[i];
		if (!op->name)
			continue;
		longopts[nl++] = (struct option){ op->name, op->arg ? required_argument : no_argument,
						  NULL, 256 + (int)i };
		if (op->short_name) {
			shortopts[ns++] = op->short_name;
			if (op->arg)
				shortopts[ns++] = ':';
		}
	}
	longopts[nl] = (struct option){ NULL, 0, NULL, 0 };
	shortopts[ns] = 0;
	optind = 0; /* glibc: start afresh, whatever a parse before left half read */
	opterr = 0;
	/* '+': stop at the first non-option so COMMAND's own options stay its own */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct katra_cli_option *op = NULL;
		if (c >= 256 && (size_t)(c - 256) < katra_record_noptions)
			op = &katra_record_options[c - 256];
		for (size_t i = 0; !op && c > 0 && c < 256 && i < katra_record_noptions; i++)
			if (c != ':' && c != '?' && katra_record_options[i].short_name == c)
				op = &katra_record_options[i];
		if (c == ':')
			return usage_error(err, "option '%s' needs an argument", argv[optind - 1]);
		if (!op)
			return usage_error(err, "unknown option '%s'", argv[optind - 1]);
		enum katra_cli_result res = apply(&st, op, optarg);
		if (res != KATRA_CLI_RUN)
			return res;
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
	if (o->compress && !st.output_given)
		o->output = "katra.ktrc.gz";
	if (!o->output[0])
		return usage_error(err, "%s", "empty output file name");
	if (o->user && !o->command)
		return usage_error(err, "%s", "-u applies to -- COMMAND only");
	return KATRA_CLI_RUN;
}
