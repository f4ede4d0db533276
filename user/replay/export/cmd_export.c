// SPDX-License-Identifier: GPL-2.0-only
/* `katra-replay export TRACE -o OUT.json`: argument parsing and the output
 * file; the work is in export.c, export_emit.c, export_spans.c,
 * export_seen.c, chrome.c. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "symbols/debuginfod.h"
#include "replay/tables/tables.h"
#include "katra/replay_cli.h"

enum { OPT_FORMAT = 256, OPT_FROM, OPT_TO, OPT_PID, OPT_NO_ARGS, OPT_SPEEDSCOPE, OPT_PARQUET,
       OPT_NO_COMPRESS, OPT_ROW_GROUP, OPT_STACKS, OPT_SYMBOLS,
       OPT_NO_DEBUGINFOD };

static const char export_help[] =
	"Usage: katra-replay export [--format chrome] [--from T] [--to T] [--pid PID,...]\n"
	"                           [--no-args | --speedscope |\n"
	"                            --stacks [--symbols DIR] [--no-debuginfod]]\n"
	"                           -o OUT TRACE\n"
	"       katra-replay export --parquet DIR [--no-compress] [--row-group N] TRACE...\n"
	"Write TRACE as a timeline that Perfetto UI (ui.perfetto.dev), chrome://tracing\n"
	"and speedscope open: Chrome trace-event JSON.  Spans become slices nested per\n"
	"thread, off-CPU time a slice named for its reason (blocked or preempted),\n"
	"instants instant events, counters counter tracks, epochs global markers, and\n"
	"every cause on another thread (wakeup -> switch-in, io_uring submit ->\n"
	"completion, fork -> child) a flow arrow.  Streams: memory stays small\n"
	"whatever the trace's length.\n"
	"\n"
	"  -o, --output OUT   the JSON file to write ('-': standard output)\n"
	"  --format chrome    the output format (the only one, and the default)\n"
	"  --from T, --to T   only what happens between T and T: seconds since the\n"
	"                     capture started (1.5), or an epoch's name (\"mark 1\";\n"
	"                     epoch:NAME for a name that looks like a number); spans\n"
	"                     that cross a bound are cut at it\n"
	"  --pid PID,...      only these processes (repeatable)\n"
	"  --no-args          leave out each event's details (smaller file; speedscope\n"
	"                     then groups slices by name)\n"
	"  --speedscope       for speedscope: --no-args (its labels are then the names\n"
	"                     alone), processes and threads numbered from 1, busiest\n"
	"                     first (it opens the first), their real ids in their\n"
	"                     names (\"gzip 9353\"); TRACE read twice\n"
	"  --stacks           a capture with call stacks (katra-record --stacks): each\n"
	"                     off-CPU slice's stack, and a syscall slice's, in its\n"
	"                     args as \"stack\": \"leaf;caller;...\" (innermost first);\n"
	"                     TRACE read twice\n"
	"  --symbols DIR      --stacks: the binaries looked for in DIR first\n"
	"  --no-debuginfod    --stacks: no fetch from debuginfod servers\n"
	"  --parquet DIR      write each TRACE as a run of Parquet tables (runs,\n"
	"                     processes, threads, thread_names, spans, calls, offcpu,\n"
	"                     frames, drops) under DIR/TABLE/KEY=VALUE/.../run=ID/\n"
	"                     part.parquet, KEY=VALUE the run's labels (katra-record\n"
	"                     --label): for DuckDB, ClickHouse, Spark (docs/parquet.md).\n"
	"                     A trace is written whole or not at all; a truncated one\n"
	"                     up to where it ends\n"
	"  --no-compress      --parquet pages uncompressed (default zstd)\n"
	"  --row-group N      --parquet rows per row group (default 65536): memory\n"
	"                     grows with N, never with the trace\n"
	"  -h, --help         show this help\n"
	"\n"
	"Exit status: 0 success, 1 invalid or truncated trace or unknown epoch (what\n"
	"could be read is still written; with --parquet a truncated trace exports\n"
	"and exits 0, a corrupt one is not exported and exits 1), 2 usage error.\n"
	"\n"
	"EXAMPLES:\n"
	"    katra-replay export run.ktrc -o run.json     # then open it in ui.perfetto.dev\n"
	"    katra-replay export --speedscope run.ktrc -o run.json  # offline: speedscope run.json\n"
	"    katra-replay export --from 'mark 1' --to 'mark 2' run.ktrc -o frame.json\n"
	"    katra-replay export --pid 4242 --from 10 --to 12.5 run.ktrc -o - | gzip > t.json.gz\n"
	"    katra-replay export --parquet runs/ nightly/*.ktrc   # then: duckdb -c \"select ..\n"
	"        from read_parquet('runs/spans/**/*.parquet', hive_partitioning = true)\"\n";

/* Seconds as "12", "12.5", "12.5s" (at most 9 decimals), exactly. */
static int parse_seconds(const char *s, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000ull;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (sec > (UINT64_MAX / 1000000000ull - 9) / 10)
			return -ERANGE;
		sec = sec * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale == 1)
				return -EINVAL;
			scale /= 10;
			frac += (uint64_t)(*p - '0') * scale;
		}
	}
	if (*p == 's')
		p++;
	if (*p)
		return -EINVAL;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

static int parse_bound(const char *arg, struct kx_bound *b)
{
	b->set = true;
	if (!strncmp(arg, "epoch:", 6)) {
		b->by_epoch = true;
		b->epoch = arg + 6;
		return 0;
	}
	if (!parse_seconds(arg, &b->ns)) {
		b->by_epoch = false;
		return 0;
	}
	if (!arg[0] || (arg[0] >= '0' && arg[0] <= '9'))
		return -EINVAL; /* a malformed number, not a name */
	b->by_epoch = true;
	b->epoch = arg;
	return 0;
}

static int parse_pids(const char *arg, struct kx_options *o)
{
	const char *p = arg;

	for (;;) {
		char *end;
		unsigned long long v;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || (*end && *end != ','))
			return -EINVAL;
		if (o->npids == EXPORT_MAX_PIDS)
			return -E2BIG;
		o->pids[o->npids++] = v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

static int export_to_stream(const char *trace, const struct kx_options *o, FILE *f,
			    const char *name)
{
	int ret = katra_export_chrome(trace, o, f, stderr);

	if (fflush(f) || ferror(f)) {
		fprintf(stderr, "katra-replay: export: cannot write %s: %s\n", name,
			strerror(errno ? errno : EIO));
		ret = ret ? ret : -EIO;
	}
	return ret;
}

/* Exports into a temporary file beside out, renamed over it when done. */
static int export_to_file(const char *trace, const struct kx_options *o, const char *out)
{
	size_t n = strlen(out);
	char *tmp = malloc(n + 16);
	FILE *f;
	int fd, ret, cret;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, n + 16, "%s.tmp.XXXXXX", out);
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		ret = -errno;
		fprintf(stderr, "katra-replay: export: cannot create '%s': %s\n", tmp,
			strerror(errno));
		if (fd >= 0)
			close(fd), unlink(tmp);
		free(tmp);
		return ret;
	}
	{
		mode_t um = umask(0); /* a plain new file's mode, not mkstemp's 0600 */

		umask(um);
		fchmod(fd, 0666 & ~um);
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	ret = katra_export_chrome(trace, o, f, stderr);
	cret = fclose(f);
	if (cret && ret >= 0) {
		fprintf(stderr, "katra-replay: export: cannot write '%s': %s\n", out,
			strerror(errno));
		ret = -EIO;
	}
	if (ret >= 0 && rename(tmp, out)) {
		fprintf(stderr, "katra-replay: export: cannot rename '%s' to '%s': %s\n", tmp, out,
			strerror(errno));
		ret = -errno;
	}
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

int katra_cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "no-args", no_argument, NULL, OPT_NO_ARGS },
		{ "speedscope", no_argument, NULL, OPT_SPEEDSCOPE },
		{ "parquet", required_argument, NULL, OPT_PARQUET },
		{ "no-compress", no_argument, NULL, OPT_NO_COMPRESS },
		{ "row-group", required_argument, NULL, OPT_ROW_GROUP },
		{ "stacks", no_argument, NULL, OPT_STACKS },
		{ "symbols", required_argument, NULL, OPT_SYMBOLS },
		{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
		{ 0 },
	};
	struct kx_options o = { 0 };
	struct kq_opts pq = { .compress = true };
	bool pq_other = false; /* an option --parquet does not take */
	const char *out = NULL;
	struct stat st;
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(export_help, stdout);
			return 0;
		case 'o':
			out = optarg;
			pq_other = true;
			break;
		case OPT_PARQUET:
			pq.dir = optarg;
			break;
		case OPT_NO_COMPRESS:
			pq.compress = false;
			break;
		case OPT_ROW_GROUP: {
			char *end;
			unsigned long n = strtoul(optarg, &end, 10);

			if (*end || !n || n > (1ul << 24) || optarg[0] == '-')
				return katra_cli_usage_error(
					"export", "--row-group wants rows, 1 to 16777216, not '%s'",
					optarg);
			pq.group_rows = (unsigned)n;
			break;
		}
		case OPT_FORMAT:
			if (strcmp(optarg, "chrome"))
				return katra_cli_usage_error("export",
							     "--format: '%s' is not known (chrome is)",
							     optarg);
			break;
		case OPT_FROM:
		case OPT_TO:
			pq_other = true;
			if (parse_bound(optarg, c == OPT_FROM ? &o.from : &o.to))
				return katra_cli_usage_error(
					"export", "--from/--to want seconds or an epoch name, not '%s'",
					optarg);
			break;
		case OPT_PID:
			pq_other = true;
			if (parse_pids(optarg, &o))
				return katra_cli_usage_error(
					"export", "--pid wants process ids (at most 64), not '%s'",
					optarg);
			break;
		case OPT_SPEEDSCOPE:
			pq_other = true;
			o.speedscope = true;
			break;
		case OPT_NO_ARGS:
			pq_other = true;
			o.no_args = true;
			break;
		case OPT_STACKS:
			pq_other = true;
			o.stacks = true;
			break;
		case OPT_SYMBOLS:
			pq_other = true;
			o.symbols = optarg;
			break;
		case OPT_NO_DEBUGINFOD:
			pq_other = true;
			kr_debuginfod_disable();
			break;
		case ':':
			return katra_cli_usage_error("export", "option '%s' needs a value",
						     argv[optind - 1]);
		default:
			if (optopt) {
				char opt[3] = { '-', (char)optopt, 0 };

				return katra_cli_usage_error("export", "unknown option '%s'", opt);
			}
			return katra_cli_usage_error("export", "unknown option '%s'",
						     argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return katra_cli_usage_error("export", "%s", "missing TRACE");
	if (pq.dir && pq_other)
		return katra_cli_usage_error("export", "%s", "--parquet takes TRACEs, --no-compress "
					     "and --row-group only");
	if (pq.dir) {
		ret = 0;
		for (int i = optind; i < argc; i++) {
			int r = kq_export_trace(argv[i], &pq, stderr);

			if (r)
				ret = r;
		}
		return ret == 0 ? 0 : 1;
	}
	if (optind + 1 < argc)
		return katra_cli_usage_error("export", "unexpected argument '%s' (one TRACE only)",
					     argv[optind + 1]);
	if (!out)
		return katra_cli_usage_error("export", "%s",
					     "missing -o OUT ('-o -' writes to standard output)");
	if (o.from.set && o.to.set && !o.from.by_epoch && !o.to.by_epoch && o.from.ns > o.to.ns)
		return katra_cli_usage_error("export", "%s", "--from is after --to");
	if (o.stacks && (o.no_args || o.speedscope))
		return katra_cli_usage_error("export", "%s", "--stacks puts the stacks in args: not "
					     "with --no-args or --speedscope");
	if (o.symbols && !o.stacks)
		return katra_cli_usage_error("export", "%s", "--symbols names --stacks' frames: "
					     "give --stacks too");
	if (!strcmp(out, "-")) {
		ret = export_to_stream(argv[optind], &o, stdout, "standard output");
	} else if (!stat(out, &st) && !S_ISREG(st.st_mode)) {
		/* /dev/null, a FIFO: write to it as it is, never rename over it */
		FILE *f = fopen(out, "w");

		if (!f) {
			fprintf(stderr, "katra-replay: export: cannot open '%s': %s\n", out,
				strerror(errno));
			return 1;
		}
		ret = export_to_stream(argv[optind], &o, f, out);
		if (fclose(f) && !ret) {
			fprintf(stderr, "katra-replay: export: cannot write '%s': %s\n", out,
				strerror(errno));
			ret = -EIO;
		}
	} else {
		ret = export_to_file(argv[optind], &o, out);
	}
	return ret == 0 ? 0 : 1;
}
