// SPDX-License-Identifier: GPL-2.0-only
/* The uprobes worker: one thread at the normal policy that does every scan,
 * ELF read, attach and katra-vkresolve run the capture asks for, so the
 * drain never waits on them (nor they on a drain at SCHED_IDLE). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uprobes_int.h"

#define SWEEP_EVERY_NS 1000000000ull
/* The start waits for the worker this long (a katra-vkresolve run is killed
 * at VKRESOLVE_TIMEOUT_MS); the end, this long before the worker is left
 * behind.  Tests: KATRA_TEST_SETTLE_MS, KATRA_TEST_UP_STOP_MS. */
#define SETTLE_MS (VKRESOLVE_TIMEOUT_MS + 10000)
#define STOP_MS 5000
#define WAIT_SLICE_MS 100 /* a stop signal is seen within this */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void run_job(struct katra_uprobes *u, const struct up_job *j)
{
	if (u->test_stall_ms) { /* tests: a parse that takes this long */
		struct timespec ts = { u->test_stall_ms / 1000, (long)(u->test_stall_ms % 1000) * 1000000 };
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	if (j->kind == JOB_SCAN) {
		up_scan_pid(u, j->pid);
		return;
	}
	if (j->kind == JOB_UNIX_NAMES) {
		up_unix_names(u, j->pid, j->handle);
		return;
	}
	if (j->path)
		up_scan_command(u, j->path);
	up_prepare_vulkan(u, j->pid);
}

static void *worker_main(void *arg)
{
	struct katra_uprobes *u = arg;
	struct up_job batch[PENDING_MAX];

	pthread_mutex_lock(&u->qlock);
	while (!u->stopping) {
		uint64_t now = mono_ns();
		size_t n;

		if (now >= u->next_sweep) {
			pthread_mutex_unlock(&u->qlock);
			up_sweep_states(u);
			u->next_sweep = now + SWEEP_EVERY_NS;
			pthread_mutex_lock(&u->qlock);
			continue;
		}
		if (!u->njobs) {
			struct timespec until;

			u->busy = false;
			pthread_cond_broadcast(&u->qdone);
			if (!u->nfiles) { /* nothing to sweep until a job probes a file */
				pthread_cond_wait(&u->qcond, &u->qlock);
				continue;
			}
			clock_gettime(CLOCK_MONOTONIC, &until);
			until.tv_sec += 1;
			pthread_cond_timedwait(&u->qcond, &u->qlock, &until);
			continue;
		}
		n = u->njobs;
		memcpy(batch, u->jobs, n * sizeof(batch[0]));
		u->njobs = 0;
		u->busy = true;
		pthread_mutex_unlock(&u->qlock);
		for (size_t i = 0; i < n; i++) {
			run_job(u, &batch[i]);
			free(batch[i].path);
		}
		pthread_mutex_lock(&u->qlock);
	}
	u->busy = false;
	u->worker_done = true;
	pthread_cond_broadcast(&u->qdone);
	pthread_mutex_unlock(&u->qlock);
	return NULL;
}

static unsigned env_ms(const char *var, unsigned dflt)
{
	const char *v = getenv(var);

	return v && *v ? (unsigned)strtoul(v, NULL, 10) : dflt;
}

/* qdone waited on until done(u), *stop (a stop signal; NULL: none) or
 * ms from now: 0, -EINTR or -ETIMEDOUT.  qlock held. */
static int wait_qdone(struct katra_uprobes *u, bool (*done)(const struct katra_uprobes *),
		      const volatile sig_atomic_t *stop, unsigned ms)
{
	uint64_t end = mono_ns() + (uint64_t)ms * 1000000ull;

	while (!done(u)) {
		uint64_t now = mono_ns(), until_ns;
		struct timespec until;

		if (stop && *stop)
			return -EINTR;
		if (now >= end)
			return -ETIMEDOUT;
		until_ns = now + (uint64_t)WAIT_SLICE_MS * 1000000ull;
		if (until_ns > end)
			until_ns = end;
		until.tv_sec = (time_t)(until_ns / 1000000000ull);
		until.tv_nsec = (long)(until_ns % 1000000000ull);
		pthread_cond_timedwait(&u->qdone, &u->qlock, &until);
	}
	return 0;
}

static bool settled(const struct katra_uprobes *u)
{
	return (!u->njobs && !u->busy) || u->stopping;
}

static bool worker_ended(const struct katra_uprobes *u)
{
	return u->worker_done;
}

int katra_uprobes_start(struct katra_uprobes *u)
{
	struct sched_param sp = { .sched_priority = 0 };
	pthread_attr_t attr;
	sigset_t all, old;
	int err;

	if (!u || u->worker_on || (!u->o.wine && !u->o.vulkan))
		return 0;
	/* the normal policy whatever the creating thread's (an idle drain) */
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
	pthread_attr_setschedparam(&attr, &sp);
	/* signals are the capture loop's business */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	u->stopping = false;
	u->worker_done = false;
	u->test_stall_ms = env_ms("KATRA_TEST_WORKER_STALL_MS", 0);
	u->next_sweep = mono_ns() + SWEEP_EVERY_NS;
	err = -pthread_create(&u->worker, &attr, worker_main, u);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	u->worker_on = !err;
	return err;
}

void katra_uprobes_stop(struct katra_uprobes *u)
{
	unsigned ms = env_ms("KATRA_TEST_UP_STOP_MS", STOP_MS);
	int rc;

	if (!u || !u->worker_on)
		return;
	pthread_mutex_lock(&u->qlock);
	u->stopping = true;
	pthread_cond_signal(&u->qcond);
	pid_t child = __atomic_load_n(&u->vk_child, __ATOMIC_SEQ_CST);
	if (child > 0)
		kill(child, SIGKILL); /* the capture is over: no driver to probe */
	/* a job ends at its next step; one still busy after ms (a parse of a
	 * file a traced process named) is left behind, the trace finished
	 * without it: it keeps u and the probes (never freed: the process
	 * exits), and the links it makes are the kernel's to drop at exit */
	rc = wait_qdone(u, worker_ended, NULL, ms);
	if (rc) {
		u->abandoned = true;
		pthread_mutex_unlock(&u->qlock);
		pthread_detach(u->worker);
		u->worker_on = false;
		fprintf(stderr, "katra-record: the uprobes worker was still busy %u ms after the "
			"capture ended (reading a file a traced process maps): the trace is "
			"finished without it; its probes go when katra-record exits\n", ms);
		return;
	}
	pthread_mutex_unlock(&u->qlock);
	pthread_join(u->worker, NULL);
	u->worker_on = false;
	for (size_t i = 0; i < u->njobs; i++)
		free(u->jobs[i].path);
	u->njobs = 0;
}

static bool request(struct katra_uprobes *u, struct up_job j)
{
	bool queued = true;

	/* stopped (the capture's end; a worker left behind may still run):
	 * nothing more is probed, here or there */
	if (__atomic_load_n(&u->stopping, __ATOMIC_RELAXED) && !u->worker_on) {
		free(j.path);
		return false;
	}
	if (!u->worker_on) {
		run_job(u, &j);
		free(j.path);
		return true;
	}
	pthread_mutex_lock(&u->qlock);
	for (size_t i = 0; j.kind == JOB_SCAN && i < u->njobs; i++)
		if (u->jobs[i].kind == JOB_SCAN && u->jobs[i].pid == j.pid)
			goto out; /* queued already */
	if (u->njobs < PENDING_MAX) {
		u->jobs[u->njobs++] = j;
		j.path = NULL;
		pthread_cond_signal(&u->qcond);
	} else {
		u->jobs_lost++;
		queued = false;
	}
out:
	pthread_mutex_unlock(&u->qlock);
	free(j.path);
	return queued;
}

void katra_uprobes_request_scan(struct katra_uprobes *u, uint32_t pid)
{
	if (u && (u->o.wine || u->o.vulkan))
		request(u, (struct up_job){ .kind = JOB_SCAN, .pid = pid });
}

bool up_request_unix_names(struct katra_uprobes *u, uint32_t pid, uint64_t handle)
{
	return request(u, (struct up_job){ .kind = JOB_UNIX_NAMES, .pid = pid, .handle = handle });
}

void katra_uprobes_request_command(struct katra_uprobes *u, uint32_t pid, const char *path)
{
	if (u && (u->o.wine || u->o.vulkan))
		request(u, (struct up_job){ .kind = JOB_COMMAND, .pid = pid,
					    .path = path ? strdup(path) : NULL });
}

int katra_uprobes_settle(struct katra_uprobes *u, const volatile sig_atomic_t *stop)
{
	unsigned ms = env_ms("KATRA_TEST_SETTLE_MS", SETTLE_MS);
	int rc;

	if (!u || !u->worker_on)
		return 0;
	pthread_mutex_lock(&u->qlock);
	rc = wait_qdone(u, settled, stop, ms);
	pthread_mutex_unlock(&u->qlock);
	if (rc) {
		/* the capture starts without them: what the worker attaches
		 * later is seen from then on */
		snprintf(u->settle_note, sizeof(u->settle_note),
			 "uprobes: the capture started before the worker had probed every file "
			 "(%s): their probes attach later", rc == -EINTR ? "a stop signal"
			 : "still busy after the start's deadline");
		if (!u->o.quiet)
			fprintf(stderr, "katra-record: %s\n", u->settle_note);
	}
	return rc;
}
