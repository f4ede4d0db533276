/* SPDX-License-Identifier: GPL-2.0-only */
/* katra-replay's subcommands: each lives in user/replay/NAME/cmd_NAME.c with its
 * own option parsing and --help, and is listed once in the table in
 * user/katra-replay.c.  A subcommand's main gets argv with argv[0] = its
 * name and returns the process exit status: 0 success, 1 invalid trace or
 * runtime error (or "different" for compare), 2 usage error. */
#ifndef KATRA_REPLAY_CLI_H
#define KATRA_REPLAY_CLI_H

#include <stdint.h>

#define KATRA_EXIT_USAGE 2

/* comparing two runs, exporting a timeline (user/replay/compare/cmd_compare.c,
 * cmd_export.c) */
int katra_cmd_compare(int argc, char **argv);
int katra_cmd_export(int argc, char **argv);

struct katra_replay_cmd {
	const char *name;
	const char *summary; /* one line for the global help */
	int (*main)(int argc, char **argv);
};

int katra_cmd_verify(int argc, char **argv);
int katra_cmd_dump(int argc, char **argv);
int katra_cmd_stats(int argc, char **argv);

/* "katra-replay: CMD: <fmt>" plus the hint to CMD --help; returns 2. */
int katra_cli_usage_error(const char *cmd, const char *fmt, const char *arg);
/* A decimal count (no sign): 0 or -EINVAL. */
int katra_cli_parse_count(const char *s, uint64_t *out);

/* katra-replay report (user/replay/report/cmd_report.c) */
int katra_cmd_report(int argc, char **argv);

#endif
