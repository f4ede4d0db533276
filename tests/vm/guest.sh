#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The checks that run inside a guest (busybox sh; started by /init).
#
# usage: sh /guest.sh SUITE     basic: the syscalls, select and threadnames captures (2 vCPUs)
#                               scale: storm, exit storm, execthread (16 vCPUs)
#
# Each check prints one machine-readable line for the host (tests/vm/run.sh):
#   KATRA-VM name=KERNEL/CHECK rc=0|1 key=value ...
# followed by `KATRA-VM-WHY name=... text` for each reason it failed and
# `KATRA-VM-NOTE name=... text` for each note in the trace header (what the
# recorder says this kernel lacks).  The recorder's stderr of a failed run is
# echoed with a `KATRA-VM-LOG name=...` prefix, for the saved console log.
# Timings inside TCG mean nothing: none is checked.
set -u
K=/katra
WL=$K/workloads
kernel=$(uname -r | cut -d. -f1,2)
# seconds any one recorder run may take in the guest (TCG is slow; the host's
# per-guest timeout is the backstop)
step_timeout=240
status=0

# result NAME RC FACTS_FILE WHY_FILE: the result lines of one check
result()
{
	local name=$kernel/$1 rc=$2 facts why
	facts=$(grep -v -e '^FAIL ' -e '^NOTE ' "$3" 2>/dev/null | tr '\n' ' ')
	echo "KATRA-VM name=$name rc=$rc $facts"
	grep '^FAIL ' "$3" 2>/dev/null | sed "s|^FAIL |KATRA-VM-WHY name=$name |"
	sed "s|^|KATRA-VM-WHY name=$name |" "$4"
	grep '^NOTE ' "$3" 2>/dev/null | sed "s|^NOTE |KATRA-VM-NOTE name=$name |"
	[ "$rc" = 0 ] || status=1
}

# log NAME FILE: a file's lines into the console log
log()
{
	sed "s|^|KATRA-VM-LOG name=$kernel/$1 |" "$2"
}

# verify NAME TRACE FACTS WHY: katra-replay verify; verify=ok|invalid
verify()
{
	if $K/katra-replay verify "$2" >/tmp/verify.out 2>&1; then
		echo "verify=ok" >>"$3"
		return 0
	fi
	echo "verify=invalid" >>"$3"
	echo "verify_problems=$(($(grep -c . /tmp/verify.out) - 1))" >>"$3"
	head -n 3 /tmp/verify.out | sed 's|^|katra-replay verify: |' >>"$4"
	return 1
}

# diagnose NAME WHY: after a failed start, the same capture with libbpf's log
# (-vv): its CO-RE/load errors become reasons, the rest goes to the console.
diagnose()
{
	timeout "$step_timeout" $K/katra-record -vv -o /tmp/diag.ktrc --force -- /bin/true \
		>/dev/null 2>/tmp/diag.err
	grep -iE 'failed to resolve CO-RE|relo.*fail|prog .*: failed|failed to load|error' /tmp/diag.err |
		grep -v '^katra-record: cannot load' | head -n 4 | sed 's|^|-vv: |' >>"$2"
	grep -iE 'CO-RE|relo|fail|error|invalid' /tmp/diag.err | head -n 40 >/tmp/diag.short
	log "$1" /tmp/diag.short
	rm -f /tmp/diag.ktrc
}

# captured NAME CHECK_ARG RECORDER_ARGS...: katra-record RECORDER_ARGS (which
# end in `-- COMMAND`) into /tmp/NAME.ktrc, COMMAND's output in /tmp/NAME.out:
# exit 0, a valid trace, and `katra-vmcheck NAME TRACE CHECK_ARG` (the
# command's output when CHECK_ARG is empty).  The checks:
# - syscalls: exact pread64/getppid counts on both threads;
# - select (-e io on a loop of 100 pread64 and 5000 getppid a thread): exact
#   pread64 counts, no unselected syscall, the header's note naming the
#   per-syscall path (these kernels run BPF trampolines), and by --bpf-stats's
#   run counts, no program run for the unselected getppid;
# - i386: the static i386 program (int $0x80), exactly 1000 reads and 1000
#   getppid named with their i386 numbers (this machine's own kernel cannot
#   exec i386 programs: t_i386 skips there; Debian's kernels can).
captured()
{
	local name=$1 arg=$2 facts=/tmp/$1.facts why=/tmp/$1.why rc=0 rec_rc
	shift 2
	: >"$facts"
	: >"$why"
	timeout "$step_timeout" $K/katra-record -o /tmp/"$name".ktrc "$@" \
		>/tmp/"$name".out 2>/tmp/"$name".err
	rec_rc=$?
	echo "record_rc=$rec_rc" >>"$facts"
	if [ "$rec_rc" != 0 ]; then
		echo "katra-record $* exited $rec_rc: $(tail -n 2 /tmp/"$name".err | tr '\n' ' ')" >>"$why"
		log "$name" /tmp/"$name".err
		diagnose "$name" "$why"
		result "$name" 1 "$facts" "$why"
		return
	fi
	verify "$name" /tmp/"$name".ktrc "$facts" "$why" || rc=1
	# a --summary-json /tmp/NAME.json goes to the check too
	$K/vm/katra-vmcheck "$name" /tmp/"$name".ktrc "${arg:-/tmp/$name.out}" \
		$([ -e /tmp/"$name".json ] && echo /tmp/"$name".json) >>"$facts" 2>>"$why" || rc=1
	result "$name" "$rc" "$facts" "$why"
	rm -f /tmp/"$name".ktrc
}

# traced NAME WORKLOAD ARGS...: runs the workload behind a gate and
# katra-record -p on it (so that the recorder's peak RSS, from wait4, is its
# own: under `--` it would include its child's), then verify and
# katra-vmcheck NAME: loss, Estimated events, ring memory, RSS, the check's
# own counts.
traced()
{
	local name=$1 wl=$2 b=/tmp/$1 rc=0 rec_rc wl_rc wl_pid rec_pid
	local facts=$b.facts why=$b.why
	shift 2
	: >"$facts"
	: >"$why"
	rm -f /tmp/ready "$b".ktrc
	$WL/"$wl" --gate /tmp/ready "$@" >"$b".out 2>"$b".err &
	wl_pid=$!
	$K/vm/katra-vmcheck rusage "$b".rusage timeout "$step_timeout" \
		$K/katra-record -p "$wl_pid" --ready-file /tmp/ready -o "$b".ktrc \
		--summary-json "$b".json >"$b".rec.out 2>"$b".rec.err &
	rec_pid=$!
	wait "$rec_pid"
	rec_rc=$?
	# a recorder that failed may leave the workload at its gate
	[ "$rec_rc" = 0 ] || kill -9 "$wl_pid" 2>/dev/null
	wait "$wl_pid"
	wl_rc=$?
	echo "record_rc=$rec_rc" >>"$facts"
	cat "$b".rusage >>"$facts" 2>/dev/null
	# the recorder's own counts: late (out-of-order) events, and any peak
	# RSS figure it reports itself
	sed -n -e 's/.*"late_events":\([0-9]*\).*/late_events=\1/p' \
		-e 's/.*"\(peak_rss[a-z_]*\)":\([0-9]*\).*/summary_\1=\2/p' \
		"$b".json >>"$facts" 2>/dev/null
	# its own memory: peak RSS less what the rings' mappings hold (the
	# kernel maps a ring's data twice), both from its summary
	local peak ring
	peak=$(sed -n 's/.*"peak_rss_kib":\([0-9]*\).*/\1/p' "$b".json 2>/dev/null)
	ring=$(sed -n 's/.*"ring_rss_kib":\([0-9]*\).*/\1/p' "$b".json 2>/dev/null)
	if [ -n "$peak" ] && [ -n "$ring" ]; then
		echo "ring_rss_kib=$ring own_rss_kib=$((peak - ring))" >>"$facts"
		# the rings' pages are part of the peak: a peak below them is
		# a VmHWM that had not caught up (kernels before 6.2)
		if [ "$peak" -lt "$ring" ]; then
			echo "peak RSS $peak KiB below the rings' $ring KiB" >>"$why"
			rc=1
		fi
		if [ $((peak - ring)) -gt 32768 ]; then
			echo "own RSS $((peak - ring)) KiB (peak $peak less rings $ring) > 32 MiB" >>"$why"
			rc=1
		fi
	fi
	if [ "$rec_rc" != 0 ]; then
		echo "katra-record -p $wl exited $rec_rc: $(tail -n 2 "$b".rec.err | tr '\n' ' ')" >>"$why"
		log "$name" "$b".rec.err
		diagnose "$name" "$why"
		result "$name" 1 "$facts" "$why"
		return
	fi
	if [ "$wl_rc" != 0 ]; then
		echo "workload $wl exited $wl_rc: $(tail -n 2 "$b".err | tr '\n' ' ')" >>"$why"
		rc=1
	fi
	verify "$name" "$b".ktrc "$facts" "$why" || rc=1
	$K/vm/katra-vmcheck "$name" "$b".ktrc "$b".out >>"$facts" 2>>"$why" || rc=1
	echo "trace_mib=$(($(wc -c <"$b".ktrc) >> 20))" >>"$facts"
	result "$name" "$rc" "$facts" "$why"
	rm -f "$b".ktrc
}

# want CHECK: whether CHECK runs (katra.checks=A,B on the kernel command
# line, from run.sh's KATRA_VM_CHECKS: only those; none named: all)
only=$(sed -n 's/.*katra\.checks=\([^ ]*\).*/\1/p' /proc/cmdline)
want()
{
	[ -z "$only" ] && return 0
	case ",$only," in
	*",$1,"*) return 0 ;;
	esac
	return 1
}

# load_modules LIST CHECK: the modules named in /katra/modules/RELEASE/LIST
# (fetch-kernel.sh kept them, mkinitramfs.sh put them there), loaded in
# order; a failure is CHECK's (/tmp/CHECK.why)
load_modules()
{
	local dir=$K/modules/$(uname -r) m
	if [ ! -s "$dir/$1" ]; then
		echo "no $1 for $(uname -r) in the initramfs (tests/vm/fetch-kernel.sh)" >>/tmp/$2.why
		return 1
	fi
	for m in $(cat "$dir/$1"); do
		insmod "$dir/$m" 2>>/tmp/$2.why || {
			echo "insmod $m failed" >>/tmp/$2.why
			return 1
		}
	done
	return 0
}

# gpu_modules: the kernel's vgem, bochs and what they need; a failure is the
# gpu check's
gpu_modules()
{
	load_modules load-order gpu
}

# virtio_modules: virtio_gpu and what it needs beyond gpu_modules' (the
# virtio bus, virtio_dma_buf), for the guest's virtio-gpu-pci device; a
# failure is the virtio check's
virtio_modules()
{
	load_modules load-order-virtio virtio || return 1
	# the driver binds the device (and makes its DRM card) as it loads
	if ! ls /sys/bus/virtio/drivers/virtio_gpu 2>/dev/null | grep -q '^virtio'; then
		echo "virtio_gpu bound no device (QEMU's -device virtio-gpu-pci)" >>/tmp/virtio.why
		return 1
	fi
	return 0
}

# not_run WHY CHECK...: the selected CHECKs failed before their capture
# (their modules), for the reasons in WHY
not_run()
{
	local why=$1 c
	shift
	for c in "$@"; do
		want $c || continue
		: >/tmp/$c.facts
		cp "$why" /tmp/$c.why.tmp
		mv /tmp/$c.why.tmp /tmp/$c.why
		result $c 1 /tmp/$c.facts /tmp/$c.why
	done
}

# gpuothers N M: the rest of the machine's GPU work.  An untraced vgemfence
# makes M fences while katra-record -p traces another, gated until the first
# has exited, that then makes N: exactly the traced N as events (each linked
# to its ioctl), the untraced M as GpuOtherFences counts on their timelines
# and nothing of that process as events; `stats --gpu --json` says N and M.
gpuothers()
{
	local n=$1 m=$2 b=/tmp/gpuothers rc=0 rec_rc o_rc t_rc o_pid t_pid rec_pid
	local facts=$b.facts why=$b.why
	: >"$facts"
	: >"$why"
	rm -f /tmp/ogate /tmp/tgate "$b".ktrc
	$WL/vgemfence --gate /tmp/ogate "$m" >"$b".others.out 2>"$b".others.err &
	o_pid=$!
	$WL/vgemfence --gate /tmp/tgate "$n" >"$b".out 2>"$b".err &
	t_pid=$!
	timeout "$step_timeout" $K/katra-record -p "$t_pid" --ready-file /tmp/ogate -o "$b".ktrc \
		>"$b".rec.out 2>"$b".rec.err &
	rec_pid=$!
	# the untraced fences while the capture runs, then the traced ones
	while [ ! -e /tmp/ogate ] && kill -0 "$rec_pid" 2>/dev/null; do
		sleep 0.1
	done
	if [ -e /tmp/ogate ]; then
		wait "$o_pid"
		o_rc=$?
	else
		kill -9 "$o_pid" 2>/dev/null
		o_rc=killed
	fi
	touch /tmp/tgate
	wait "$rec_pid"
	rec_rc=$?
	wait "$t_pid"
	t_rc=$?
	echo "record_rc=$rec_rc" >>"$facts"
	if [ "$rec_rc" != 0 ]; then
		echo "katra-record -p exited $rec_rc: $(tail -n 2 "$b".rec.err | tr '\n' ' ')" >>"$why"
		log gpuothers "$b".rec.err
		result gpuothers 1 "$facts" "$why"
		return
	fi
	if [ "$o_rc" != 0 ] || [ "$t_rc" != 0 ]; then
		echo "vgemfence exited $o_rc (untraced), $t_rc (traced)" >>"$why"
		rc=1
	fi
	verify gpuothers "$b".ktrc "$facts" "$why" || rc=1
	$K/katra-replay stats --gpu --json "$b".ktrc >"$b".stats.json 2>>"$why" || rc=1
	$K/vm/katra-vmcheck gpuothers "$b".ktrc "$b".out "$b".others.out "$b".stats.json \
		>>"$facts" 2>>"$why" || rc=1
	result gpuothers "$rc" "$facts" "$why"
	rm -f "$b".ktrc
}

case ${1:-} in
basic)
	want syscalls && captured syscalls "" -- $WL/syscalls --threads 2 300 200
	want i386 && [ -x $WL/i386prog ] && captured i386 1000 -- $WL/i386prog
	# page faults the kernel refuses, where fexit measures the others; a
	# second thread takes the mmap lock for writing meanwhile, so that the
	# faulting thread often sleeps inside the kernel's handling before the
	# refusal (a Begin at that switch-out, the End at the refusal)
	want refused && traced refused refused --contend 200 100
	# renames by prctl and from another thread, a process renamed after
	# start, an exec that is no rename (the new probe, bpf/task.bpf.c)
	want threadnames && traced threadnames threadnames
	# a pipe, a socketpair, an eventfd, an epoll fd and a file: each named
	# as /proc/PID/fd names it (the fd lookup without bpf_rdonly_cast)
	want fdkinds && traced fdkinds fdkinds /tmp/fdkinds.bin
	# -e io on a loop of which a tenth is I/O, per-syscall attach: last, so
	# that the checks above run as they did before it existed
	# (--bpf-stats: the 2 x 5000 getppid run no program)
	want select && captured select "" -e io --bpf-stats --summary-json /tmp/select.json -- \
		$WL/syscalls --threads 2 100 5000
	# 50 dma_fences made and signalled through vgem (the GPU layer): exactly
	# 50 inits and 50 signals, each linked to the ioctl that made it
	: >/tmp/gpu.why
	: >/tmp/virtio.why
	if ! want gpu && ! want gpuothers && ! want flips && ! want atomic && ! want virtio && ! want virtioatomic; then
		:
	elif gpu_modules; then
		want gpu && captured gpu "" -- $WL/vgemfence 50
		# 30 fences of an untraced process while 50 are traced: counted
		want gpuothers && gpuothers 50 30
		# 20 page flips on QEMU's standard VGA (bochs: no vblanks, the
		# flip's event sent from the commit), each delivered to the
		# workload's DRM file
		want flips && captured flips "" -- $WL/flips 20
		# 20 atomic commits on the same display, each with an out-fence
		# (a drm_crtc dma_fence made in the commit ioctl, signalled when
		# the commit's event is sent): 20 inits, 20 signals, 20 events
		want atomic && captured atomic "" -- $WL/flips --atomic 20
		# 30 cursor images on the virtio-gpu device: 30 fences of
		# virtio_gpu (made with seqno 0, numbered at their emit), each
		# made in the workload's DRM_IOCTL_MODE_CURSOR
		# then the same through nonblocking atomic commits: each fence
		# made in the ioctl, emitted and signalled from the commit's
		# worker
		if { want virtio || want virtioatomic; } && virtio_modules; then
			want virtio && captured virtio "" -- $WL/flips --driver virtio_gpu --cursor 30
			want virtioatomic && captured virtioatomic "" -- \
				$WL/flips --driver virtio_gpu --atomic-cursor 30
		else
			not_run /tmp/virtio.why virtio virtioatomic
		fi
	else
		not_run /tmp/gpu.why gpu gpuothers flips atomic virtio virtioatomic
	fi
	;;
scale)
	# 16 threads x 20000 getppid, 20 x (1 + 8) threads dying in exit_group,
	# and an execve from a non-main thread
	want storm && traced storm storm 16 20000
	want exitstorm && traced exitstorm exitstorm 20 8
	want execthread && traced execthread execthread
	;;
*)
	echo "KATRA-VM name=$kernel/suite rc=1"
	echo "KATRA-VM-WHY name=$kernel/suite unknown suite '${1:-}' (katra.suite=basic|scale)"
	exit 2
	;;
esac
# the kernel's complaints, if any, into the console log
[ "$status" = 0 ] || dmesg | grep -E 'BUG:|WARNING:|Oops|Call Trace|segfault|bpf|BPF|Kernel panic|Out of memory|Killed process' |
	tail -n 30 | sed 's|^|KATRA-VM-LOG name=dmesg |'
exit "$status"
