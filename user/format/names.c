// SPDX-License-Identifier: GPL-2.0-only
/* Variant names exactly as format/schema.txt spells them (dump, JSONL, stats
 * and error messages all use these): the tables are generated from the
 * schema (build/gen/format_names.h, tools/gen-names.c); the asserts hold
 * them to format.h's COUNT constants, so a variant appended to schema.txt
 * and not to the C enum fails the build. */
#include <string.h>

#include "katra/format.h"
#include "format_names.h"

#define NAME_FN(fn, table)                                              \
	const char *fn(uint32_t v)                                      \
	{                                                               \
		return v < sizeof(table) / sizeof(table[0]) ? table[v] : NULL; \
	}

/* The AnonInode ids' dentry names (SPEC 5.3; a comment in schema.txt). */
static const char *const anon_dnames[] = {
	NULL, "[eventfd]", "[eventpoll]", "[timerfd]", "[signalfd]", "inotify", "[fanotify]",
	"[io_uring]", "[userfaultfd]", "[pidfd]", "[perf_event]", "bpf-map", "bpf-prog",
	"bpf_link",
};

#define COUNT_IS(table, count) \
	_Static_assert(sizeof(table) / sizeof(*table) == (count), #table " has " #count " names")

COUNT_IS(katra_names_TraceRecord, KATRA_RECORD_COUNT);
COUNT_IS(katra_names_Scope, KATRA_SCOPE_COUNT);
COUNT_IS(katra_names_Phase, KATRA_PHASE_COUNT);
COUNT_IS(katra_names_Confidence, KATRA_CONFIDENCE_COUNT);
COUNT_IS(katra_names_EventKind, KATRA_KIND_COUNT);
COUNT_IS(katra_names_ResourceDomain, KATRA_RES_COUNT);
COUNT_IS(katra_names_Payload, KATRA_PAYLOAD_COUNT);
COUNT_IS(katra_names_DropSource, KATRA_DROP_SOURCE_COUNT);
COUNT_IS(katra_names_ProcessOrigin, KATRA_ORIGIN_COUNT);
COUNT_IS(katra_names_WakerContext, KATRA_WAKER_CONTEXT_COUNT);
COUNT_IS(katra_names_EpochKind, KATRA_EPOCH_KIND_COUNT);
COUNT_IS(katra_names_CounterKind, KATRA_COUNTER_KIND_COUNT);
COUNT_IS(katra_names_StackSite, KATRA_STACK_SITE_COUNT);
COUNT_IS(anon_dnames, KATRA_ANON_COUNT);

NAME_FN(katra_scope_name, katra_names_Scope)
NAME_FN(katra_phase_name, katra_names_Phase)
NAME_FN(katra_confidence_name, katra_names_Confidence)
NAME_FN(katra_kind_name, katra_names_EventKind)
NAME_FN(katra_resource_domain_name, katra_names_ResourceDomain)
NAME_FN(katra_drop_source_name, katra_names_DropSource)
NAME_FN(katra_epoch_kind_name, katra_names_EpochKind)
NAME_FN(katra_counter_kind_name, katra_names_CounterKind)
NAME_FN(katra_payload_name, katra_names_Payload)
NAME_FN(katra_record_type_name, katra_names_TraceRecord)
NAME_FN(katra_process_origin_name, katra_names_ProcessOrigin)
NAME_FN(katra_stack_site_name, katra_names_StackSite)
NAME_FN(katra_waker_context_name, katra_names_WakerContext)

const char *katra_anon_inode_dname(uint64_t id)
{
	return id < KATRA_ANON_COUNT ? anon_dnames[id] : NULL;
}

uint64_t katra_anon_inode_of(const char *name, size_t len)
{
	size_t n = strnlen(name, len);

	for (uint64_t i = 1; i < KATRA_ANON_COUNT; i++)
		if (strlen(anon_dnames[i]) == n && !memcmp(anon_dnames[i], name, n))
			return i;
	return KATRA_ANON_OTHER;
}
