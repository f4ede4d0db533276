// SPDX-License-Identifier: GPL-2.0-only
/* The recorder's end-of-capture lines (user/record/summary.c): counts read
 * "1 event", "1 probe", "1 process" (include/katra/plural.h), and a probe
 * off by an expected fallback (the kernel refuses fexit on handle_mm_fault)
 * is not counted as failed on stderr, only in --summary-json. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "katra/plural.h"
#include "record/recorder.h"
#include "record/targets/session.h"

static char *summary(const struct katra_record_result *res)
{
	struct katra_record_opts o;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	memset(&o, 0, sizeof(o));
	o.output = "t.ktrc";
	cr_assert_not_null(f);
	katra_record_print_summary(f, &o, res);
	fclose(f);
	return buf;
}

Test(plural, one_and_many)
{
	cr_assert_str_eq(katra_plural(1, "process", "processes"), "process");
	cr_assert_str_eq(katra_plural(0, "process", "processes"), "processes");
	cr_assert_str_eq(katra_plural(2, "process", "processes"), "processes");
}

Test(record_summary, one_of_each_is_singular)
{
	struct katra_proc_entry p = { .pid = 7, .origin = KATRA_ORIGIN_WINE_SESSION };
	struct katra_record_result res;
	char *b;

	memset(&res, 0, sizeof(res));
	res.events = 1;
	res.probes_attached = 1;
	res.procs = &p;
	res.nprocs = 1;
	res.procs_total = 1;
	res.wakeups_unseen = 1;
	res.forced = 1;
	b = summary(&res);
	cr_assert_not_null(strstr(b, "katra-record: 1 event, 0 dropped, "), "%s", b);
	cr_assert_not_null(strstr(b, "katra-record: 1 probe attached; capture live after"),
			   "%s", b);
	cr_assert_not_null(strstr(b, "katra-record: 1 process named, 1 found in Wine"), "%s", b);
	cr_assert_not_null(strstr(b, "katra-record: 1 wakeup the kernel ran no probe for"),
			   "%s", b);
	cr_assert_not_null(strstr(b, "katra-record: 1 item written before every CPU's older "
				     "records were read"), "%s", b);
	free(b);
}

Test(record_summary, an_expected_fallback_is_not_a_failure)
{
	struct katra_record_result res;
	char *b;

	memset(&res, 0, sizeof(res));
	res.events = 2;
	res.probes_attached = 25;
	res.probes_failed = 1;
	res.probes_fallback = 1;
	b = summary(&res);
	cr_assert_not_null(strstr(b, "katra-record: 2 events, "), "%s", b);
	cr_assert_not_null(strstr(b, "katra-record: 25 probes attached; capture live after"),
			   "%s", b);
	cr_assert_null(strstr(b, "failed"), "%s", b);
	free(b);
	res.probes_failed = 3;
	b = summary(&res);
	cr_assert_not_null(strstr(b, "katra-record: 25 probes attached, 2 failed; capture live"),
			   "%s", b);
	free(b);
}
