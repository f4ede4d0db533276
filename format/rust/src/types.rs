// SPDX-License-Identifier: GPL-2.0-only
//! The Katra trace format v1 types, field for field as format/SPEC.md and
//! format/schema.txt give them.  serde's derive encodes struct fields in
//! declaration order and enum variants by declaration position, so the order
//! here IS the wire format: never reorder, only append variants.

use serde::{Deserialize, Serialize};

/// Declares a unit-only enum whose declaration order equals the explicit
/// schema indices, plus the tables the coverage check needs.  The explicit
/// discriminants let a test prove that serde's variant index (declaration
/// position) equals the index schema.txt gives.
macro_rules! unit_enum {
    ($(#[$meta:meta])* $name:ident { $($idx:literal $var:ident),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord,
                 Hash)]
        pub enum $name {
            $($var = $idx),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$var),+];
            pub const NAMES: &'static [&'static str] = &[$(stringify!($var)),+];

            pub fn name(self) -> &'static str {
                match self {
                    $($name::$var => stringify!($var)),+
                }
            }

            pub fn index(self) -> u32 {
                self as u32
            }
        }
    };
}

// ---- header ----

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct TraceHeader {
    pub format_version: u32,
    pub schema_hash: u64,
    pub tool_version: String,
    pub capture_options: CaptureOptions,
    pub start_wall_ns: u64,
    pub start_mono_ns: u64,
    pub process_id: u64,
    pub workload: String,
    pub host: HostInfo,
    pub notes: Vec<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct CaptureOptions {
    pub target_pids: Vec<u64>,
    pub follow_children: bool,
    pub record_paths: bool,
    pub buffer_size_bytes: u64,
    pub duration_limit_ns: Option<u64>,
    pub counter_interval_ns: u64,
    pub reorder_window_ns: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct HostInfo {
    pub hostname: String,
    pub os: String,
    pub kernel_release: String,
    pub machine: String,
    pub cpu_count: u32,
    pub page_size: u32,
}

// ---- records ----

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub enum TraceRecord {
    Event(TraceEvent),
    EpochMarker(EpochMarker),
    Counter(Counter),
    SessionSummary(TraceSummary),
    Module(Module),
    Stack(Stack),
    StackOf(StackOf),
    Symbols(Symbols),
}

impl TraceRecord {
    pub const NAMES: &'static [&'static str] =
        &["Event", "EpochMarker", "Counter", "SessionSummary", "Module", "Stack", "StackOf",
          "Symbols"];

    pub fn index(&self) -> u32 {
        match self {
            TraceRecord::Event(_) => 0,
            TraceRecord::EpochMarker(_) => 1,
            TraceRecord::Counter(_) => 2,
            TraceRecord::SessionSummary(_) => 3,
            TraceRecord::Module(_) => 4,
            TraceRecord::Stack(_) => 5,
            TraceRecord::StackOf(_) => 6,
            TraceRecord::Symbols(_) => 7,
        }
    }

    pub fn name(&self) -> &'static str {
        Self::NAMES[self.index() as usize]
    }

    /// The record's seq; a SessionSummary and the stack records have none.
    pub fn seq(&self) -> Option<u64> {
        match self {
            TraceRecord::Event(e) => Some(e.seq),
            TraceRecord::EpochMarker(m) => Some(m.seq),
            TraceRecord::Counter(c) => Some(c.seq),
            TraceRecord::SessionSummary(_)
            | TraceRecord::Module(_)
            | TraceRecord::Stack(_)
            | TraceRecord::StackOf(_)
            | TraceRecord::Symbols(_) => None,
        }
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct TraceEvent {
    pub seq: u64,
    pub ts_mono_ns: u64,
    pub ts_wall_ns: u64,
    pub thread_id: u64,
    pub process_id: u64,
    pub scope: Scope,
    pub kind: EventKind,
    pub phase: Phase,
    pub span_id: Option<u64>,
    pub request_id: Option<u64>,
    pub causes: Vec<u64>,
    pub resource: Resource,
    pub payload: Payload,
    pub cost_estimate_ns: Option<u64>,
    pub confidence: Confidence,
}

unit_enum!(Scope {
    0 WindowsFacing, 1 WineProton, 2 Linux, 3 D3d12Vkd3d, 4 Vulkan, 5 Gpu, 6 Katra
});

unit_enum!(Phase { 0 Instant, 1 Begin, 2 End });

unit_enum!(Confidence { 0 Measured, 1 Inferred, 2 Estimated });

unit_enum!(EventKind {
    0 Syscall, 1 FileRead, 2 FileWrite, 3 FileOpen, 4 FileClose, 5 MemoryMap, 6 MemoryUnmap,
    7 MemoryProtect, 8 MemoryAdvise, 9 Futex, 10 EpollWait, 11 Poll, 12 Sleep, 13 IoUringEnter,
    14 SocketSend, 15 SocketRecv, 16 Execve, 17 Clone, 18 TaskFork, 19 TaskExec, 20 TaskExit,
    21 OffCpu, 22 Wakeup, 23 PageFault, 24 IoUringSubmit, 25 IoUringComplete, 26 IoUringCreate,
    27 NtReadFile, 28 NtWriteFile, 29 NtCreateFile, 30 NtWait, 31 NtDelayExecution,
    32 NtMapViewOfSection, 33 NtAllocateVirtualMemory, 34 NtCreateUserProcess,
    35 WineServerCall, 36 WinToUnix, 37 VulkanQueueSubmit, 38 VulkanQueuePresent,
    39 VulkanFenceWait, 40 Epoch, 41 Counter, 42 Drop, 43 ProcessInfo, 44 NtSyscall,
    45 WineServerRequests, 46 TaskRename, 47 WineUnixCallNames, 48 D3d12ExecuteCommandLists,
    49 D3d12QueueSignal, 50 D3d12QueueWait, 51 D3d12FenceSetEventOnCompletion,
    52 D3d12FenceSignal, 53 VulkanSemaphoreWait, 54 VulkanAcquireNextImage, 55 GpuFenceInit,
    56 GpuFenceEmit, 57 GpuFenceEnableSignal, 58 GpuFenceSignaled, 59 GpuFenceWait,
    60 GpuFenceDestroy, 61 GpuTimeline, 62 GpuJobQueue, 63 GpuJobRun, 64 GpuJobDone,
    65 GpuVblank, 66 GpuVblankQueued, 67 GpuVblankDelivered, 68 GpuCmdQueue,
    69 GpuCmdResponse
});

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resource {
    pub domain: ResourceDomain,
    pub id: u64,
}

unit_enum!(ResourceDomain {
    0 None, 1 File, 2 Futex, 3 Memory, 4 Thread, 5 Process, 6 IoUring, 7 Socket, 8 WinHandle,
    9 VulkanQueue, 10 Ring, 11 Pipe, 12 AnonInode, 13 D3d12Object, 14 GpuTimeline,
    15 DisplayCrtc
});

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    None,
    Syscall(SyscallPayload),
    SyscallReturn(SyscallReturnPayload),
    FileIo(FileIoPayload),
    FileOpen(FileOpenPayload),
    FileClose(FileClosePayload),
    MemoryMap(MemoryMapPayload),
    MemoryRange(MemoryRangePayload),
    Futex(FutexPayload),
    Wait(WaitPayload),
    IoUringEnter(IoUringEnterPayload),
    SocketMsg(SocketMsgPayload),
    Execve(ExecvePayload),
    Clone(ClonePayload),
    TaskFork(TaskForkPayload),
    TaskExec(TaskExecPayload),
    TaskExit(TaskExitPayload),
    Switch(SwitchPayload),
    Wakeup(WakeupPayload),
    PageFault(PageFaultPayload),
    IoUringSubmit(IoUringSubmitPayload),
    IoUringComplete(IoUringCompletePayload),
    IoUringCreate(IoUringCreatePayload),
    NtCall(NtCallPayload),
    WineServerCall(WineServerCallPayload),
    Vulkan(VulkanPayload),
    Drop(DropPayload),
    ProcessInfo(ProcessInfoPayload),
    NtSyscall(NtSyscallPayload),
    WineServerRequests(WineServerRequestsPayload),
    TaskRename(TaskRenamePayload),
    D3d12(D3d12Payload),
    WakeupOutside(WakeupOutsidePayload),
    GpuFence(GpuFencePayload),
    GpuTimeline(GpuTimelinePayload),
    GpuVblank(GpuVblankPayload),
    GpuCmd(GpuCmdPayload),
}

impl Payload {
    pub const NAMES: &'static [&'static str] = &[
        "None",
        "Syscall",
        "SyscallReturn",
        "FileIo",
        "FileOpen",
        "FileClose",
        "MemoryMap",
        "MemoryRange",
        "Futex",
        "Wait",
        "IoUringEnter",
        "SocketMsg",
        "Execve",
        "Clone",
        "TaskFork",
        "TaskExec",
        "TaskExit",
        "Switch",
        "Wakeup",
        "PageFault",
        "IoUringSubmit",
        "IoUringComplete",
        "IoUringCreate",
        "NtCall",
        "WineServerCall",
        "Vulkan",
        "Drop",
        "ProcessInfo",
        "NtSyscall",
        "WineServerRequests",
        "TaskRename",
        "D3d12",
        "WakeupOutside",
        "GpuFence",
        "GpuTimeline",
        "GpuVblank",
        "GpuCmd",
    ];

    pub fn index(&self) -> u32 {
        use Payload::*;
        match self {
            None => 0,
            Syscall(_) => 1,
            SyscallReturn(_) => 2,
            FileIo(_) => 3,
            FileOpen(_) => 4,
            FileClose(_) => 5,
            MemoryMap(_) => 6,
            MemoryRange(_) => 7,
            Futex(_) => 8,
            Wait(_) => 9,
            IoUringEnter(_) => 10,
            SocketMsg(_) => 11,
            Execve(_) => 12,
            Clone(_) => 13,
            TaskFork(_) => 14,
            TaskExec(_) => 15,
            TaskExit(_) => 16,
            Switch(_) => 17,
            Wakeup(_) => 18,
            PageFault(_) => 19,
            IoUringSubmit(_) => 20,
            IoUringComplete(_) => 21,
            IoUringCreate(_) => 22,
            NtCall(_) => 23,
            WineServerCall(_) => 24,
            Vulkan(_) => 25,
            Drop(_) => 26,
            ProcessInfo(_) => 27,
            NtSyscall(_) => 28,
            WineServerRequests(_) => 29,
            TaskRename(_) => 30,
            D3d12(_) => 31,
            WakeupOutside(_) => 32,
            GpuFence(_) => 33,
            GpuTimeline(_) => 34,
            GpuVblank(_) => 35,
            GpuCmd(_) => 36,
        }
    }

    pub fn name(&self) -> &'static str {
        Self::NAMES[self.index() as usize]
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct SyscallPayload {
    pub nr: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct SyscallReturnPayload {
    pub nr: u32,
    pub ret: i64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct FileIoPayload {
    pub fd: i32,
    pub count: u64,
    pub offset: Option<u64>,
    pub iov_count: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct FileOpenPayload {
    pub dirfd: i32,
    pub flags: u32,
    pub mode: u32,
    pub path: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct FileClosePayload {
    pub fd: i32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct MemoryMapPayload {
    pub addr: u64,
    pub len: u64,
    pub prot: u32,
    pub flags: u32,
    pub fd: i32,
    pub offset: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct MemoryRangePayload {
    pub addr: u64,
    pub len: u64,
    pub arg: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct FutexPayload {
    pub uaddr: u64,
    pub op: u32,
    pub val: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct WaitPayload {
    pub handle: i64,
    pub count: u32,
    pub timeout_ns: Option<u64>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct IoUringEnterPayload {
    pub fd: i32,
    pub to_submit: u32,
    pub min_complete: u32,
    pub flags: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct SocketMsgPayload {
    pub fd: i32,
    pub flags: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct ExecvePayload {
    pub path: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct ClonePayload {
    pub flags: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct TaskForkPayload {
    pub parent_pid: u64,
    pub parent_tid: u64,
    pub child_pid: u64,
    pub child_tid: u64,
    pub is_thread: bool,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct TaskExecPayload {
    pub old_tid: u64,
    pub path: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct TaskExitPayload {
    pub exit_code: i32,
    pub group_dead: bool,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct SwitchPayload {
    pub cpu: u32,
    pub prev_state: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct WakeupPayload {
    pub target_tid: u64,
    pub target_pid: u64,
    pub target_cpu: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct PageFaultPayload {
    pub address: u64,
    pub ip: u64,
    pub error_code: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct IoUringSubmitPayload {
    pub ctx: u64,
    pub user_data: u64,
    pub opcode: u32,
    pub flags: u32,
    pub fd: i32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct IoUringCompletePayload {
    pub ctx: u64,
    pub user_data: u64,
    pub res: i32,
    pub cflags: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct IoUringCreatePayload {
    pub ctx: u64,
    pub fd: i32,
    pub sq_entries: u32,
    pub cq_entries: u32,
    pub flags: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct NtCallPayload {
    pub handle: u64,
    pub length: u64,
    pub offset: Option<u64>,
    pub status: Option<u32>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct WineServerCallPayload {
    pub request: u32,
    pub status: Option<u32>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct VulkanPayload {
    pub handle: u64,
    pub count: u32,
    pub result: Option<i32>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct DropPayload {
    pub source: DropSource,
    pub instance: u32,
    pub count: u64,
}

unit_enum!(DropSource {
    0 RingReserve, 1 SpanTable, 2 WakeupTable, 3 IoUringTable, 4 Reorder, 5 KernelTable,
    6 ProgramSkipped, 7 Stacks
});

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct ProcessInfoPayload {
    pub comm: String,
    pub exe_path: Option<String>,
    pub windows_image: Option<String>,
    pub origin: ProcessOrigin,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct NtSyscallPayload {
    pub number: u32,
    pub name: Option<String>,
    pub status: Option<u32>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct WineServerRequestsPayload {
    pub names: Vec<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct TaskRenamePayload {
    pub comm: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct D3d12Payload {
    pub object: u64,
    pub fence: u64,
    pub value: u64,
    pub count: u32,
    pub event: u64,
    pub result: Option<i32>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct WakeupOutsidePayload {
    pub target_tid: u64,
    pub target_pid: u64,
    pub target_cpu: u32,
    pub waker_pid: u64,
    pub waker_tid: u64,
    pub waker_comm: String,
    pub context: WakerContext,
}

unit_enum!(WakerContext { 0 Task, 1 Interrupt });

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct GpuFencePayload {
    pub context: u64,
    pub seqno: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct GpuTimelinePayload {
    pub context: u64,
    pub driver: String,
    pub timeline: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct GpuVblankPayload {
    pub crtc: u64,
    pub sequence: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct GpuCmdPayload {
    pub cmd_type: u32,
    pub flags: u32,
    pub fence_id: u64,
    pub ctx_id: u32,
}

unit_enum!(ProcessOrigin {
    0 Target, 1 Command, 2 Descendant, 3 Forked, 4 WineSession, 5 WineJoined
});

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct EpochMarker {
    pub seq: u64,
    pub ts_mono_ns: u64,
    pub ts_wall_ns: u64,
    pub epoch: u64,
    pub kind: EpochKind,
    pub name: String,
}

unit_enum!(EpochKind { 0 CaptureStart, 1 CaptureEnd, 2 Signal, 3 Fifo, 4 User, 5 Frame });

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Counter {
    pub seq: u64,
    pub ts_mono_ns: u64,
    pub ts_wall_ns: u64,
    pub kind: CounterKind,
    pub instance: u32,
    pub value: u64,
}

unit_enum!(CounterKind {
    0 EventsRecorded, 1 EventsDropped, 2 RingFillBytes, 3 RingCapacityBytes, 4 OpenSpans,
    5 BytesWritten, 6 GpuOtherFences, 7 GpuOtherFenceNs, 8 GpuOtherBusyNs, 9 GpuOtherJobs,
    10 GpuOtherRingBusyNs, 11 GpuTimelineBusyNs, 12 GpuRingBusyNs
});

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct TraceSummary {
    pub event_count: u64,
    pub epoch_count: u64,
    pub counter_count: u64,
    pub duration_ns: u64,
    pub events_by_kind: Vec<KindCount>,
    pub dropped_events: u64,
    pub drops: Vec<DropCount>,
    pub inferred_events: u64,
    pub probes_attached: Vec<String>,
    pub probes_failed: Vec<String>,
    pub processes_seen: u64,
    pub threads_seen: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct KindCount {
    pub kind: EventKind,
    pub count: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct DropCount {
    pub source: DropSource,
    pub instance: u32,
    pub count: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Module {
    pub id: u32,
    pub name: String,
    pub build_id: String,
    pub pe: Option<PeIdentity>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct PeIdentity {
    pub time_date_stamp: u32,
    pub size_of_image: u32,
    pub pdb_guid: String,
    pub pdb_age: u32,
    pub pdb_name: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Stack {
    pub id: u64,
    pub frames: Vec<StackFrame>,
    pub kernel: Vec<String>,
    pub truncated: bool,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct StackFrame {
    pub module: u32,
    pub address: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct StackOf {
    pub stack_id: u64,
    pub thread_id: u64,
    pub process_id: u64,
    pub begin_ns: u64,
    pub duration_ns: u64,
    pub site: StackSite,
}

unit_enum!(StackSite { 0 OffCpu, 1 Syscall, 2 Sample });

/// A module's stack addresses named by the recorder from the file the
/// process mapped (function names only, no paths).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Symbols {
    pub module: u32,
    pub names: Vec<SymbolName>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct SymbolName {
    pub address: u64,
    pub name: String,
    pub offset: u64,
}
