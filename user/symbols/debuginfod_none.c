// SPDX-License-Identifier: GPL-2.0-only
/* debuginfod.h for katra-record: the recorder names frames only from the
 * files the traced processes mapped and never fetches, so it links neither
 * libdebuginfod nor what that pulls in (libcurl, TLS, Kerberos, LDAP) into a
 * process that runs as root. */
#include <errno.h>
#include <stddef.h>

#include "debuginfod.h"

void kr_debuginfod_disable(void)
{
}

bool kr_debuginfod_wanted(const char *build_id)
{
	(void)build_id;
	return false;
}

int kr_debuginfod_fetch(const char *build_id, enum kr_debuginfod_kind kind, char **path)
{
	(void)build_id;
	(void)kind;
	*path = NULL;
	return -ENOSYS;
}

void kr_debuginfod_failed(int err, const char *module, const char *build_id)
{
	(void)err;
	(void)module;
	(void)build_id;
}
