// SPDX-License-Identifier: GPL-2.0-only
/* Loader for the floor programs: floor OBJ PID READY_FILE [RING_BYTES [TICK_US]]
 * Loads OBJ, marks PID tracked, attaches every program, creates READY_FILE,
 * then (ring flavour) drains and counts records every TICK_US (1,000: 1 ms)
 * until SIGINT or SIGTERM.  The drain must keep up: a reserve that fails
 * writes nothing, so a floor that drops records measures less than a
 * record's cost (every 10 ms, until 2026-12-07, it dropped 14-29 % of
 * io_uring's and sys1's records from a 4 MiB ring).  Prints {"events":N,"dropped":D,"bytes":B} on stdout. */
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static unsigned long long events;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int count(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	events++;
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec tick = { 0, 1000000 };
	struct ring_buffer *rb = NULL;
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *map, *bss = NULL;
	unsigned long long *bits, *drops = NULL;
	size_t sz;
	int pid, fd, rc = 1;

	if (argc < 4) {
		fprintf(stderr, "usage: floor OBJ PID READY_FILE [RING_BYTES [TICK_US]]\n");
		return 2;
	}
	pid = atoi(argv[2]);
	if (argc > 5) {
		long us = strtol(argv[5], NULL, 0);

		if (us <= 0) {
			fprintf(stderr, "floor: TICK_US must be a positive count of microseconds\n");
			return 2;
		}
		tick.tv_sec = us / 1000000;
		tick.tv_nsec = us % 1000000 * 1000;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "floor: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	bpf_object__for_each_map(map, obj) {
		if (bpf_map__type(map) == BPF_MAP_TYPE_RINGBUF && argc > 4)
			bpf_map__set_max_entries(map, strtoul(argv[4], NULL, 0));
		if (strstr(bpf_map__name(map), ".bss"))
			bss = map;
	}
	if (!bss) {
		fprintf(stderr, "floor: no .bss in '%s'\n", argv[1]);
		goto cleanup;
	}
	/* .bss layout: tracked_bits[PID_LIMIT / 64], then drops; set before
	 * load (copied into the map), read back after load (mmap'ed map) */
	bits = (unsigned long long *)bpf_map__initial_value(bss, &sz);
	bits[pid >> 6] |= 1ull << (pid & 63);
	if (bpf_object__load(obj)) {
		fprintf(stderr, "floor: cannot load '%s'\n", argv[1]);
		goto cleanup;
	}
	drops = &bits[(1u << 22) / 64]; /* refreshed from the map at the end */
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "floor: cannot attach '%s': %s\n",
				bpf_program__name(prog), strerror(errno));
			goto cleanup;
		}
	}
	bpf_object__for_each_map(map, obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_RINGBUF)
			rb = ring_buffer__new(bpf_map__fd(map), count, NULL, NULL);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
	while (!stop) {
		nanosleep(&tick, NULL);
		if (rb)
			ring_buffer__consume(rb);
	}
	if (rb)
		ring_buffer__consume(rb);
	/* libbpf 1.1 maps .bss into user space only for skeletons: look it up */
	if (bpf_map__lookup_elem(bss, &(int){ 0 }, sizeof(int), bits, sz, 0))
		fprintf(stderr, "floor: cannot read the drop counter\n");
	printf("{\"events\":%llu,\"dropped\":%llu,\"bytes\":%llu}\n", events, *drops,
	       events * 48);
	rc = 0;
cleanup:
	ring_buffer__free(rb);
	bpf_object__close(obj);
	return rc;
}
