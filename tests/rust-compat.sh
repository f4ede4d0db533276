#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# C <-> Rust compatibility of the Katra trace format, with the real bincode
# 1.x crate (format/rust/, built offline from Debian's packaged crates):
#   C writes the sample trace -> Rust decodes and re-encodes every record to
#   identical bytes and sees every record shape;
#   Rust writes a trace of every shape -> C decodes and re-encodes it to
#   identical bytes, and `katra-replay verify` finds it valid;
#   a record with one byte no encoder would write fails both round trips.
# One PASS/FAIL line per check; exit 1 when any check fails.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
B="$ROOT/build"
W="$B/rust-compat"
CRATE="$ROOT/format/rust"
export CARGO_TARGET_DIR="$B/rust"
RUST="$CARGO_TARGET_DIR/release/katra-format-compat"
fails=0
checks=0

pass() { checks=$((checks + 1)); echo "PASS $1"; }
fail() {
	checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL $1"
	[ -s "$W/log" ] && sed 's/^/    /' "$W/log" | tail -n 20
}
# check NAME CMD...: runs CMD with its output in $W/log; PASS when it exits 0
check() {
	name=$1; shift
	if "$@" >"$W/log" 2>&1; then pass "$name"; else fail "$name"; fi
}
# check_fails NAME PATTERN CMD...: PASS when CMD exits 1 and says PATTERN
check_fails() {
	name=$1; pattern=$2; shift 2
	"$@" >"$W/log" 2>&1
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q -- "$pattern" "$W/log"; then
		pass "$name"
	else
		echo "    (exit $rc, expected 1 and '$pattern')" >>"$W/log"
		fail "$name"
	fi
}

find_cargo() {
	if [ -n "${CARGO:-}" ] && command -v "$CARGO" >/dev/null 2>&1; then
		echo "$CARGO"
	elif command -v cargo >/dev/null 2>&1; then
		command -v cargo
	elif [ -x "$HOME/.cargo/bin/cargo" ]; then
		echo "$HOME/.cargo/bin/cargo"
	elif [ -x /root/.cargo/bin/cargo ]; then
		echo /root/.cargo/bin/cargo
	fi
}

rm -rf "$W"
mkdir -p "$W"

CARGO_BIN=$(find_cargo)
if [ -z "$CARGO_BIN" ]; then
	echo "no cargo found (install Debian's cargo: ci/install-deps.sh)" >"$W/log"
	fail "rust: cargo available"
	echo "rust-compat: $fails of $checks checks failed"
	exit 1
fi
# --offline: the crate builds from /usr/share/cargo/registry only
# (format/rust/.cargo/config.toml), never from the network.
check "rust: build katra-format-compat offline ($("$CARGO_BIN" --version 2>/dev/null))" \
	sh -c "cd '$CRATE' && '$CARGO_BIN' build --offline --release"
check "rust: types = schema.txt, SPEC.md example = real bincode (cargo test)" \
	sh -c "cd '$CRATE' && '$CARGO_BIN' test --offline --release"
check "c: build katra-sample, katra-roundtrip" \
	make -C "$ROOT" --no-print-directory build/katra-sample build/katra-roundtrip
if [ ! -x "$RUST" ] || [ ! -x "$B/katra-sample" ] || [ ! -x "$B/katra-roundtrip" ]; then
	echo "rust-compat: $fails of $checks checks failed (cannot go on without the tools)"
	exit 1
fi

X="$W/c-sample.ktrc"
R="$W/rust-written.ktrc"
check "c: katra-sample writes the sample trace" "$B/katra-sample" "$X"
check "c->rust: bincode re-encodes every record of the C trace identically, all shapes seen" \
	"$RUST" roundtrip "$X"
check "c->c: katra_encode_* re-encodes every record of the C trace identically" \
	"$B/katra-roundtrip" "$X"
check "rust: write a trace of every record shape" "$RUST" write "$R"
check "rust->rust: the Rust trace covers every shape and re-encodes identically" \
	"$RUST" roundtrip "$R"
check "rust->c: the C reader decodes the Rust trace and re-encodes it identically" \
	"$B/katra-roundtrip" "$R"
if [ -x "$B/katra-replay" ] || make -C "$ROOT" --no-print-directory build/katra-replay \
	>"$W/log" 2>&1; then
	check "rust->c: katra-replay verify finds the Rust trace valid" \
		"$B/katra-replay" verify "$R"
else
	fail "c: build katra-replay"
fi

# Compressed traces (SPEC section 11), with flate2 (Debian's librust-flate2-dev):
# the C writer's gzip mode -> Rust, Rust's GzEncoder -> the C reader.  The
# crate format/rust/gzip/ is separate so that the checks above never need it.
if ls -d /usr/share/cargo/registry/flate2-* >/dev/null 2>&1; then
	GZ="$CARGO_TARGET_DIR/release/katra-format-gzip-compat"
	check "rust: build katra-format-gzip-compat offline (flate2)" \
		sh -c "cd '$CRATE/gzip' && '$CARGO_BIN' build --offline --release"
	check "c: katra-sample -z writes the sample trace gzip-compressed" \
		"$B/katra-sample" -z "$W/c-sample.ktrc.gz"
	check "c->rust: flate2 + bincode read the C writer's gzip trace, every record identical" \
		"$GZ" read "$W/c-sample.ktrc.gz"
	check "rust: write the sample trace through flate2's GzEncoder" \
		"$GZ" write "$W/rust-written.ktrc.gz"
	check "rust->c: katra-replay verify reads the Rust gzip trace (by magic) as valid" \
		"$B/katra-replay" verify "$W/rust-written.ktrc.gz"
	check "rust->c: the Rust gzip trace has the plain Rust trace's records" \
		sh -c "'$B/katra-replay' dump '$R' > '$W/plain.dump' &&
		       '$B/katra-replay' dump '$W/rust-written.ktrc.gz' > '$W/gz.dump' &&
		       cmp '$W/plain.dump' '$W/gz.dump'"
else
	echo "SKIP rust: compressed traces (librust-flate2-dev is not installed:" \
		"apt-get install librust-flate2-dev)"
fi

# Negative: one extra byte inside record 5 (its length grown to match).
P="$W/padded.ktrc"
check "rust: pad record 5 of the C trace with a byte no encoder writes" \
	"$RUST" pad "$X" "$P" 5
check_fails "rust: roundtrip rejects the padded record" "record 5 (Event" "$RUST" roundtrip "$P"
check_fails "c: katra-roundtrip rejects the padded record" "record 5 (Event)" \
	"$B/katra-roundtrip" "$P"

rm -f "$W/log"
echo "$((checks - fails)) passed, $fails failed"
if [ "$fails" -ne 0 ]; then
	echo "rust-compat: $fails of $checks checks failed"
	exit 1
fi
