// SPDX-License-Identifier: GPL-2.0-only
/* preempt.h: the kernel's preemption model, from what it says of itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "preempt.h"

/* A model's name: 1 none or voluntary, 0 full, lazy or rt, -1 not one. */
static int model(const char *s, size_t n)
{
	if ((n == 4 && !strncmp(s, "none", 4)) || (n == 9 && !strncmp(s, "voluntary", 9)))
		return 1;
	if ((n == 4 && (!strncmp(s, "full", 4) || !strncmp(s, "lazy", 4))) ||
	    (n == 2 && !strncmp(s, "rt", 2)))
		return 0;
	return -1;
}

/* Whether uname -v names word `w` (a whole word: PREEMPT is not PREEMPT_RT) */
static bool has_word(const char *s, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = strstr(s, w); p; p = strstr(p + 1, w))
		if ((p == s || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0' || p[n] == '\n'))
			return true;
	return false;
}

bool katra_preempt_never(const char *debugfs_preempt, const char *uname_version,
			 const char *cmdline, const char *config)
{
	const char *p, *e;

	if (debugfs_preempt && (p = strchr(debugfs_preempt, '(')) && (e = strchr(p, ')')))
		return model(p + 1, (size_t)(e - p - 1)) == 1;
	if (!uname_version)
		return false;
	if (has_word(uname_version, "PREEMPT_DYNAMIC")) {
		/* the boot's choice, else the build's default */
		for (p = cmdline ? strstr(cmdline, "preempt=") : NULL; p; p = strstr(p + 1, "preempt="))
			if (p == cmdline || p[-1] == ' ' || p[-1] == '\n')
				return model(p + 8, strcspn(p + 8, " \n")) == 1;
		return config && (strstr(config, "\nCONFIG_PREEMPT_NONE=y") ||
				  strstr(config, "\nCONFIG_PREEMPT_VOLUNTARY=y"));
	}
	return !has_word(uname_version, "PREEMPT") && !has_word(uname_version, "PREEMPT_RT") &&
	       !has_word(uname_version, "PREEMPT_LAZY");
}

/* A text file whole (gzip-compressed ones too: zlib reads plain files as
 * they are), NUL-terminated with a leading newline, or NULL. */
static char *slurp(const char *path)
{
	size_t n = 1, cap = 1 << 16;
	char *buf = malloc(cap + 1);
	gzFile f = buf ? gzopen(path, "rb") : NULL;
	int got;

	if (!f) {
		free(buf);
		return NULL;
	}
	buf[0] = '\n';
	while ((got = gzread(f, buf + n, (unsigned)(cap - n))) > 0) {
		n += (size_t)got;
		if (n == cap) {
			char *more = realloc(buf, cap * 2 + 1);

			if (!more)
				break;
			buf = more;
			cap *= 2;
		}
	}
	gzclose(f);
	buf[n] = '\0';
	return buf;
}

bool katra_kernel_preempt_never(void)
{
	struct utsname u;
	char path[128 + sizeof(u.release)], *dbg, *cmd, *cfg;
	bool never;

	if (uname(&u) < 0)
		return false;
	dbg = slurp("/sys/kernel/debug/sched/preempt");
	cmd = slurp("/proc/cmdline");
	cfg = slurp("/proc/config.gz");
	if (!cfg) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		cfg = slurp(path);
	}
	never = katra_preempt_never(dbg, u.version, cmd, cfg);
	free(dbg);
	free(cmd);
	free(cfg);
	return never;
}
