// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "katra/replay_cli.h"

int katra_cli_usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "katra-replay: %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'katra-replay %s --help' for more information.\n", cmd);
	return KATRA_EXIT_USAGE;
}

int katra_cli_parse_count(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	if (!s[0] || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}
