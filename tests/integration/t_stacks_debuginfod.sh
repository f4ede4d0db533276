#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --stacks symbolised from a debuginfod server: the stackchains capture read
# in a mount namespace where neither the workload nor the system's libraries
# nor their debug files are (as t_stacks_elsewhere.sh), without --symbols,
# with DEBUGINFOD_URLS naming a local debuginfod (Debian's, serving a
# directory holding the workload and libc's debug file) and a fresh client
# cache: each known chain is named in order, every round, and its folded line
# goes down through libc (_start;__libc_start_main;...), the fetched files
# being in the cache afterwards.  Not named: with DEBUGINFOD_URLS unset, with
# --no-debuginfod, and from a server serving a copy of the workload whose
# build id differs by one byte (then one line on stderr says so, not one per
# module).  A plain HTTP server serving that copy at the workload's build id
# is refused too (the file's build id is checked); it is asked for each
# module's debug file then its executable, each once.  A port nothing
# listens on: one line says so, and that nothing more is fetched.  With the
# system's libc at hand, stripped (no .symtab: __libc_start_call_main is not
# in its .dynsym), its debug file is fetched all the same and names that
# frame; with DEBUGINFOD_URLS empty it is not.  The capture is made with
# --no-symbols: the trace's own names would name the chains without any
# server (t_stacks_elsewhere.sh checks those).
. "$(dirname "$0")/lib.sh"
kt_require
ROUNDS=3
LIBDIR=/usr/lib/x86_64-linux-gnu
[ "$(stat -f -c %T "$T")" != tmpfs ] || kt_skip "$T is on tmpfs: O_DIRECT and a dropped page cache need a disk"
command -v unshare >/dev/null || kt_fail "unshare (util-linux) is missing"
command -v debuginfod >/dev/null || kt_skip "debuginfod is not installed (ci/install-deps.sh)"
command -v curl >/dev/null || kt_fail "curl is missing"
mkdir -p "$T/data"
TRACE=$T/stacks.ktrc
kt_run_rec -o "$TRACE" --no-symbols --stack-threshold 0 -- "$WL/stackchains" "$T/data" "$ROUNDS"
[ "$KT_RC" = 0 ] || kt_fail "katra-record exited $KT_RC: $(kt_tail "$T/rec.err")"
kt_verify
read -r wl_bid libc_bid < <(python3 - "$TRACE.jsonl" <<'PY'
import json, sys
bid = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("record") == "Module":
        bid[r["name"]] = r["build_id"]
print(bid.get("stackchains", ""), bid.get("libc.so.6", ""))
PY
)
[ -n "$wl_bid" ] && [ -n "$libc_bid" ] || kt_fail "no Module records with build ids for stackchains and libc.so.6"
dbg=/usr/lib/debug/.build-id/${libc_bid:0:2}/${libc_bid:2}.debug
[ -f "$dbg" ] || kt_fail "no debug file of libc at $dbg (libc6-dbg: ci/install-deps.sh)"

# what the servers serve: the workload and libc's debug file; the workload
# again with one byte of its build id changed
mkdir -p "$T/srv" "$T/srvbad" "$T/http/buildid/$wl_bid" "$T/rt"
cp "$WL/stackchains" "$T/srv/stackchains"
cp "$dbg" "$T/srv/libc.debug"
cp "$dbg" "$T/srvbad/libc.debug"
bad_bid=$(python3 "$KT_DIR/stacks_check.py" flipbid "$WL/stackchains" "$T/srvbad/stackchains") ||
	kt_fail "cannot change the copy's build id"
cp "$T/srvbad/stackchains" "$T/http/buildid/$wl_bid/debuginfo"
cp "$T/srvbad/stackchains" "$T/http/buildid/$wl_bid/executable"

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# serve NAME DIR ID: debuginfod on DIR at a free port (in $NAME_port), ready
# when it serves the executable of build id ID (its scan done)
serve() {
	local name=$1 dir=$2 id=$3 port pid n
	port=$(free_port)
	debuginfod -d "$T/$name.sqlite" -p "$port" -F "$dir" -c 1 >"$T/$name.log" 2>&1 &
	pid=$!
	KT_PIDS="$KT_PIDS $pid"
	for n in $(seq 600); do
		curl -sf -o /dev/null "http://127.0.0.1:$port/buildid/$id/executable" && break
		kt_is_running "$pid" || kt_fail "debuginfod on $dir exited: $(kt_tail "$T/$name.log")"
		sleep 0.1
	done
	curl -sf -o /dev/null "http://127.0.0.1:$port/buildid/$id/executable" ||
		kt_fail "debuginfod on $dir serves no build id $id within 60 s: $(kt_tail "$T/$name.log")"
	printf -v "${name}_port" '%s' "$port"
}
serve good "$T/srv" "$wl_bid"
curl -sf -o /dev/null "http://127.0.0.1:$good_port/buildid/$libc_bid/debuginfo" ||
	kt_fail "debuginfod serves no debug file of libc: $(kt_tail "$T/good.log")"
serve bad "$T/srvbad" "$bad_bid"
closed_port=$(free_port)
http_port=$(free_port)
python3 -m http.server -b 127.0.0.1 -d "$T/http" "$http_port" >"$T/http.log" 2>&1 &
KT_PIDS="$KT_PIDS $!"
for n in $(seq 600); do
	curl -sf -o /dev/null "http://127.0.0.1:$http_port/buildid/$wl_bid/executable" && break
	sleep 0.1
done

# katra-replay from a copy with its libraries: the namespace hides the system's
kt_replay_copy "$T/rt"
ld=$KT_LD

unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH
unshare -m --propagation private bash -c '
T=$1 WL=$2 LIBDIR=$3 LD=$4 GOOD=http://127.0.0.1:$5 BAD=http://127.0.0.1:$6 HTTP=http://127.0.0.1:$7
CLOSED=http://127.0.0.1:$8
mount -t tmpfs none "$WL" && mount -t tmpfs none /usr/lib/debug && mount -t tmpfs none "$LIBDIR" || exit 2
[ ! -e "$WL/stackchains" ] && [ ! -e "$LIBDIR/libc.so.6" ] || exit 3
R() { "$LD" --library-path "$T/rt" "$T/rt/katra-replay" "$@"; }
cd "$T"
S="stats --stacks --json --top 10000 stacks.ktrc"
DEBUGINFOD_URLS=$GOOD DEBUGINFOD_CACHE_PATH=$T/cache R $S >good.json 2>good.err || exit 4
DEBUGINFOD_URLS=$GOOD DEBUGINFOD_CACHE_PATH=$T/cache R stats --folded stacks.ktrc >good.folded 2>>good.err || exit 5
DEBUGINFOD_CACHE_PATH=$T/cache-unset R $S >unset.json 2>unset.err || exit 6
DEBUGINFOD_URLS=$GOOD DEBUGINFOD_CACHE_PATH=$T/cache-off R $S --no-debuginfod >off.json 2>off.err || exit 7
DEBUGINFOD_URLS=$BAD DEBUGINFOD_CACHE_PATH=$T/cache-bad R $S >bad.json 2>bad.err || exit 8
DEBUGINFOD_URLS=$HTTP DEBUGINFOD_CACHE_PATH=$T/cache-http R $S >http.json 2>http.err || exit 9
DEBUGINFOD_URLS=$CLOSED DEBUGINFOD_CACHE_PATH=$T/cache-closed R $S >closed.json 2>closed.err || exit 10
' _ "$T" "$WL" "$LIBDIR" "$ld" "$good_port" "$bad_port" "$http_port" "$closed_port"
rc=$?
[ "$rc" = 0 ] || kt_fail "the replay in the namespace failed at step $rc: $(cat "$T"/*.err 2>/dev/null | tail -n 3)"

python3 "$KT_DIR/stacks_check.py" "$T/good.json" "$ROUNDS" >"$T/check.out" 2>&1 ||
	kt_fail "from debuginfod: $(kt_tail "$T/check.out") ($(kt_tail "$T/good.err"))"
grep -Eq '^_start;__libc_start_main;__libc_start_call_main;main;chain_a;chain_b;leaf_sleep;.* [0-9]+$' \
	"$T/good.folded" || kt_fail "no folded line through libc: $(head -n 2 "$T/good.folded")"
[ -s "$T/cache/$libc_bid/debuginfo" ] || kt_fail "libc's debug file is not in the client's cache"
[ -e "$T/cache-unset" ] && kt_fail "DEBUGINFOD_URLS unset, yet the client made its cache"
[ -e "$T/cache-off" ] && kt_fail "--no-debuginfod, yet the client made its cache"
for c in unset off bad http closed; do
	if python3 "$KT_DIR/stacks_check.py" "$T/$c.json" "$ROUNDS" >"$T/$c.out" 2>&1; then
		kt_fail "$c: the chains were named"
	fi
done
n=$(grep -c '^katra-replay: debuginfod:' "$T/bad.err")
[ "$n" = 1 ] || kt_fail "another build id on the server: $n debuginfod lines, not 1: $(cat "$T/bad.err")"
grep -q 'no server has it' "$T/bad.err" || kt_fail "bad: $(cat "$T/bad.err")"
grep -q "no symbols for stackchains (build id $wl_bid): the server's file has another build id" \
	"$T/http.err" || kt_fail "a file with another build id, not said: $(cat "$T/http.err")"
# the replay's requests (after the readiness probe's): each of the three
# modules' debug file then executable, each asked once
python3 - "$T/http.log" "$wl_bid" <<'PY' || kt_fail "requests to the HTTP server: $(cat "$T/http.out")"
import re, sys
gets = re.findall(r'"GET /buildid/([0-9a-f]+)/(\w+) ', open(sys.argv[1]).read())
out = open(sys.argv[1].replace(".log", ".out"), "w")
print(gets, file=out)
assert gets[0] == (sys.argv[2], "executable"), "no readiness probe first"
replay = gets[1:]
ids = []
for bid, kind in replay:
    if bid not in ids:
        ids.append(bid)
want = [(bid, kind) for bid in ids for kind in ("debuginfo", "executable")]
sys.exit(len(ids) != 3 or replay != want)
PY
[ "$(grep -c '^katra-replay: debuginfod:' "$T/closed.err")" = 1 ] &&
	grep -q 'Connection refused; no more fetches in this run' "$T/closed.err" ||
	kt_fail "a server down: $(cat "$T/closed.err")"
for c in unset off; do
	grep -q debuginfod "$T/$c.err" && kt_fail "$c: $(cat "$T/$c.err")"
done
# libc at hand, stripped: the only file of the library directory
mkdir -p "$T/libonly"
cp "$LIBDIR/libc.so.6" "$T/libonly/" || kt_fail "cannot copy libc.so.6"
readelf -S "$T/libonly/libc.so.6" | grep -q '\.symtab' && kt_skip "this libc.so.6 is not stripped"
unshare -m --propagation private bash -c '
T=$1 WL=$2 LIBDIR=$3 LD=$4 GOOD=http://127.0.0.1:$5
mount -t tmpfs none "$WL" && mount -t tmpfs none /usr/lib/debug && mount --bind "$T/libonly" "$LIBDIR" || exit 2
[ -e "$LIBDIR/libc.so.6" ] && [ ! -e "$LIBDIR/libm.so.6" ] || exit 3
R() { "$LD" --library-path "$T/rt" "$T/rt/katra-replay" "$@"; }
cd "$T"
DEBUGINFOD_URLS=$GOOD DEBUGINFOD_CACHE_PATH=$T/cache-stripped R stats --folded stacks.ktrc \
	>stripped.folded 2>stripped.err || exit 4
DEBUGINFOD_URLS= DEBUGINFOD_CACHE_PATH=$T/cache-empty R stats --folded stacks.ktrc \
	>empty.folded 2>empty.err || exit 5
' _ "$T" "$WL" "$LIBDIR" "$ld" "$good_port"
rc=$?
[ "$rc" = 0 ] || kt_fail "the replay beside a stripped libc failed at step $rc: $(cat "$T"/stripped.err "$T"/empty.err 2>/dev/null | tail -n 3)"
grep -Eq '^_start;__libc_start_main;__libc_start_call_main;main;chain_a;chain_b;leaf_sleep;.* [0-9]+$' \
	"$T/stripped.folded" || kt_fail "stripped libc at hand: no folded line through its debug file: $(head -n 2 "$T/stripped.folded")"
grep -q '__libc_start_call_main' "$T/empty.folded" &&
	kt_fail "DEBUGINFOD_URLS empty, yet libc's local symbols named: $(head -n 1 "$T/empty.folded")"
[ -e "$T/cache-empty" ] && kt_fail "DEBUGINFOD_URLS empty, yet the client made its cache"
kt_note "$(cat "$T/check.out")"
exit 0
