#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every 64-bit id of a real trace, as Debian's jq 1.6 reads it from
`katra-replay dump --jsonl`, equals the value the text dump prints for the
same record (an independent formatter: hex for addresses, decimal for
hashes), and ts_wall_ns = start_wall_ns + ts_mono_ns.

usage: jq_ids.py TRACE.jsonl TRACE.txt
Prints one line; exits 1 on the first difference.
"""
import re
import subprocess
import sys

IDS = ("schema_hash|start_wall_ns|start_mono_ns|ts_wall_ns|span_id|request_id|"
       "id|addr|uaddr|address|ip|ctx|user_data|handle")
JQ = ('[(.seq // "header" | tostring), (paths(type == "string") as $p | '
      'select($p[-1] | tostring | test("^(%s)$")) | "\\($p[-1])=\\(getpath($p))")] '
      '| join(" ")' % IDS)
# text dump words holding the same values
TEXT = {"span": "span_id", "req": "request_id"}
PAYLOAD_IDS = ("addr", "uaddr", "address", "ip", "ctx", "user_data", "handle")
# AnonInode ids by the name the dump gives them (format/SPEC.md 5.3)
ANON = ["?", "[eventfd]", "[eventpoll]", "[timerfd]", "[signalfd]", "inotify", "[fanotify]",
        "[io_uring]", "[userfaultfd]", "[pidfd]", "[perf_event]", "bpf-map", "bpf-prog",
        "bpf_link"]


def num(s):
    s = re.sub(r"\(.*$", "", s)  # 1234(name)
    return int(s, 16) if s.startswith("0x") else int(s)


def res_id(v):
    """The id in a resource name: pipe:[INO], socket:[INO], anon_inode:NAME, Domain:id."""
    m = re.fullmatch(r"(?:pipe|socket):\[(\d+)\]", v)
    if m:
        return int(m.group(1))
    if v.startswith("anon_inode:"):
        return ANON.index(v[len("anon_inode:"):])
    return num(v.split(":", 1)[1])


def main(jsonl, txt):
    out = subprocess.run(["jq", "-r", JQ, jsonl], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    from_jq = {}
    for line in out:
        seq, *kv = line.split(" ")
        from_jq[seq] = dict(w.split("=", 1) for w in kv)
    start_wall = None
    checked = 0
    with open(txt) as f:
        for line in f:
            if line.startswith("# workload="):
                start_wall = int(re.search(r"start_wall_ns=(\d+)", line).group(1))
                continue
            m = re.match(r"seq=(\d+) ts=(\d+)\.(\d{9}) ", line)
            if not m:
                continue
            seq = m.group(1)
            want = {"ts_wall_ns": start_wall + int(m.group(2)) * 10**9 + int(m.group(3))}
            if " pid=" in line:  # an event: its resource always has an id
                ptype = None
                for w in line.split():
                    k, _, v = w.partition("=")
                    if "{" in k:
                        ptype, k = k.split("{", 1)
                    if k in TEXT and ptype is None:
                        want[TEXT[k]] = num(v)
                    elif k == "res" and ptype is None:
                        want["id"] = res_id(v)
                    elif k in PAYLOAD_IDS and ptype != "Wait":  # Wait.handle: an fd
                        want[k] = num(v.rstrip("}"))
                if "res" not in want and "id" not in want:
                    want["id"] = 0  # res=None:0 is left out of the text
            got = {k: int(v) for k, v in from_jq.get(seq, {}).items()}
            if got != want:
                print("seq %s: jq read %s, the text dump says %s" % (seq, got, want))
                return 1
            checked += len(want)
    if checked < 100:
        print("only %d values compared" % checked)
        return 1
    print("%d ids exact through jq" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
