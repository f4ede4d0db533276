#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `make install-test`: make install into a temporary DESTDIR puts exactly the
# expected files there (binaries 0755, man pages and completions 0644), the
# installed binaries run, both man pages render with man -l and say what
# they must, the bash completions complete; make uninstall removes them all.
# One PASS/FAIL line per check, then "N passed, N failed".
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
d=$(mktemp -d /tmp/katra-install.XXXXXX)
trap 'rm -rf "$d"' EXIT
passed=0
failed=0
check() { # NAME CMD...
	local name=$1
	shift
	if "$@" >"$d/log" 2>&1; then
		echo "PASS $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name"
		sed 's/^/    /' "$d/log" | tail -n 15
		failed=$((failed + 1))
	fi
}
P=/usr/local
S=$d/stage
expected="$S$P/bin/katra-record 755
$S$P/bin/katra-replay 755
$S$P/bin/katra-vkresolve 755
$S$P/share/bash-completion/completions/katra-record 644
$S$P/share/bash-completion/completions/katra-replay 644
$S$P/share/man/man1/katra-replay.1 644
$S$P/share/man/man8/katra-record.8 644"

check "make install PREFIX=$P DESTDIR=..." make -s -C "$root" install PREFIX=$P DESTDIR="$S"
check "exactly the expected files, with their modes" \
	diff <(echo "$expected") <(find "$S" -type f -printf '%p %m\n' | sort)
check "the installed katra-replay runs" \
	sh -c "'$S$P/bin/katra-replay' --version | grep -q '^katra-replay '"
check "the installed katra-record runs" \
	sh -c "'$S$P/bin/katra-record' --help | grep -q -- '-z, --compress'"

man_has() { # PAGE PATTERN...
	local page=$1 p
	shift
	MANWIDTH=80 man -l "$page" >"$d/man.txt" 2>"$d/man.err" || return 1
	[ ! -s "$d/man.err" ] || { cat "$d/man.err"; return 1; }
	for p in "$@"; do
		grep -q -- "$p" "$d/man.txt" || { echo "missing: $p"; return 1; }
	done
}
if command -v man >/dev/null; then
	check "man -l katra-replay.1: NAME, every command, report's options" \
		man_has "$S$P/share/man/man1/katra-replay.1" "^NAME" "katra-replay - " \
		"verify \[--max-problems N\] \[--strict\] FILE" "dump \[--jsonl\]" "--per-process" "compare" "export" \
		"report  *\[--json\]  *\[--html  *OUT.html\]" "critical path" "gzip" "EXIT STATUS" \
		"SEE ALSO" "katra-record(8)"
	check "man -l katra-record.8: NAME, -z and every option of --help" \
		man_has "$S$P/share/man/man8/katra-record.8" "^NAME" "katra-record - " \
		$("$root/build/katra-record" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u) \
		"-z, --compress" "SIGUSR1" "EXIT STATUS" "katra-replay(1)"
	check "man pages render without troff warnings" sh -c \
		"MANWIDTH=80 man --warnings -l '$S$P/share/man/man1/katra-replay.1' '$S$P/share/man/man8/katra-record.8' 2>&1 >/dev/null | (! grep .)"
else
	echo "FAIL man is not installed (Debian: man-db; ci/install-deps.sh)"
	failed=$((failed + 1))
fi

check "bash completion: katra-replay's commands" sh -c \
	"[ \"\$(bash -c 'source $S$P/share/bash-completion/completions/katra-replay;
	  COMP_WORDS=(katra-replay re); COMP_CWORD=1; _katra_replay; echo \${COMPREPLY[*]}')\" = report ]"
check "bash completion: report's options" sh -c \
	"bash -c 'source $S$P/share/bash-completion/completions/katra-replay;
	  COMP_WORDS=(katra-replay report --h); COMP_CWORD=2; _katra_replay; echo \${COMPREPLY[*]}' | grep -qx -- '--html --help'"
check "bash completion: katra-record's -z" sh -c \
	"bash -c 'source $S$P/share/bash-completion/completions/katra-record;
	  COMP_WORDS=(katra-record --comp); COMP_CWORD=1; _katra_record; echo \${COMPREPLY[*]}' | grep -qx -- '--compress'"

check "make uninstall PREFIX=$P DESTDIR=..." make -s -C "$root" uninstall PREFIX=$P DESTDIR="$S"
check "uninstall leaves no file" sh -c "[ -z \"\$(find '$S' -type f)\" ]"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
