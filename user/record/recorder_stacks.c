// SPDX-License-Identifier: GPL-2.0-only
/* --stacks in the capture (recorder_stacks.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/stacks/stacks.h"
#include "recorder_run.h"
#include "recorder_signals.h"
#include "recorder_stacks.h"

struct recorder_stacks {
	struct katra_stacks *st;
	struct katra_stack_reader *reader;
	pthread_t thread;
	bool running;
	volatile int stop;
	int error;
};

static int on_record(void *ctx, void *data, size_t size)
{
	struct recorder_stacks *s = ctx;
	int rc = katra_stacks_take(s->st, data, size);

	if (rc && !s->error)
		s->error = rc;
	return 0;
}

/* Off the drain: a stack is read, checked and spooled here */
static void *reader_main(void *arg)
{
	struct recorder_stacks *s = arg;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
		katra_probes_stack_poll(s->reader, 10); /* woken at a quarter full, else this */
	return NULL;
}

int recorder_stacks_start(struct recorder *r)
{
	const struct katra_record_opts *o = r->o;
	struct katra_stacks_opts so = { .proc = "/proc", .full_paths = o->record_paths,
					.no_symbols = o->no_symbols,
					.fp_only = getenv("KATRA_TEST_STACKS_FP_ONLY") != NULL,
					.start_mono_ns = r->start_mono };
	struct recorder_stacks *s;
	int rc;

	if (!o->stacks)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	r->stk = s;
	rc = katra_stacks_new(&so, &s->st);
	if (!rc)
		rc = katra_probes_stack_reader(r->probes, on_record, s, &s->reader);
	if (!rc)
		rc = katra_probes_sample_start(r->probes);
	if (!rc) {
		sigset_t old;
		katra_block_signals(&old); /* the capture's own thread takes them */
		rc = -pthread_create(&s->thread, NULL, reader_main, s);
		katra_restore_signals(&old);
		s->running = !rc;
	}
	if (rc)
		fprintf(stderr, "katra-record: cannot start reading call stacks: %s\n",
			strerror(-rc));
	return rc;
}

static void stop_reader(struct recorder_stacks *s)
{
	if (!s->running)
		return;
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	pthread_join(s->thread, NULL);
	s->running = false;
}

static int kstack(void *ctx, int32_t id, uint64_t *ips)
{
	return katra_probes_kstack(ctx, id, ips);
}

int recorder_stacks_write(struct recorder *r)
{
	struct recorder_stacks *s = r->stk;
	struct katra_stacks_result res;
	uint64_t drops[2];
	int rc;

	if (!s)
		return 0;
	stop_reader(s);
	/* what came since its last wait */
	while (katra_probes_stack_poll(s->reader, 0) > 0)
		;
	rc = s->error;
	if (!rc)
		rc = katra_stacks_finish(s->st, r->w, kstack, r->probes, &res);
	if (rc) {
		fprintf(stderr, "katra-record: cannot write call stacks: %s\n", strerror(-rc));
		return rc;
	}
	katra_probes_stack_drops(r->probes, drops);
	if (!r->o->quiet || drops[0] || drops[1])
		fprintf(stderr, "katra-record: %llu call stacks (%llu distinct, %llu truncated, %llu "
			"without a module table); %llu lost (%llu: thread slots full, %llu: ring "
			"full)%s%.0llu%s\n", (unsigned long long)res.written, (unsigned long long)res.stacks,
			(unsigned long long)res.truncated, (unsigned long long)res.no_module,
			(unsigned long long)(drops[0] + drops[1]), (unsigned long long)drops[0],
			(unsigned long long)drops[1], res.kernel_beside ? "; " : "",
			(unsigned long long)res.kernel_beside,
			/* the kernel-stack map refused them (a bucket taken): in the record */
			res.kernel_beside ? " kernel stacks beside the map" : "");
	/* the naming reads each file's symbols and DWARF: said when it shows (-v: always) */
	if (!r->o->quiet && (res.symbols_ns >= 5000000 || r->o->verbose))
		fprintf(stderr, "katra-record: %llu stack addresses named (%llu not) in %.1f ms\n",
			(unsigned long long)res.named, (unsigned long long)res.unnamed,
			(double)res.symbols_ns / 1e6);
	return 0;
}

void recorder_stacks_free(struct recorder *r)
{
	struct recorder_stacks *s = r->stk;

	if (!s)
		return;
	stop_reader(s);
	katra_probes_stack_reader_free(s->reader);
	katra_stacks_free(s->st);
	free(s);
	r->stk = NULL;
}
