// SPDX-License-Identifier: GPL-2.0-only
/* Variant names exactly as format/schema.txt spells them (dump, JSONL, stats
 * and error messages all use these). */
#include <string.h>

#include "katra/format.h"

#define NAME_FN(fn, table)                                              \
	const char *fn(uint32_t v)                                      \
	{                                                               \
		return v < sizeof(table) / sizeof(table[0]) ? table[v] : NULL; \
	}

static const char *const scope_names[] = {
	"WindowsFacing", "WineProton", "Linux", "D3d12Vkd3d", "Vulkan", "Gpu", "Katra",
};
static const char *const phase_names[] = { "Instant", "Begin", "End" };
static const char *const confidence_names[] = { "Measured", "Inferred", "Estimated" };
static const char *const kind_names[] = {
	"Syscall", "FileRead", "FileWrite", "FileOpen", "FileClose",
	"MemoryMap", "MemoryUnmap", "MemoryProtect", "MemoryAdvise", "Futex",
	"EpollWait", "Poll", "Sleep", "IoUringEnter", "SocketSend",
	"SocketRecv", "Execve", "Clone", "TaskFork", "TaskExec",
	"TaskExit", "OffCpu", "Wakeup", "PageFault", "IoUringSubmit",
	"IoUringComplete", "IoUringCreate", "NtReadFile", "NtWriteFile", "NtCreateFile",
	"NtWait", "NtDelayExecution", "NtMapViewOfSection", "NtAllocateVirtualMemory",
	"NtCreateUserProcess", "WineServerCall", "WinToUnix", "VulkanQueueSubmit",
	"VulkanQueuePresent", "VulkanFenceWait", "Epoch", "Counter", "Drop", "ProcessInfo",
	"NtSyscall", "WineServerRequests", "TaskRename", "WineUnixCallNames",
	"D3d12ExecuteCommandLists", "D3d12QueueSignal", "D3d12QueueWait",
	"D3d12FenceSetEventOnCompletion", "D3d12FenceSignal", "VulkanSemaphoreWait",
	"VulkanAcquireNextImage",
};
static const char *const domain_names[] = {
	"None", "File", "Futex", "Memory", "Thread", "Process", "IoUring", "Socket",
	"WinHandle", "VulkanQueue", "Ring", "Pipe", "AnonInode", "D3d12Object",
};
static const char *const anon_dnames[] = {
	NULL, "[eventfd]", "[eventpoll]", "[timerfd]", "[signalfd]", "inotify", "[fanotify]",
	"[io_uring]", "[userfaultfd]", "[pidfd]", "[perf_event]", "bpf-map", "bpf-prog",
	"bpf_link",
};
static const char *const drop_source_names[] = {
	"RingReserve", "SpanTable", "WakeupTable", "IoUringTable", "Reorder", "KernelTable",
	"ProgramSkipped",
};
static const char *const epoch_kind_names[] = {
	"CaptureStart", "CaptureEnd", "Signal", "Fifo", "User", "Frame",
};
static const char *const counter_kind_names[] = {
	"EventsRecorded", "EventsDropped", "RingFillBytes", "RingCapacityBytes", "OpenSpans",
	"BytesWritten",
};
static const char *const payload_names[] = {
	"None", "Syscall", "SyscallReturn", "FileIo", "FileOpen", "FileClose", "MemoryMap",
	"MemoryRange", "Futex", "Wait", "IoUringEnter", "SocketMsg", "Execve", "Clone",
	"TaskFork", "TaskExec", "TaskExit", "Switch", "Wakeup", "PageFault", "IoUringSubmit",
	"IoUringComplete", "IoUringCreate", "NtCall", "WineServerCall", "Vulkan", "Drop",
	"ProcessInfo", "NtSyscall", "WineServerRequests", "TaskRename", "D3d12",
};
static const char *const origin_names[] = {
	"Target", "Command", "Descendant", "Forked", "WineSession", "WineJoined",
};
static const char *const record_names[] = {
	"Event", "EpochMarker", "Counter", "SessionSummary",
};

_Static_assert(sizeof(scope_names) / sizeof(*scope_names) == KATRA_SCOPE_COUNT, "scope");
_Static_assert(sizeof(kind_names) / sizeof(*kind_names) == KATRA_KIND_COUNT, "kind");
_Static_assert(sizeof(domain_names) / sizeof(*domain_names) == KATRA_RES_COUNT, "domain");
_Static_assert(sizeof(anon_dnames) / sizeof(*anon_dnames) == KATRA_ANON_COUNT, "anon inode");
_Static_assert(sizeof(payload_names) / sizeof(*payload_names) == KATRA_PAYLOAD_COUNT, "payload");
_Static_assert(sizeof(drop_source_names) / sizeof(*drop_source_names) == KATRA_DROP_SOURCE_COUNT,
	       "drop source");
_Static_assert(sizeof(counter_kind_names) / sizeof(*counter_kind_names) ==
	       KATRA_COUNTER_KIND_COUNT, "counter kind");
_Static_assert(sizeof(origin_names) / sizeof(*origin_names) == KATRA_ORIGIN_COUNT, "origin");
_Static_assert(sizeof(epoch_kind_names) / sizeof(*epoch_kind_names) == KATRA_EPOCH_KIND_COUNT,
	       "epoch kind");

NAME_FN(katra_scope_name, scope_names)
NAME_FN(katra_phase_name, phase_names)
NAME_FN(katra_confidence_name, confidence_names)
NAME_FN(katra_kind_name, kind_names)
NAME_FN(katra_resource_domain_name, domain_names)
NAME_FN(katra_drop_source_name, drop_source_names)
NAME_FN(katra_epoch_kind_name, epoch_kind_names)
NAME_FN(katra_counter_kind_name, counter_kind_names)
NAME_FN(katra_payload_name, payload_names)
NAME_FN(katra_record_type_name, record_names)
NAME_FN(katra_process_origin_name, origin_names)

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
