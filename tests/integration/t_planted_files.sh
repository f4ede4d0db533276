#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What a traced process plants where the recorder reads is never waited on,
# followed out of its root or read in place of the file it maps
# (procfs/procpath.h).  A root process in a chroot and mount namespace of
# its own (unshare -m, chroot: as a container) maps three copies of Wine's
# ntdll.so, each in a tree whose files beside it (read for the NT names)
# are planted:
#  a/: x86_64-windows/ntdll.dll a FIFO nobody writes (a blocking open waits
#      for ever: the start never ends, Ctrl-C included), win32u.dll an
#      absolute link to a host file;
#  b/: x86_64-windows an absolute link to a host directory whose DLLs are
#      real; the same name inside the root holds ntdll.dll as a device node;
#  c/: its ntdll.so bound over by another file once mapped (changed since).
# katra-record -p is live within seconds, ends on SIGINT within 5 s, its
# header's notes name each refusal, and no NT name came from a host file.
# kt-timeout: 120
. "$(dirname "$0")/lib.sh"
kt_require
wine=/usr/lib/x86_64-linux-gnu/wine
[ -r "$wine/x86_64-unix/ntdll.so" ] && [ -r "$wine/x86_64-windows/win32u.dll" ] ||
	kt_skip "no Debian Wine (wine64): its ntdll.so, ntdll.dll and win32u.dll are the bait"
command -v unshare >/dev/null || kt_skip "no unshare (util-linux)"
R=$T/root
mkdir -p "$R" "$T/host" "$T/hostb" "$R$T/hostb" || kt_fail "mkdir"
for t in a b c; do
	mkdir -p "$R/$t/wine/x86_64-unix" || kt_fail "mkdir"
	cp "$wine/x86_64-unix/ntdll.so" "$R/$t/wine/x86_64-unix/ntdll.so"
done
# the host's files (what a recorder following links out of the root reads)
cp "$wine/x86_64-windows/win32u.dll" "$T/host/win32u.dll"
cp "$wine/x86_64-windows/ntdll.dll" "$wine/x86_64-windows/win32u.dll" "$T/hostb/"
# a/
mkdir -p "$R/a/wine/x86_64-windows"
mkfifo "$R/a/wine/x86_64-windows/ntdll.dll" || kt_fail "mkfifo"
ln -s "$T/host/win32u.dll" "$R/a/wine/x86_64-windows/win32u.dll"
# b/: the same absolute name inside the root holds a device node
ln -s "$T/hostb" "$R/b/wine/x86_64-windows"
mknod "$R$T/hostb/ntdll.dll" c 1 3 || kt_fail "mknod"
# c/: another file to bind over its ntdll.so once mapped
cp "$wine/x86_64-unix/ntdll.so" "$R/c/other.so"
cat >"$T/plant.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>
static int map(const char *p)
{
	int fd = open(p, O_RDONLY);
	void *m = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		perror(p);
		return 1;
	}
	return 0;
}
int main(void)
{
	if (map("/a/wine/x86_64-unix/ntdll.so") || map("/b/wine/x86_64-unix/ntdll.so") ||
	    map("/c/wine/x86_64-unix/ntdll.so"))
		return 1;
	/* its mount namespace's own: the host sees the file it mapped */
	if (mount("/c/other.so", "/c/wine/x86_64-unix/ntdll.so", NULL, MS_BIND, NULL)) {
		perror("mount");
		return 1;
	}
	close(open("/started", O_WRONLY | O_CREAT, 0644));
	for (;;)
		pause();
}
C
cc -static -O2 -o "$R/plant" "$T/plant.c" 2>"$T/cc.err" || kt_skip "cannot link a static program: $(kt_tail "$T/cc.err")"
unshare -m --propagation private chroot "$R" /plant >"$T/plant.out" 2>"$T/plant.err" &
WL_PID=$!
KT_PIDS="$KT_PIDS $WL_PID"
for _ in $(seq 200); do
	[ -e "$R/started" ] && break
	sleep 0.05
done
[ -e "$R/started" ] || kt_fail "the planting process did not start: $(kt_tail "$T/plant.err")"
# live within KT_START_TIMEOUT (a FIFO opened blocking: never)
KT_START_TIMEOUT=15
kt_record -p "$WL_PID"
sleep 0.3
kill -INT "$REC_PID"
KT_STOP_TIMEOUT=5
kt_wait_recorder 0
kt_verify
python3 - "$TRACE.jsonl" "$R" "$T" >"$T/check.out" 2>&1 <<'PY' || kt_fail "$(kt_tail "$T/check.out")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
notes, r, t = json.loads(lines[0])["notes"], sys.argv[2], sys.argv[3]
want = [
    ("%s/a/wine/x86_64-windows/ntdll.dll" % r, "not a regular file"),
    ("%s/a/wine/x86_64-windows/win32u.dll" % r, "a symbolic link where a file was named"),
    ("%s/b/wine/x86_64-windows/ntdll.dll" % r, "not a regular file"),
    ("%s/c/wine/x86_64-unix/ntdll.so" % r, "changed since it was mapped"),
]
refused = [n for n in notes if n.startswith("file refused: ")]
for path, why in want:
    if not any(n.startswith("file refused: %s (as process " % path) and n.endswith(": " + why)
               for n in refused):
        print("no note refusing %s (%s); refused: %s" % (path, why, refused))
        sys.exit(1)
nt = [n for n in notes if "NtSyscall at the dispatcher" in n]
if len(nt) != 2:
    print("expected the NtSyscall notes of a/ and b/ (c/ refused): %s" % nt)
    sys.exit(1)
host = [n for n in nt if "(0 named by ntdll.dll" not in n or "(0 named by win32u.dll)" not in n]
if host:
    print("names read from a host file: %s" % host)
    sys.exit(1)
print("%d refusals named; no NT name from a host file" % len(want))
PY
kt_note "$(kt_tail "$T/check.out")"
