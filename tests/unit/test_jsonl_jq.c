// SPDX-License-Identifier: GPL-2.0-only
/* dump --jsonl read back by Debian's jq 1.6, which parses numbers as doubles:
 * every 64-bit identifier, address, handle and wall-clock time of a trace
 * built with values above 2^53 comes back from jq exactly (they are decimal
 * strings), and jq -c reprints every line byte for byte (no number it holds
 * was rounded). */
#include "replay_test_util.h"

#define BIG_SPAN ((1ull << 60) + 1)
#define BIG_FILE 10106461514007918706ull
#define KADDR 0xffff888812345678ull /* a kernel pointer, like an io_uring ctx */
#define UDATA 0xdeadbeefcafebabeull
#define UADDR 0x7ffd12345679abcdull

static struct katra_event *with(struct tb *t, uint32_t kind, uint32_t ptype, int64_t span)
{
	struct katra_event *e = tb_ev(t, 1000 * t->seq, 4242, 4243, kind,
				      span >= 0 ? KATRA_PHASE_BEGIN : KATRA_PHASE_INSTANT, -1);

	if (span >= 0)
		e->span_id = (struct katra_opt_u64){ true, BIG_SPAN + (uint64_t)span };
	e->payload.type = ptype;
	return e;
}

/* One event per payload with an id field; ids far above 2^53. */
static void ids_trace(struct tb *t)
{
	struct katra_event *e;

	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	e = with(t, KATRA_KIND_FILE_READ, KATRA_PAYLOAD_FILE_IO, 0);
	e->resource = (struct katra_resource){ KATRA_RES_FILE, BIG_FILE };
	e->request_id = (struct katra_opt_u64){ true, UINT64_MAX };
	e = with(t, KATRA_KIND_MEMORY_MAP, KATRA_PAYLOAD_MEMORY_MAP, 1);
	e->payload.u.memory_map.addr = UADDR;
	e = with(t, KATRA_KIND_MEMORY_UNMAP, KATRA_PAYLOAD_MEMORY_RANGE, 2);
	e->resource = (struct katra_resource){ KATRA_RES_MEMORY, UADDR + 1 };
	e->payload.u.memory_range.addr = UADDR + 1;
	e = with(t, KATRA_KIND_FUTEX, KATRA_PAYLOAD_FUTEX, 3);
	e->resource = (struct katra_resource){ KATRA_RES_FUTEX, UADDR + 2 };
	e->payload.u.futex.uaddr = UADDR + 2;
	e = with(t, KATRA_KIND_PAGE_FAULT, KATRA_PAYLOAD_PAGE_FAULT, -1);
	e->payload.u.page_fault.address = UADDR + 3;
	e->payload.u.page_fault.ip = KADDR + 3;
	e = with(t, KATRA_KIND_IO_URING_SUBMIT, KATRA_PAYLOAD_IO_URING_SUBMIT, -1);
	e->resource = (struct katra_resource){ KATRA_RES_IO_URING, KADDR };
	e->request_id = (struct katra_opt_u64){ true, UDATA };
	e->payload.u.io_uring_submit.ctx = KADDR;
	e->payload.u.io_uring_submit.user_data = UDATA;
	e = with(t, KATRA_KIND_IO_URING_COMPLETE, KATRA_PAYLOAD_IO_URING_COMPLETE, -1);
	e->payload.u.io_uring_complete.ctx = KADDR;
	e->payload.u.io_uring_complete.user_data = UDATA + 1;
	e = with(t, KATRA_KIND_IO_URING_CREATE, KATRA_PAYLOAD_IO_URING_CREATE, -1);
	e->payload.u.io_uring_create.ctx = KADDR + 1;
	e = with(t, KATRA_KIND_NT_READ_FILE, KATRA_PAYLOAD_NT_CALL, 4);
	e->scope = KATRA_SCOPE_WINDOWS_FACING;
	e->resource = (struct katra_resource){ KATRA_RES_WIN_HANDLE, 0xfffffffffffffffeull };
	e->payload.u.nt_call.handle = 0xfffffffffffffffeull;
	e = with(t, KATRA_KIND_VULKAN_QUEUE_SUBMIT, KATRA_PAYLOAD_VULKAN, 5);
	e->scope = KATRA_SCOPE_VULKAN;
	e->resource = (struct katra_resource){ KATRA_RES_VULKAN_QUEUE, KADDR + 9 };
	e->payload.u.vulkan.handle = KADDR + 9;
	tb_counter(t, 20000, 7);
	tb_epoch(t, 30000, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_write(t);
}

/* The id fields of one record as "key=value" words in document order, as
 * the jq program below prints them. */
static void expected_ids(FILE *f, const struct katra_record *r)
{
	const struct katra_event *e = &r->u.event;
	const struct katra_payload *p = &e->payload;

	switch (r->type) {
	case KATRA_RECORD_EPOCH_MARKER:
		fprintf(f, "ts_wall_ns=%llu\n", (unsigned long long)r->u.epoch.ts_wall_ns);
		return;
	case KATRA_RECORD_COUNTER:
		fprintf(f, "ts_wall_ns=%llu\n", (unsigned long long)r->u.counter.ts_wall_ns);
		return;
	}
	fprintf(f, "ts_wall_ns=%llu", (unsigned long long)e->ts_wall_ns);
	if (e->span_id.present)
		fprintf(f, " span_id=%llu", (unsigned long long)e->span_id.value);
	if (e->request_id.present)
		fprintf(f, " request_id=%llu", (unsigned long long)e->request_id.value);
	fprintf(f, " id=%llu", (unsigned long long)e->resource.id);
	switch (p->type) {
	case KATRA_PAYLOAD_MEMORY_MAP:
		fprintf(f, " addr=%llu", (unsigned long long)p->u.memory_map.addr);
		break;
	case KATRA_PAYLOAD_MEMORY_RANGE:
		fprintf(f, " addr=%llu", (unsigned long long)p->u.memory_range.addr);
		break;
	case KATRA_PAYLOAD_FUTEX:
		fprintf(f, " uaddr=%llu", (unsigned long long)p->u.futex.uaddr);
		break;
	case KATRA_PAYLOAD_PAGE_FAULT:
		fprintf(f, " address=%llu ip=%llu", (unsigned long long)p->u.page_fault.address,
			(unsigned long long)p->u.page_fault.ip);
		break;
	case KATRA_PAYLOAD_IO_URING_SUBMIT:
		fprintf(f, " ctx=%llu user_data=%llu", (unsigned long long)p->u.io_uring_submit.ctx,
			(unsigned long long)p->u.io_uring_submit.user_data);
		break;
	case KATRA_PAYLOAD_IO_URING_COMPLETE:
		fprintf(f, " ctx=%llu user_data=%llu",
			(unsigned long long)p->u.io_uring_complete.ctx,
			(unsigned long long)p->u.io_uring_complete.user_data);
		break;
	case KATRA_PAYLOAD_IO_URING_CREATE:
		fprintf(f, " ctx=%llu", (unsigned long long)p->u.io_uring_create.ctx);
		break;
	case KATRA_PAYLOAD_NT_CALL:
		fprintf(f, " handle=%llu", (unsigned long long)p->u.nt_call.handle);
		break;
	case KATRA_PAYLOAD_VULKAN:
		fprintf(f, " handle=%llu", (unsigned long long)p->u.vulkan.handle);
		break;
	}
	putc('\n', f);
}

static char *run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int c;

	cr_assert_not_null(p);
	cr_assert_not_null(out);
	while ((c = getc(p)) != EOF)
		putc(c, out);
	fclose(out);
	cr_assert_eq(pclose(p), 0, "failed: %s", cmd);
	return buf;
}

Test(jsonl_jq, every_id_comes_back_exact_from_jq_1_6)
{
	struct tb t;
	char jsonl[192], cmd[1024];
	struct outcap want;
	char *got;
	FILE *f;

	if (system("jq --version >/dev/null 2>&1"))
		cr_skip_test("jq is not installed");
	tb_init(&t);
	ids_trace(&t);
	snprintf(jsonl, sizeof(jsonl), "%s/t.jsonl", t.dir);
	f = fopen(jsonl, "w");
	cr_assert_not_null(f);
	cr_assert_eq(katra_dump(t.path, f, true, stderr), 0);
	fclose(f);

	oc_open(&want);
	fprintf(want.f, "schema_hash=%llu start_wall_ns=%llu start_mono_ns=%llu\n",
		(unsigned long long)katra_schema_hash,
		(unsigned long long)katra_sample_header()->start_wall_ns,
		(unsigned long long)katra_sample_header()->start_mono_ns);
	for (size_t i = 0; i < t.n; i++)
		expected_ids(want.f, &t.r[i]);
	snprintf(cmd, sizeof(cmd),
		 "jq -r '[paths(type == \"string\") as $p | select($p[-1] | tostring | "
		 "test(\"^(schema_hash|start_wall_ns|start_mono_ns|ts_wall_ns|span_id|request_id|"
		 "id|addr|uaddr|address|ip|ctx|user_data|handle)$\")) | "
		 "\"\\($p[-1])=\\(getpath($p))\"] | join(\" \")' '%s'", jsonl);
	got = run(cmd);
	cr_assert_str_eq(got, oc_text(&want));
	free(got);
	oc_free(&want);

	/* jq -c reprints each line byte for byte: no number was rounded */
	snprintf(cmd, sizeof(cmd), "jq -c . '%s' | cmp - '%s' && echo same", jsonl, jsonl);
	got = run(cmd);
	cr_assert_str_eq(got, "same\n");
	free(got);
	tb_cleanup(&t);
}

Test(jsonl_jq, a_plain_number_above_2_53_would_be_rounded)
{
	char *got;

	if (system("jq --version >/dev/null 2>&1"))
		cr_skip_test("jq is not installed");
	/* the reason for the strings: this is what jq 1.6 does to a number */
	got = run("echo '{\"id\":10106461514007918706,\"s\":\"10106461514007918706\"}' | "
		  "jq -r '\"\\(.id) \\(.s)\"'");
	cr_assert_str_neq(got, "10106461514007918706 10106461514007918706\n");
	cr_assert(strstr(got, " 10106461514007918706\n"), "%s", got);
	free(got);
}
