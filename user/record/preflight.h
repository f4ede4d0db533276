/* SPDX-License-Identifier: GPL-2.0-only */
/* What is checked before the capture starts: the privileges the probes need,
 * and every path option (a capture must not run for an hour and then fail to
 * write its summary). */
#ifndef KATRA_RECORD_PREFLIGHT_H
#define KATRA_RECORD_PREFLIGHT_H

#include <stdio.h>

#include "recorder.h"

/* 0, or -errno after one "katra-record: ..." line on err naming the option
 * and the path. */
int katra_preflight(const struct katra_record_opts *o, FILE *err);
/* Root, or CAP_BPF + CAP_PERFMON: 0, or -EPERM after one line on err. */
int katra_preflight_privileges(FILE *err);

#endif
