# SPDX-License-Identifier: GPL-2.0-only
"""A minimal Chrome DevTools Protocol client over --remote-debugging-pipe
(file descriptors 3 and 4, messages separated by NUL): enough to load a page
in headless Chromium, read its text, click, and take a screenshot, with no
package beyond Python's standard library."""
import base64
import json
import os
import subprocess
import time


class Browser:
    def __init__(self, chromium, user_data_dir, width=1600, height=1000):
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()
        # chromium reads commands on fd 3 and writes replies on fd 4
        def setup():
            # the pipes may themselves be 3 or 4: move them out of the way first
            r, w = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(r, 3)
            os.dup2(w, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)
        self.proc = subprocess.Popen(
            [chromium, "--headless=new", "--remote-debugging-pipe", "--no-sandbox",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
             "--allow-file-access-from-files", f"--window-size={width},{height}",
             f"--user-data-dir={user_data_dir}", "about:blank"],
            # dup2 in the child leaves 3 and 4 inheritable; Python's own
            # descriptors are close-on-exec, so nothing else leaks
            preexec_fn=setup, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._id = 0
        self.events = []      # every event received, in order
        self.session = None

    def _read_message(self, timeout):
        deadline = time.time() + timeout
        while b"\0" not in self._buf:
            import select
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("no message from chromium")
            r, _, _ = select.select([self._r], [], [], left)
            if r:
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    raise EOFError("chromium closed the pipe")
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True, timeout=30):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read_message(timeout)
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def pump(self, seconds):
        """Collect events for a while."""
        end = time.time() + seconds
        while time.time() < end:
            try:
                self.events.append(self._read_message(end - time.time()))
            except TimeoutError:
                break

    def open_page(self):
        targets = self.call("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": page["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call("Log.enable")

    def navigate(self, url):
        self.call("Page.navigate", {"url": url})

    def eval(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"page threw: {r['exceptionDetails']}")
        return r["result"].get("value")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def console(self):
        """Console messages and uncaught exceptions, as text lines."""
        out = []
        for m in self.events:
            meth = m.get("method")
            p = m.get("params", {})
            if meth == "Runtime.consoleAPICalled":
                text = " ".join(str(a.get("value", a.get("description", "")))
                                for a in p.get("args", []))
                out.append(f"console.{p.get('type')}: {text}")
            elif meth == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: " + str(d.get("exception", {}).get("description",
                                                                          d.get("text"))))
            elif meth == "Page.javascriptDialogOpening":
                out.append("dialog: " + p.get("message", ""))
            elif meth == "Log.entryAdded":
                e = p.get("entry", {})
                out.append(f"log.{e.get('level')}: {e.get('text')}")
        return out

    def close(self):
        try:
            self.call("Browser.close", session=False, timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
