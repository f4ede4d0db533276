/* SPDX-License-Identifier: GPL-2.0-only */
/* A module's files fetched by ELF build id from the debuginfod servers that
 * DEBUGINFOD_URLS names (elfutils' libdebuginfod: its cache under
 * $DEBUGINFOD_CACHE_PATH or ~/.cache/debuginfod_client, DEBUGINFOD_TIMEOUT),
 * when the binaries at hand do not name a module.  Never without the
 * variable (or with it empty), nor after kr_debuginfod_disable (the commands'
 * --no-debuginfod); each (build id, kind) asked once per run, none after a
 * transfer failed other than by "not found" (servers down or timing out),
 * each kind of failure said once on stderr. */
#ifndef KATRA_REPLAY_DEBUGINFOD_H
#define KATRA_REPLAY_DEBUGINFOD_H

#include <stdbool.h>

enum kr_debuginfod_kind { KR_DEBUGINFOD_DEBUGINFO, KR_DEBUGINFOD_EXECUTABLE };

void kr_debuginfod_disable(void);
/* Whether a fetch may be asked for build_id (lower-case hex; a PE module's
 * identity is not: debuginfod has no PE lookup) */
bool kr_debuginfod_wanted(const char *build_id);
/* The fetched file's path in the client's cache (malloc'd) in *path: 0, or
 * -errno (-ENOENT: no server has it; -EALREADY: failed before in this run,
 * said then).  A (build id, kind) asked again gives the first answer. */
int kr_debuginfod_fetch(const char *build_id, enum kr_debuginfod_kind kind, char **path);
/* Why module was not named from debuginfod (-errno; -EILSEQ: the fetched
 * file has another build id): said on stderr once per kind of failure */
void kr_debuginfod_failed(int err, const char *module, const char *build_id);

#endif
