#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of the Wine session tests (tests/integration/t_wine_*.sh) on a trace's
`katra-replay dump --jsonl` output (stdlib only).

usage: check.py CHECK TRACE.jsonl [KEY=VALUE...]
  PIDS are comma-separated; NAMED is PID:IMAGE[,PID:IMAGE...]
  session  target=PID:IMAGE members=NAMED server=PID joined=NAMED dir=SERVERDIR
           start=PIDS (the session before the capture) after=PIDS (after it:
           those in both must be traced, only those in either may be)
           absent=PIDS summary=SUMMARY.json
  tree     target=PID absent=PIDS
  command  command=PID:IMAGE members=NAMED server=PID absent=PIDS
  members  target=PID:IMAGE members=NAMED server=PID
  launcher target=PID child=PID:IMAGE members=NAMED server=PID
  sockpeer target=PID server=PID dir=SERVERDIR session=PIDS (the maps' members)
  joiners  joined=NAMED (started into the session during the capture) cmd=N
           (`wine cmd /c ...` runs: start.exe creating cmd.exe)
A failed check prints one line saying what differs and exits 1.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from ktrace import Fail, Trace, expect  # noqa: E402


def pids(v):
    return [int(p) for p in v.split(",") if p] if v else []


def named(v):
    out = {}
    for item in (v.split(",") if v else []):
        pid, image = item.split(":", 1)
        out[int(pid)] = image
    return out


class Names:
    """The trace's ProcessInfo events and events per process."""

    def __init__(self, t):
        self.t = t
        self.infos = {}     # pid -> [ProcessInfo events, in seq order]
        self.counts = {}    # pid -> events other than ProcessInfo
        self.first = {}     # pid -> seq of its first event other than ProcessInfo
        for e in t.events:
            pid = e["process_id"]
            if e["kind"] == "ProcessInfo":
                self.infos.setdefault(pid, []).append(e)
            else:
                self.counts[pid] = self.counts.get(pid, 0) + 1
                self.first.setdefault(pid, e["seq"])

    def info(self, pid, what):
        evs = self.infos.get(pid)
        expect(evs, "%s (pid %d) has no ProcessInfo" % (what, pid))
        return evs[0]["payload"]

    def expect_named(self, pid, what, origin, image, comm=None, events=True):
        p = self.info(pid, what)
        expect(p["origin"] == origin, "%s (pid %d): origin %s, expected %s"
               % (what, pid, p["origin"], origin))
        expect(p.get("windows_image") == image, "%s (pid %d): windows_image %r, expected %r"
               % (what, pid, p.get("windows_image"), image))
        if comm is not None:
            # the name it goes by: its latest ProcessInfo (a process that
            # joined while still `wine64` is named again when Wine's loader
            # renames it after its program)
            last = self.infos[pid][-1]["payload"]
            expect(last["comm"].startswith(comm), "%s (pid %d): comm %r, expected %r"
                   % (what, pid, last["comm"], comm))
            expect(all(i["payload"]["origin"] == origin for i in self.infos[pid]),
                   "%s (pid %d): origins %s" % (what, pid,
                                                [i["payload"]["origin"] for i in self.infos[pid]]))
        if not events:  # blocked all along (a shell in wait4)
            return
        expect(self.counts.get(pid, 0) > 0, "%s (pid %d): no events" % (what, pid))
        expect(self.infos[pid][0]["seq"] < self.first[pid],
               "%s (pid %d): named after its first event" % (what, pid))

    def expect_absent(self, absent):
        for pid in absent:
            expect(pid not in self.counts and pid not in self.infos,
                   "pid %d is traced (%d events) but is not in the session"
                   % (pid, self.counts.get(pid, 0)))
            for e in self.t.events:
                expect(e["thread_id"] != pid, "pid %d appears as a thread: seq %d"
                       % (pid, e["seq"]))


def check_session(path, target, members, server, joined, dir, start, after, absent, summary,
                  seen=""):
    t = Trace(path)
    n = Names(t)
    tpid, timage = next(iter(named(target).items()))
    n.expect_named(tpid, "the target", "Target", timage, timage)
    for pid, image in named(members).items():
        n.expect_named(pid, image, "WineSession", image, image)
    n.expect_named(int(server), "wineserver", "WineSession", None, "wineserver")
    for pid, image in named(joined).items():
        n.expect_named(pid, image, "WineJoined", image, image)
    # every member there before and after the capture is named WineSession
    # (helpers: services.exe, ...); a short-lived one may come and go, and
    # is then seen (polled from before the start until the capture is live)
    start, after = set(pids(start)) - {tpid}, set(pids(after))
    seen = set(pids(seen)) if seen else set()
    sess = {pid for pid, evs in n.infos.items() if evs[0]["payload"]["origin"] == "WineSession"}
    expect(start & after <= sess, "session members not traced: %s"
           % sorted((start & after) - sess))
    # one the test never saw came and went between its looks (each look
    # reads every process's maps: a fraction of a second under load), or
    # was found by its wineserver socket before it mapped the server
    # directory: a Wine process then (the other session's are `absent`)
    brief = sess - start - seen - after
    for pid in sorted(brief):
        last = n.infos[pid][-1]["payload"]
        expect(last.get("windows_image") or last["comm"].startswith("wine") or
               last["comm"].endswith(".exe"),
               "traced as a session member but not in it, and not a Wine process: %d %s"
               % (pid, [(i["payload"]["comm"], i["payload"].get("windows_image"))
                        for i in n.infos[pid]]))
    expect(len(sess) >= 5, "only %d WineSession processes: %s" % (len(sess), sorted(sess)))
    for pid, evs in n.infos.items():
        # from /proc: those citing nothing (a rename's, an exec's cite it)
        origins = [e["payload"]["origin"] for e in evs if e["payload"]["origin"] in
                   ("WineSession", "WineJoined", "Target") and not e["causes"]]
        expect(len(origins) <= 1, "pid %d named %d times from /proc" % (pid, len(origins)))
    n.expect_absent(pids(absent))
    notes = t.header["notes"]
    expect(any(x.startswith("wine session: server dir %s (device " % dir) for x in notes),
           "no header note names the server dir %s: %s" % (dir, notes))
    want = "traced from the start, target (-p): %d (%s)" % (tpid, timage)
    expect(want in notes, "no header note %r" % want)
    expect(any(x.startswith("traced from the start, wine session (same server dir): ")
               for x in notes), "no header note lists the session's members")
    with open(summary) as f:
        s = json.load(f)
    procs = {p["pid"]: p for p in s["processes"]}
    expect(s["processes_total"] == len(s["processes"]) == len(n.infos),
           "summary json: %d processes (total %d), the trace names %d"
           % (len(s["processes"]), s["processes_total"], len(n.infos)))
    for pid, image in list(named(members).items()) + list(named(joined).items()):
        p = procs.get(pid)
        expect(p and p["name"] == image and p["windows_image"] == image,
               "summary json: pid %d is %s, expected name %s" % (pid, p, image))
    expect(procs[int(server)]["name"].startswith("wineserver") and
           procs[int(server)]["windows_image"] is None, "summary json: wineserver is %s"
           % procs[int(server)])
    expect(all(procs[p]["origin"] == "WineJoined" for p in named(joined)),
           "summary json: joined processes' origin")
    return "%d processes named (%d session members at start, %d of them unseen by the test: %s)" \
        ", %d events from the joined one" \
        % (len(n.infos), len(sess), len(brief),
           [(p, n.infos[p][-1]["payload"]["comm"]) for p in sorted(brief)],
           sum(n.counts.get(p, 0) for p in named(joined)))


def check_tree(path, target, absent):
    t = Trace(path)
    n = Names(t)
    pid = int(target)
    expect(n.counts.get(pid, 0) > 0, "no events from the target %d" % pid)
    n.expect_absent(pids(absent))
    wine = [p for p, evs in n.infos.items()
            if evs[0]["payload"]["origin"] in ("WineSession", "WineJoined")]
    expect(not wine, "--no-session traced session members: %s" % wine)
    expect(any(x.startswith("wine session: off (--no-session): PID %d " % pid)
               for x in t.header["notes"]), "no note says the session is off: %s"
           % t.header["notes"])
    return "%d events, only from the tree of %d" % (len(t.events), pid)


def check_command(path, command, members, server, absent):
    t = Trace(path)
    n = Names(t)
    cpid, cimage = next(iter(named(command).items()))
    p = n.info(cpid, "the command")
    expect(p["origin"] == "Command", "the command: origin %s" % p["origin"])
    images = [e["payload"].get("windows_image") for e in n.infos[cpid]]
    expect(cimage in images, "the command is never named %s: %s" % (cimage, images))
    for pid, image in named(members).items():
        n.expect_named(pid, image, "WineSession", image, image)
    n.expect_named(int(server), "wineserver", "WineSession", None, "wineserver")
    n.expect_absent(pids(absent))
    return "the command's session came in: %d processes named" % len(n.infos)


def check_members(path, target, members, server):
    t = Trace(path)
    n = Names(t)
    tpid, timage = next(iter(named(target).items()))
    n.expect_named(tpid, "the target", "Target", timage, timage)
    for pid, image in named(members).items():
        n.expect_named(pid, image, "WineSession", image, image)
    n.expect_named(int(server), "wineserver", "WineSession", None, "wineserver")
    return "target %d and its session: %d processes named" % (tpid, len(n.infos))


def check_launcher(path, target, child, members, server):
    t = Trace(path)
    n = Names(t)
    n.expect_named(int(target), "the launcher", "Target", None, events=False)
    cpid, cimage = next(iter(named(child).items()))
    n.expect_named(cpid, cimage, "Descendant", cimage, cimage)
    for pid, image in named(members).items():
        n.expect_named(pid, image, "WineSession", image, image)
    n.expect_named(int(server), "wineserver", "WineSession", None, "wineserver")
    return "a launcher's Wine child brought its session: %d processes named" % len(n.infos)


def check_sockpeer(path, target, server, dir, session):
    """Both ways find the same members: the header's note says N processes by
    server dir, N by wineserver socket peer (naming the wineserver) and N by
    both, N being the session as the maps show it from outside (the
    target's, whose own -p origin is Target); nobody is listed as found by
    its socket only; every member is named WineSession."""
    t = Trace(path)
    n = Names(t)
    sess = set(pids(session))
    want = ("wine session: server dir %s: at start %d processes by server dir, %d by wineserver "
            "socket peer (wineserver PID %d), %d by both"
            % (dir, len(sess), len(sess), int(server), len(sess)))
    notes = t.header["notes"]
    line = [x for x in notes if x.startswith("wine session: server dir %s: " % dir)]
    expect(line == [want], "header note %s, expected %r" % (line, want))
    expect(not any("wineserver socket peer)" in x for x in notes),
           "a member found by its socket only: %s" % [x for x in notes if "peer)" in x])
    tpid = int(target)
    for pid in sess - {tpid}:
        origins = [e["payload"]["origin"] for e in n.infos.get(pid, [])]
        expect(origins[:1] == ["WineSession"], "member %d named %s" % (pid, origins))
    return "%d members, the same by server dir and by wineserver socket peer (wineserver %d)" \
        % (len(sess), int(server))


def first_request(t, pid):
    """The name of pid's first wineserver request in the trace (None: none)."""
    names = next((e["payload"]["names"] for e in t.events
                  if e["kind"] == "WineServerRequests"), None)
    for e in t.events:
        if e["kind"] == "WineServerCall" and e["phase"] == "Begin" and e["process_id"] == pid:
            r = e["payload"]["request"]
            return names[r] if names and r < len(names) else str(r)
    return None


def check_joiners(path, joined, cmd):
    t = Trace(path)
    n = Names(t)
    bad = []
    for pid, image in named(joined).items():
        try:
            n.expect_named(pid, image, "WineJoined", image, image)
            # traced from its start: its first request is the first every
            # Wine process makes
            first = first_request(t, pid)
            expect(first == "init_first_thread", "%s (pid %d): first wineserver request %s, "
                   "expected init_first_thread" % (image, pid, first))
        except Fail as e:
            bad.append(str(e))
    expect(not bad, "%d of %d programs started during the capture not traced from their "
           "start: %s" % (len(bad), len(named(joined)), "; ".join(bad)))

    def name(pid):  # the name it ends with (Wine's loader renames it)
        return n.infos[pid][-1]["payload"]["comm"]
    cmds = [p for p in n.infos if name(p) == "cmd.exe" and n.counts.get(p, 0) > 0 and
            first_request(t, p) == "init_first_thread"]
    starts = [p for p in n.infos if name(p) == "start.exe" and
              n.infos[p][0]["payload"]["origin"] == "WineJoined"]
    expect(len(cmds) >= int(cmd), "%d cmd.exe traced from their start (%s), expected %s"
           % (len(cmds), cmds, cmd))
    expect(len(starts) >= int(cmd), "%d start.exe joined (%s), expected %s"
           % (len(starts), starts, cmd))
    return "%d programs joined, each traced from its first request; %d cmd.exe below %d " \
        "start.exe" % (len(named(joined)), len(cmds), len(starts))


CHECKS = {"joiners": check_joiners, "launcher": check_launcher, "session": check_session, "tree": check_tree, "command": check_command,
          "members": check_members, "sockpeer": check_sockpeer}


def main(argv):
    if len(argv) < 3 or argv[1] not in CHECKS:
        print("usage: check.py {%s} TRACE.jsonl KEY=VALUE..." % ",".join(CHECKS),
              file=sys.stderr)
        return 2
    kw = dict(a.split("=", 1) for a in argv[3:])
    try:
        print(CHECKS[argv[1]](argv[2], **kw))
    except Fail as e:
        print(str(e))
        return 1
    except (KeyError, IndexError, TypeError, ValueError, OSError, StopIteration) as e:
        print("%s: unexpected trace shape: %s: %s" % (argv[1], type(e).__name__, e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
