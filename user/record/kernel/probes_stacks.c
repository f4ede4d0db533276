// SPDX-License-Identifier: GPL-2.0-only
/* Call stacks (--stacks): the stack maps sized, the stack ring read, the
 * kernel stacks looked up (bpf/stacks.bpf.h says what the probe keeps). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "katra.skel.h"
#include "probes_int.h"

#define STACK_RING_BYTES (16u << 20)

/* The stack ring's size: KATRA_TEST_STACK_RING_BYTES (a power of two, 4 KiB
 * or more: tests that make it overflow), else STACK_RING_BYTES */
static uint32_t stack_ring_bytes(void)
{
	const char *s = getenv("KATRA_TEST_STACK_RING_BYTES");
	char *end;
	unsigned long v = s ? strtoul(s, &end, 0) : 0;

	if (!s || *end || v < 4096 || v > STACK_RING_BYTES || (v & (v - 1)))
		return STACK_RING_BYTES;
	return (uint32_t)v;
}

/* The kernel-stack map's entries: KATRA_TEST_KSTACK_ENTRIES (1 or more:
 * tests that make it refuse stacks, a bucket taken by another), else the
 * object's */
static int kstack_entries(struct katra_probes *p)
{
	const char *s = getenv("KATRA_TEST_KSTACK_ENTRIES");
	char *end;
	unsigned long v = s ? strtoul(s, &end, 0) : 0;

	if (!s || *end || !v || v > bpf_map__max_entries(p->skel->maps.kstacks))
		return 0;
	return bpf_map__set_max_entries(p->skel->maps.kstacks, (uint32_t)v);
}

struct katra_stack_reader {
	struct ring_buffer *rb;
	int (*cb)(void *ctx, void *data, size_t size);
	void *ctx;
};

/* kernel.perf_event_max_stack: the kernel refuses a stack map whose values
 * hold more frames (and walks no deeper); KATRA_STACK_KDEPTH where it cannot
 * be read */
static uint32_t kstack_limit(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "re");
	unsigned v = KATRA_STACK_KDEPTH;

	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = KATRA_STACK_KDEPTH;
		fclose(f);
	}
	return v < KATRA_STACK_KDEPTH ? v : KATRA_STACK_KDEPTH;
}

int pk_stacks_size(struct katra_probes *p, bool on, uint32_t sample_hz)
{
	int err = 0;

	/* off: no kernel-stack map at all (the programs' references to it are
	 * dead code, which libbpf poisons): it would hold the kernel's call-chain
	 * buffers and load only under a sysctl of 1 or more; on: as deep as the
	 * machine allows, said in the notes */
	p->kstack_depth = on ? kstack_limit() : 0;
	if (on && !p->kstack_depth) {
		fprintf(stderr, "katra-record: --stacks needs kernel.perf_event_max_stack 1 or more "
			"(it is 0): raise it with sysctl\n");
		return -EINVAL;
	}
	err = on ? bpf_map__set_value_size(p->skel->maps.kstacks,
					   p->kstack_depth * sizeof(uint64_t))
		 : bpf_map__set_autocreate(p->skel->maps.kstacks, false);
	if (!err && on)
		err = kstack_entries(p);
	if (err)
		return err;
	if (on && p->kstack_depth < KATRA_STACK_KDEPTH && !p->quiet)
		fprintf(stderr, "katra-record: kernel stacks at most %u frames deep "
			"(kernel.perf_event_max_stack)\n", p->kstack_depth);

	p->sample_hz = on ? sample_hz : 0;
	bpf_program__set_autoload(p->skel->progs.pe_stack_sample, p->sample_hz > 0);
	p->skel->rodata->sample_period_ns = p->sample_hz ? 1000000000ull / p->sample_hz : 0;

	/* off: the programs never touch them (record_stacks is rodata), but
	 * every other map a program names must exist */
	if (!on) {
		err = bpf_map__set_max_entries(p->skel->maps.stack_slots, 1);
		if (!err)
			err = bpf_map__set_max_entries(p->skel->maps.stack_ring, 4096);
	} else {
		uint32_t ring = stack_ring_bytes();

		err = bpf_map__set_max_entries(p->skel->maps.stack_ring, ring);
		p->skel->rodata->stack_wakeup_bytes = ring / 4;
	}
	return err;
}

static int on_stack(void *ctx, void *data, size_t size)
{
	struct katra_stack_reader *r = ctx;

	return r->cb(r->ctx, data, size);
}

int katra_probes_stack_reader(struct katra_probes *p,
			      int (*cb)(void *ctx, void *data, size_t size), void *ctx,
			      struct katra_stack_reader **out)
{
	struct katra_stack_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->cb = cb;
	r->ctx = ctx;
	r->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.stack_ring), on_stack, r, NULL);
	if (!r->rb) {
		int err = -errno;

		free(r);
		return err ? err : -EINVAL;
	}
	*out = r;
	return 0;
}

int katra_probes_stack_poll(struct katra_stack_reader *r, int timeout_ms)
{
	/* past a quarter full the ring stops waking its reader (stack_wakeup):
	 * what is there is read after each wait, woken or not */
	int n = ring_buffer__poll(r->rb, timeout_ms);

	if (n < 0 && n != -EINTR)
		return n;
	int m = ring_buffer__consume(r->rb);
	return m < 0 ? m : (n > 0 ? n : 0) + m;
}

void katra_probes_stack_reader_free(struct katra_stack_reader *r)
{
	if (!r)
		return;
	ring_buffer__free(r->rb);
	free(r);
}

int katra_probes_kstack(const struct katra_probes *p, int32_t id, uint64_t *ips)
{
	if (id < 0)
		return -ENOENT;
	/* the map's values hold kstack_depth frames: 0 past them */
	memset(ips, 0, KATRA_STACK_KDEPTH * sizeof(*ips));
	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.kstacks), &id, ips))
		return -errno;
	return 0;
}

int katra_probes_sample_start(struct katra_probes *p)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK, .freq = 1, .sample_freq = p->sample_hz,
	};
	int ncpu = libbpf_num_possible_cpus(), err = 0;

	if (!p->sample_hz || p->sample_links)
		return 0;
	if (ncpu < 0)
		return ncpu;
	p->sample_links = calloc(ncpu, sizeof(*p->sample_links));
	if (!p->sample_links)
		return -ENOMEM;
	for (int cpu = 0; cpu < ncpu && !err; cpu++) {
		/* every task on the CPU: the program keeps the traced ones */
		int fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			if (errno == ENODEV) /* possible, not online */
				continue;
			err = -errno;
			break;
		}
		struct bpf_link *l = bpf_program__attach_perf_event(p->skel->progs.pe_stack_sample, fd);
		if (!l) {
			err = -errno;
			close(fd);
			break;
		}
		p->sample_links[p->nsample_links++] = l; /* the link owns fd */
	}
	if (err) {
		fprintf(stderr, "katra-record: cannot start the timer samples (--sample-hz): %s "
			"(perf_event_open needs root or CAP_PERFMON; a hypervisor may offer no "
			"timer events)\n", strerror(-err));
		pk_sample_stop(p);
	}
	return err;
}

void pk_sample_stop(struct katra_probes *p)
{
	for (int i = 0; i < p->nsample_links; i++)
		bpf_link__destroy(p->sample_links[i]);
	free(p->sample_links);
	p->sample_links = NULL;
	p->nsample_links = 0;
}

void katra_probes_stack_drops(const struct katra_probes *p, uint64_t drops[2])
{
	for (int i = 0; i < 2; i++)
		drops[i] = __atomic_load_n(&p->skel->bss->stack_drops[i], __ATOMIC_RELAXED);
}
