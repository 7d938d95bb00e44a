"""Open a page in headless Chromium and look at it as a person would (issue 14).

Debian's ``chromium`` is started with the DevTools protocol on a pipe
(``--remote-debugging-pipe``: commands on file descriptor 3, answers on 4, each JSON
message ended by a NUL byte), so nothing but the standard library is needed: no
browser download, no websocket client, no network. A fresh ``--user-data-dir`` per
session; the flags keep Chromium from calling home.

``Browser.open(path)`` loads a file and returns a ``PageVisit``: the uncaught script
errors (``Runtime.exceptionThrown``) and console errors seen while loading, the load
time, ``evaluate`` for DOM queries, ``click`` and ``screenshot``. Used by
``tests/browser/test_report_in_chromium.py``, ``benchmarks/report_open.py`` and
``docs/screenshot.py``.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--hide-scrollbars", "--mute-audio",
         "--remote-debugging-pipe")

# Started by a tiny Python launcher so the two pipe ends land on descriptors 3 and 4
# in Chromium without a shell and without preexec_fn.
_LAUNCHER = ("import os, sys\n"
             "os.dup2(int(sys.argv[1]), 3); os.dup2(int(sys.argv[2]), 4)\n"
             "os.execvp(sys.argv[3], sys.argv[3:])\n")


def find_chromium() -> str | None:
    """Return the path of a Chromium executable, or None."""
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(RuntimeError):
    """Chromium failed, answered with an error, or did not answer in time."""


class Browser:
    """A headless Chromium session driven over the DevTools pipe."""

    def __init__(self, executable: str | None = None, timeout: float = 60.0) -> None:
        executable = executable or find_chromium()
        if executable is None:
            raise BrowserError("no chromium on the PATH")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="bridge-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        self.process = subprocess.Popen(
            [sys.executable, "-c", _LAUNCHER, str(to_browser_r), str(from_browser_w),
             executable, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            pass_fds=(to_browser_r, from_browser_w), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    # -- protocol --------------------------------------------------------------

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise BrowserError("Chromium did not answer in time")
            import select

            ready, _, _ = select.select([self._from_browser], [], [], 0.5)
            if not ready:
                if self.process.poll() is not None:
                    raise BrowserError(f"Chromium exited ({self.process.returncode}): "
                                       f"{self._stderr_tail()}")
                continue
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise BrowserError(f"Chromium closed the pipe: {self._stderr_tail()}")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def _stderr_tail(self) -> str:
        if self.process.poll() is None or self.process.stderr is None:
            return ""
        return self.process.stderr.read().decode(errors="replace")[-500:]

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send a command and return its result (events that arrive meanwhile are kept
        in ``events``)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, method: str, session: str | None = None,
                 timeout: float | None = None) -> dict[str, Any]:
        """Return the first event ``method`` (of ``session``) not yet consumed."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for k, event in enumerate(self.events):
                if event.get("method") == method and (
                        session is None or event.get("sessionId") == session):
                    return self.events.pop(k)
            self.events.append(self._read_message(deadline))

    # -- pages -----------------------------------------------------------------

    def open(self, path: Path | str, width: int = 1400, height: int = 1000) -> PageVisit:
        """Load the file ``path`` in a new tab and return the visit."""
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable", session)
        self.send("Emulation.setDeviceMetricsOverride", session, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)
        self.events.clear()
        url = Path(path).resolve().as_uri()
        started = time.monotonic()
        self.send("Page.navigate", session, url=url)
        self.wait_for("Page.loadEventFired", session)
        seconds = time.monotonic() - started
        return PageVisit(self, session, url, seconds)

    def close(self) -> None:
        """End the browser and remove its profile."""
        try:
            if self.process.poll() is None:
                try:
                    self.send("Browser.close")
                except BrowserError:
                    pass
                try:
                    self.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(self.process.pid, 9)
                    self.process.wait(timeout=10)
        finally:
            for fd in (self._to_browser, self._from_browser):
                try:
                    os.close(fd)
                except OSError:
                    pass
            if self.process.stderr is not None:
                self.process.stderr.close()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class PageVisit:
    """A page loaded in the browser."""

    def __init__(self, browser: Browser, session: str, url: str, seconds: float) -> None:
        self.browser, self.session, self.url = browser, session, url
        self.load_seconds = seconds  # navigation to the load event, measured here

    def evaluate(self, expression: str) -> Any:
        """Return the value of a JavaScript expression in the page (an exception in it
        raises ``BrowserError``)."""
        result = self.browser.send("Runtime.evaluate", self.session, expression=expression,
                                   returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    def errors(self) -> list[str]:
        """Return the script errors so far: uncaught exceptions, console errors, error
        log entries, and what the page's own error trap recorded."""
        found: list[str] = []
        for event in self.browser.events:
            if event.get("sessionId") != self.session:
                continue
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                found.append(details.get("exception", {}).get("description")
                             or details.get("text", "exception"))
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                found.append(" ".join(str(a.get("value", a.get("description", "")))
                                      for a in params.get("args", [])))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(params["entry"].get("text", "log error"))
        trapped = self.evaluate("window.__bridgeErrors || []")
        return found + [f"(trapped) {e}" for e in trapped or []]

    def click(self, selector: str) -> None:
        """Click the first element matching ``selector``: a bubbling mouse click event,
        which also follows SVG links and opens ``<details>`` through their summary."""
        done = self.evaluate(
            f"(function(){{var e=document.querySelector({json.dumps(selector)});"
            "if(!e)return false;e.dispatchEvent(new MouseEvent('click',"
            "{bubbles:true,cancelable:true,view:window}));return true;})()")
        if not done:
            raise BrowserError(f"nothing to click at {selector!r}")

    def screenshot(self, path: Path | str, full_page: bool = False) -> Path:
        """Save a PNG of the viewport (or of the whole page) to ``path``."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.evaluate("[document.documentElement.scrollWidth,"
                                 "document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True, clip={
                "x": 0, "y": 0, "width": size[0], "height": min(size[1], 8000), "scale": 1})
        data = self.browser.send("Page.captureScreenshot", self.session, **params)["data"]
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(base64.b64decode(data))
        return target
