/* SPDX-License-Identifier: GPL-2.0-only */
/* Every path option checked before the capture starts (a capture must not
 * run for an hour and then fail to write its summary). */
#ifndef KATRA_RECORD_PREFLIGHT_H
#define KATRA_RECORD_PREFLIGHT_H

#include <stdio.h>

#include "recorder.h"

/* 0, or -errno after one "katra-record: ..." line on err naming the option
 * and the path. */
int katra_preflight(const struct katra_record_opts *o, FILE *err);

#endif
