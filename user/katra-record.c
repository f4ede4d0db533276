// SPDX-License-Identifier: GPL-2.0-only
/* katra-record: a thin shell over the recorder library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "katra/plural.h"
#include "record/cli.h"
#include "record/recorder.h"

static int run_after(const struct katra_record_opts *o, const struct katra_record_result *res);

int main(int argc, char **argv)
{
	struct katra_record_opts o;
	struct katra_record_result res;
	int rc;

	switch (katra_record_parse_args(argc, argv, &o, stdout, stderr)) {
	case KATRA_CLI_HELP:
		return 0;
	case KATRA_CLI_USAGE:
		return 2;
	case KATRA_CLI_RUN:
		break;
	}
	rc = katra_record_run(&o, &res);
	if (rc)
		return 1;
	rc = run_after(&o, &res);
	free(res.procs);
	return rc;
}

/* What follows a complete capture: the summaries and the exit status. */
static int run_after(const struct katra_record_opts *o, const struct katra_record_result *res)
{
	int rc;

	if (!o->quiet)
		katra_record_print_summary(stderr, o, res);
	double lost_pct = katra_record_loss_pct(res);
	/* loud even with -q: a silent loss makes a trace lie */
	if (res->events_lost)
		fprintf(stderr, "katra-record: %llu %s lost (%.2f %%): raise --buffer-size or "
			"trace fewer processes\n", (unsigned long long)res->events_lost,
			katra_plural(res->events_lost, "event", "events"), lost_pct);
	if (res->links_lost)
		fprintf(stderr, "katra-record: %llu causal %s lost (a state table was full): "
			"spans written as Instants, causes missing\n",
			(unsigned long long)res->links_lost,
			katra_plural(res->links_lost, "link", "links"));
	if (res->runs_skipped)
		fprintf(stderr, "katra-record: %llu probe %s skipped by the kernel (the probe "
			"was already running on that CPU): up to as many events missing\n",
			(unsigned long long)res->runs_skipped,
			katra_plural(res->runs_skipped, "run", "runs"));
	if (o->summary_json) {
		rc = katra_record_write_summary_json(o->summary_json, o, res);
		if (rc) {
			fprintf(stderr, "katra-record: cannot write summary '%s': %s\n",
				o->summary_json, strerror(-rc));
			return 1;
		}
	}
	if (o->has_max_loss && lost_pct > o->max_loss_pct) {
		fprintf(stderr, "katra-record: more than --max-loss %.2f %% lost: exit %d\n",
			o->max_loss_pct, KATRA_EXIT_LOSS);
		return KATRA_EXIT_LOSS;
	}
	if (o->command && res->command_status >= 0) {
		if (WIFEXITED(res->command_status))
			return WEXITSTATUS(res->command_status);
		if (WIFSIGNALED(res->command_status))
			return 128 + WTERMSIG(res->command_status);
	}
	return 0;
}
